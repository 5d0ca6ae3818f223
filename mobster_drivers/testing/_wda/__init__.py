"""The fake WebDriverAgent's parts, by route family; its door is :mod:`mobster_drivers.testing.wda`.

Each module is one concept and states in full the fake's rules it carries. A rule keeps the one
number it has across the parts (``wda`` says where each is stated), so "Rule 13" means the same
rule in every module. Imports go one way, down this list (a layers contract holds it):

- ``dispatch``: a request to its handler, in the form WDA registers the route (Rule 2);
- the route families, each with its own table and the list of WDA's routes it serves, with their
  declarations in WDA's source: ``session`` (sessions, status, settings), ``find`` (the source,
  finding elements, an element's attributes), ``actions`` (taps, W3C actions, typing, gestures),
  ``alerts`` (alerts and the keyboard), ``apps`` (launching, activating, terminating, home,
  buttons, URLs), ``device`` (screenshots, the window, orientation, appearance, locale, location,
  pasteboard, video, VoiceOver, the audit); none imports another;
- ``table``: how a family registers its handlers;
- ``state``: what WDA keeps on the phone's loop (the session, settings, focus, element cache),
  through the one narrow interface every handler uses;
- ``tree`` (the source WDA writes; a captured tree), ``costs`` (what a reply costs on real WDA)
  and ``wire`` (WDA's envelope and errors), which import none of the others.

The server itself (the loopback lifecycle, the phone's loop, faults, recording) is ``wda``'s.
"""
