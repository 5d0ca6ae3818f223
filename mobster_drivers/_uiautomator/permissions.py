"""The check's privacy services as Android's runtime permissions: what ``pm grant`` is given.

Pure: no I/O. Rule 1: a service of the check's ``alerts:`` policy (``mobster_core.checks.ALERT_SERVICES``)
is the runtime (``dangerous``) permissions of its group in AOSP's ``frameworks/base/core/res/
AndroidManifest.xml``, as the PermissionController's dialog asks for them: ``camera`` is
``android.permission.CAMERA``, ``location`` the fine and the coarse location, and so on
(:data:`PERMISSIONS`). A service with no Android permission (``tracking``, ``siri``, ``health``,
``homekit``, ``faceid``, ``reminders``, ``speech``, ``media-library``, ``photos-add``) grants
nothing: its prompt, if an app shows one of its own, is answered as it shows.
Rule 2: a permission the API level doesn't have is not granted (``POST_NOTIFICATIONS`` is 33's,
the ``READ_MEDIA_*`` ones 33's, ``BLUETOOTH_CONNECT``/``BLUETOOTH_SCAN`` 31's, before them
``READ_EXTERNAL_STORAGE`` stands for the photos; ``ACCESS_BACKGROUND_LOCATION`` 29's, and
``ACTIVITY_RECOGNITION`` 29's).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["PERMISSIONS", "permissions_for", "service_of_permission"]

_P = "android.permission."

#: Rule 1: each service's permissions, and the API level each came with.
PERMISSIONS: Mapping[str, tuple[tuple[str, int], ...]] = MappingProxyType(
    {
        "camera": ((_P + "CAMERA", 1),),
        "microphone": ((_P + "RECORD_AUDIO", 1),),
        "location": ((_P + "ACCESS_FINE_LOCATION", 1), (_P + "ACCESS_COARSE_LOCATION", 1)),
        "location-always": (
            (_P + "ACCESS_FINE_LOCATION", 1),
            (_P + "ACCESS_COARSE_LOCATION", 1),
            (_P + "ACCESS_BACKGROUND_LOCATION", 29),
        ),
        "contacts": ((_P + "READ_CONTACTS", 1), (_P + "WRITE_CONTACTS", 1)),
        "calendar": ((_P + "READ_CALENDAR", 1), (_P + "WRITE_CALENDAR", 1)),
        "notifications": ((_P + "POST_NOTIFICATIONS", 33),),
        "photos": ((_P + "READ_MEDIA_IMAGES", 33), (_P + "READ_MEDIA_VIDEO", 33)),
        "bluetooth": ((_P + "BLUETOOTH_CONNECT", 31), (_P + "BLUETOOTH_SCAN", 31)),
        "motion": ((_P + "ACTIVITY_RECOGNITION", 29),),
    }
)
#: Rule 2: the photos before API 33.
_OLD_PHOTOS = ((_P + "READ_EXTERNAL_STORAGE", 1),)


def permissions_for(service: str, api: int) -> tuple[str, ...]:
    """Rules 1, 2: the permissions ``pm grant`` is given for ``service`` on ``api``; () when none."""
    found = PERMISSIONS.get(service, ())
    if service == "photos" and api < 33:
        found = _OLD_PHOTOS
    return tuple(name for name, since in found if api >= since)


def service_of_permission(permission: str) -> tuple[str, ...]:
    """The services whose prompts a grant of ``permission`` answers (a fake device's prompts)."""
    found = [s for s, perms in PERMISSIONS.items() if any(p == permission for p, _ in perms)]
    if permission == _OLD_PHOTOS[0][0]:
        found.append("photos")
    return tuple(found)
