"""Screens as the rules see them: why an element isn't shown, two reads compared, what a check would write.

What ``mobster inspect`` shows, for a tool of your own: :attr:`Screen.hidden
<mobster_core.Screen.hidden>` gives, for each element, None when it counts as shown or the
:class:`Hidden` reason it doesn't (the one rule the signature, the matcher and the assertions
use); :func:`read_differences` compares the verdict's evidence read with the replay's fast read;
:func:`suggest` gives the step and the expect entries a check would write for a label, checked
with the assertions' own rules on that screen. ``docs/inspect.md`` says what each field means.
"""

from ._rules.verdict.inspection import Candidate, Difference, Found, Suggestion, flow_yaml, read_differences, suggest
from ._rules.vocabulary.screen import Hidden

__all__ = ["Candidate", "Difference", "Found", "Hidden", "Suggestion", "flow_yaml", "read_differences", "suggest"]
