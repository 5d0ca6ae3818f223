"""The WebDriverAgent device: a phone driven through WDA's HTTP API.

::

    from mobster_drivers.devices.wda import WdaDevice

    device = WdaDevice("http://127.0.0.1:8100")  # a simulator's WDA, or a phone's forwarded port
    screen = await device.read()

Requests go through a :class:`WdaTransport`: by default :class:`FacebookWdaTransport`, over
facebook-wda's connections (the ``simulator`` extra, ``mobster-replay[simulator]``), imported when the device is made;
a reply is read within its timeout and to :data:`MAX_REPLY_BYTES`.
Each action endpoint is called once with an explicit timeout; errors are mapped to
``DeviceError`` and ``UnknownOutcome`` (see ``_device``'s rules and ``docs/drivers.md``). The replay
polls with the fast read (``read``); the verdict uses ``read_evidence``, which keeps WDA's own
visibility; ``check_target`` asks WDA before an action whether its element is visible.
``mobster_drivers.testing.wda`` serves a scripted phone over the same protocol for tests.
:class:`WdaHosted` is the base of a device whose screen is a WDA (the simulator, the USB iPhone):
it forwards what isn't the device's own to the ``WdaDevice`` it hosts.
"""

from __future__ import annotations

from mobster_drivers._xcuitest.session import SESSION_SETTINGS
from mobster_drivers._xcuitest.tree import (
    MAX_NODES,
    SourceRead,
    parse_xml_source,
    read_source,
    resolve,
    screen_from_source,
    source_bundle,
)
from mobster_drivers._xcuitest.visibility import ANSWER_SECONDS

from ._device import (
    ELEMENTS_PATH,
    EVIDENCE_PATH,
    SESSION_CAPABILITIES,
    SOURCE_PATH,
    WdaDevice,
    WdaTimeouts,
)
from ._hosted import WdaHosted
from ._transport import (
    MAX_REPLY_BYTES,
    FacebookWdaTransport,
    WdaBadReply,
    WdaErrorReply,
    WdaNoReply,
    WdaReply,
    WdaTransport,
    WdaTransportError,
    WdaUnreachable,
    normalize_wda_url,
)

__all__ = [
    "ANSWER_SECONDS",
    "ELEMENTS_PATH",
    "EVIDENCE_PATH",
    "MAX_NODES",
    "MAX_REPLY_BYTES",
    "SESSION_CAPABILITIES",
    "SESSION_SETTINGS",
    "SOURCE_PATH",
    "FacebookWdaTransport",
    "SourceRead",
    "WdaBadReply",
    "WdaDevice",
    "WdaErrorReply",
    "WdaHosted",
    "WdaNoReply",
    "WdaReply",
    "WdaTimeouts",
    "WdaTransport",
    "WdaTransportError",
    "WdaUnreachable",
    "normalize_wda_url",
    "parse_xml_source",
    "read_source",
    "resolve",
    "screen_from_source",
    "source_bundle",
]
