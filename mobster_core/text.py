"""Text from outside (labels, names, replies) made safe where it goes.

:func:`valid_text` makes text valid Unicode (a lone surrogate reads as U+FFFD); :func:`escape_controls`
shows control characters and escape sequences as escapes, for a terminal; :func:`xml_text` removes
what XML 1.0 forbids; :func:`utf8` encodes whatever the text holds; :func:`normal_locale` writes a locale as iOS does
(``de-DE`` -> ``de_DE``) and :func:`language_of` gives its language (``de``); :func:`bom_problem` says
a byte order mark that a UTF-8 format without one (TOML, a push payload) starts with, and the fix.
"""

from ._rules.device.device import language_of, normal_locale
from ._rules.formats.text import bom_problem, escape_controls, utf8, valid_text, xml_text

__all__ = ["bom_problem", "escape_controls", "language_of", "normal_locale", "utf8", "valid_text", "xml_text"]
