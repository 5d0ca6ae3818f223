"""Android's widget classes as the core's roles: the one place they are mapped, both ways.

Pure: no I/O. The core's roles are XCUITest's element types (``mobster_core``'s ``roles``);
Android's facts map onto them here, so a check written once names ``Button``, ``TextField`` and
``StaticText`` on both platforms.

Rule 1 (by class): a node's role comes from its ``class`` (the tag of the UiAutomator2 server's
        source, the ``class`` attribute of ``uiautomator dump``), by its simple name (the part
        after the last ``.``; the server writes ``$`` as ``.``, so ``SearchView$SearchAutoComplete``
        is ``SearchAutoComplete``): :data:`BY_CLASS`. A class the table doesn't name (an app's own
        view, a vendor's widget) is read by the ending of its name (:data:`BY_SUFFIX`:
        ``FancyTextView`` is a text, ``RoundedImageView`` an image, ``ItemLayout`` a layout), else
        as a plain ``android.view.View``.
Rule 2 (by what it does): a plain view (``android.view.View``: Jetpack Compose writes every node
        without a widget role so) and a layout are read by what they do: checkable is a
        ``Toggle`` (its state is what a person reads: a Quick Settings tile), clickable a
        ``Button`` (a ``Cell`` when it is a row of a list: its parent is a list), scrollable a
        ``ScrollView``; a plain view with text is a ``StaticText``, one
        with only a content description an ``Image`` (an icon); anything else is ``Other``.
Rule 3 (texts that are pressed): a text class (``TextView`` and its kind, not a text input) that
        is clickable is a ``Button`` (a launcher's icon, a text link): a person presses it, and
        the safety rules judge it as a control, never as a title.
Rule 4 (text inputs): ``EditText`` and its kind are a ``TextField``; with ``password="true"`` a
        ``SecureTextField``; a ``SearchView``'s input a ``SearchField``.
Rule 5 (the way back): :func:`class_of` is the class the fake UiAutomator2 server writes for a role
        (a scripted phone's screen as Android's tree); every role of :data:`ROUND_TRIP` reads back
        as itself. ``Cell`` has no class of its own on Android (a row is a clickable layout): it
        is written as a clickable ``LinearLayout`` and reads back as a ``Button`` outside a list.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

__all__ = ["BY_CLASS", "BY_SUFFIX", "LISTS", "ROUND_TRIP", "TEXT_INPUTS", "Facts", "class_of", "role_of", "simple_name"]

#: Rule 1: the widget classes of the platform and of AndroidX / Material, by simple name.
BY_CLASS: Mapping[str, str] = MappingProxyType(
    {
        # buttons
        **dict.fromkeys(
            (
                "Button", "ImageButton", "AppCompatButton", "AppCompatImageButton", "MaterialButton",
                "FloatingActionButton", "ExtendedFloatingActionButton", "Chip", "TabView",
            ),
            "Button",
        ),
        # text inputs (Rule 4)
        **dict.fromkeys(
            (
                "EditText", "AutoCompleteTextView", "MultiAutoCompleteTextView", "TextInputEditText",
                "AppCompatEditText", "AppCompatAutoCompleteTextView", "ExtractEditText",
            ),
            "TextField",
        ),
        "SearchAutoComplete": "SearchField",
        # texts
        **dict.fromkeys(("TextView", "AppCompatTextView", "MaterialTextView", "Toast", "TextClock"), "StaticText"),
        # controls with a state
        **dict.fromkeys(("Switch", "SwitchCompat", "SwitchMaterial", "MaterialSwitch", "ToggleButton"), "Switch"),
        **dict.fromkeys(("CheckBox", "AppCompatCheckBox", "MaterialCheckBox", "CheckedTextView"), "CheckBox"),
        **dict.fromkeys(("RadioButton", "AppCompatRadioButton", "MaterialRadioButton"), "RadioButton"),
        "RadioGroup": "RadioGroup",
        **dict.fromkeys(("SeekBar", "AppCompatSeekBar", "Slider", "RangeSlider", "RatingBar"), "Slider"),
        **dict.fromkeys(
            ("ProgressBar", "ContentLoadingProgressBar", "CircularProgressIndicator", "LinearProgressIndicator"),
            "ProgressIndicator",
        ),
        **dict.fromkeys(("Spinner", "AppCompatSpinner"), "PopUpButton"),
        **dict.fromkeys(("DatePicker", "TimePicker", "CalendarView"), "DatePicker"),
        "NumberPicker": "Picker",
        # pictures
        **dict.fromkeys(("ImageView", "AppCompatImageView", "ShapeableImageView", "Image"), "Image"),
        # lists, scrolling and web
        **dict.fromkeys(("ListView", "GridView", "RecyclerView", "ExpandableListView"), "CollectionView"),
        **dict.fromkeys(
            ("ScrollView", "HorizontalScrollView", "NestedScrollView", "ViewPager", "ViewPager2"), "ScrollView"
        ),
        "WebView": "WebView",
        # bars
        **dict.fromkeys(("TabWidget", "TabLayout"), "TabBar"),
        **dict.fromkeys(("Toolbar", "ActionBarContainer", "ActionBarView", "ActionMenuView"), "Toolbar"),
    }
)  # fmt: skip

#: Rule 1: a class the table doesn't name, by the ending of its simple name (first match wins).
BY_SUFFIX: tuple[tuple[str, str], ...] = (
    ("EditText", "TextField"),
    ("TextView", "StaticText"),
    ("ImageButton", "Button"),
    ("Button", "Button"),
    ("ImageView", "Image"),
    ("Switch", "Switch"),
    ("CheckBox", "CheckBox"),
    ("RecyclerView", "CollectionView"),
    ("ListView", "CollectionView"),
    ("GridView", "CollectionView"),
    ("ScrollView", "ScrollView"),
    ("WebView", "WebView"),
    ("Layout", "Other"),
    ("Group", "Other"),
)

#: Rule 4: the roles that take typing.
TEXT_INPUTS = frozenset({"TextField", "SecureTextField", "SearchField"})
#: Rule 2: the roles whose clickable children are rows (``Cell``).
LISTS = frozenset({"CollectionView"})
#: Rule 2: what a plain view or a layout is read as, by what it does.
_PLAIN = frozenset({"Other"})
_TEXTS = frozenset({"StaticText"})

_CLASS_OF: Mapping[str, str] = MappingProxyType(
    {
        "Button": "android.widget.Button",
        "StaticText": "android.widget.TextView",
        "TextField": "android.widget.EditText",
        "SecureTextField": "android.widget.EditText",
        "SearchField": "android.widget.SearchView$SearchAutoComplete",
        "TextView": "android.widget.EditText",
        "Switch": "android.widget.Switch",
        "Toggle": "android.widget.ToggleButton",
        "CheckBox": "android.widget.CheckBox",
        "RadioButton": "android.widget.RadioButton",
        "Slider": "android.widget.SeekBar",
        "ProgressIndicator": "android.widget.ProgressBar",
        "Image": "android.widget.ImageView",
        "Icon": "android.widget.ImageView",
        "CollectionView": "androidx.recyclerview.widget.RecyclerView",
        "Table": "android.widget.ListView",
        "ScrollView": "android.widget.ScrollView",
        "WebView": "android.webkit.WebView",
        "PopUpButton": "android.widget.Spinner",
        "TabBar": "android.widget.TabWidget",
        "Toolbar": "android.widget.Toolbar",
        "NavigationBar": "android.widget.Toolbar",
        "Cell": "android.widget.LinearLayout",
        "Link": "android.widget.TextView",
    }
)
#: Rule 5: the roles that read back as themselves from the class :func:`class_of` writes.
ROUND_TRIP = frozenset(
    {
        "Button", "StaticText", "TextField", "SecureTextField", "SearchField", "Switch", "CheckBox",
        "RadioButton", "Slider", "ProgressIndicator", "Image", "CollectionView", "ScrollView", "WebView",
        "PopUpButton", "TabBar", "Toolbar", "Other",
    }
)  # fmt: skip


def simple_name(cls: str) -> str:
    """Rule 1: a class's simple name: ``android.widget.Button`` -> ``Button``; ``A$B`` -> ``B``."""
    return cls.replace("$", ".").rstrip(".").rsplit(".", 1)[-1]


