"""Elements: one node of the accessibility tree as a read gives it.

Rule 1: an element's ``frame`` is ``(x, y, w, h)`` normalized to the screen, each in 0..1.
Rule 2: an element's ``path`` is its index path in the tree. The app's root element is ``/0``;
        its first child is ``/0/0``; the second child of its third child is ``/0/2/1``.
Rule 8: ``placeholder`` is the text a field shows while it is empty; a driver reads such a field
        with ``value`` "" (WDA reports the placeholder as the value of an empty field).

(Numbered as the screen's rules: ``screen`` says where each one is kept.)
"""

from __future__ import annotations

import attrs

__all__ = ["DEFAULT_SCREEN_SIZE", "Element", "Frame"]

Frame = tuple[float, float, float, float]

#: The screen size in points used when a read does not say (an iPhone 15/16/17 Pro).
DEFAULT_SCREEN_SIZE: tuple[int, int] = (402, 874)


@attrs.frozen
class Element:
    """One element of the accessibility tree.

    ``role`` is the XCUIElementType name without its prefix (``Button``, ``StaticText``, …).
    ``visible`` is what the device says of the element itself; whether it counts as shown is
    :meth:`Screen.is_shown` (module Rule 7). ``placeholder`` is the text an empty field shows.
    """

    role: str
    label: str = ""
    identifier: str = ""
    value: str = ""
    frame: Frame = (0.0, 0.0, 0.0, 0.0)
    enabled: bool = True
    visible: bool = True
    selected: bool = False
    path: str = "/0/0"
    placeholder: str = ""

    @property
    def center(self) -> tuple[float, float]:
        """The centre of the frame, normalized (0..1 on each axis)."""
        x, y, w, h = self.frame
        return (x + w / 2, y + h / 2)

    @property
    def pair(self) -> tuple[str, str]:
        """The ``(role, label)`` pair this element adds to a signature."""
        return (self.role, self.label)
