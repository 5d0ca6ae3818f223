"""An element's role as every rule reads it: one spelling, whatever a driver sent.

Rule 1: a role is XCUITest's element type without the ``XCUIElementType`` prefix (``Button``,
        ``StaticText``). A driver that sends the full name (``XCUIElementTypeButton``), another
        case (``button``, ``BUTTON``) or both is read as that type's one spelling, where a screen is
        made (``Screen``): the signature, the matcher, the assertions and the safety rules all see
        ``Button``. A role that is no XCUITest type keeps its own spelling, the prefix taken off.
Rule 2: :data:`ROLES` is XCUITest's list of element types (``XCUIElementType``, Xcode 26).
"""

from __future__ import annotations

__all__ = ["PREFIX", "ROLES", "canonical_role"]

PREFIX = "XCUIElementType"

#: Rule 2.
ROLES: frozenset[str] = frozenset(
    {
        "Any", "Other", "Application", "Group", "Window", "Sheet", "Drawer", "Alert", "Dialog", "Button",
        "RadioButton", "RadioGroup", "CheckBox", "DisclosureTriangle", "PopUpButton", "ComboBox", "MenuButton",
        "ToolbarButton", "Popover", "Keyboard", "Key", "NavigationBar", "TabBar", "TabGroup", "Toolbar",
        "StatusBar", "Table", "TableRow", "TableColumn", "Outline", "OutlineRow", "Browser", "CollectionView",
        "Slider", "PageIndicator", "ProgressIndicator", "ActivityIndicator", "SegmentedControl", "Picker",
        "PickerWheel", "Switch", "Toggle", "Link", "Image", "Icon", "SearchField", "ScrollView", "ScrollBar",
        "StaticText", "TextField", "SecureTextField", "DatePicker", "TextView", "Menu", "MenuItem", "MenuBar",
        "MenuBarItem", "Map", "WebView", "IncrementArrow", "DecrementArrow", "Timeline", "RatingIndicator",
        "ValueIndicator", "SplitGroup", "Splitter", "RelevanceIndicator", "ColorWell", "HelpTag", "Matte",
        "DockItem", "Ruler", "RulerMarker", "Grid", "LevelIndicator", "Cell", "LayoutArea", "LayoutItem",
        "Handle", "Stepper", "Tab", "TouchBar", "StatusItem",
    }
)  # fmt: skip
_BY_FOLDED = {role.casefold(): role for role in ROLES}
_PREFIX_FOLDED = PREFIX.casefold()


def canonical_role(role: str) -> str:
    """Rule 1: ``XCUIElementTypeButton``, ``button`` and ``Button`` are ``Button``."""
    if role in ROLES:
        return role
    bare = role.strip()
    if bare.casefold().startswith(_PREFIX_FOLDED):
        bare = bare[len(PREFIX) :]
    return _BY_FOLDED.get(bare.casefold(), bare)