def _by_class(cls: str) -> str:
    name = simple_name(cls)
    found = BY_CLASS.get(name)
    if found is not None:
        return found
    if name == "View":
        return "Other"
    for suffix, role in BY_SUFFIX:
        if name.endswith(suffix):
            return role
    return "Other"


@attrs.frozen
class Facts:
    """What a node says of itself that its role depends on: its class and flags, as the dump writes them."""

    cls: str
    clickable: bool = False
    checkable: bool = False
    scrollable: bool = False
    password: bool = False
    has_text: bool = False
    has_description: bool = False


def role_of(facts: Facts, parent: str | None = None) -> str:
    """The role of a node (Rules 1 to 4); ``parent`` is its parent's role (a list makes a row a ``Cell``)."""
    role = _by_class(facts.cls)
    if role == "TextField" and facts.password:
        return "SecureTextField"
    if role in _TEXTS and facts.clickable:
        return "Button"  # Rule 3
    if role not in _PLAIN:
        return role
    if facts.checkable:  # Rule 2: a state to show (a Compose toggle, a Quick Settings tile) before a press
        return "Toggle"
    if facts.clickable:
        return "Cell" if parent in LISTS else "Button"
    return _what_a_view_shows(facts)


def _what_a_view_shows(facts: Facts) -> str:
    """Rule 2, for a view nobody presses: it scrolls, or (a plain view) it is a text or an icon."""
    if facts.scrollable:
        return "ScrollView"
    if simple_name(facts.cls) != "View":
        return "Other"
    return "StaticText" if facts.has_text else "Image" if facts.has_description else "Other"


def class_of(role: str) -> str:
    """Rule 5: the class the fake UiAutomator2 server writes for ``role`` (a layout for one it has none)."""
    return _CLASS_OF.get(role, "android.widget.FrameLayout")
