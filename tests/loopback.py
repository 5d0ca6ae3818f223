"""The loopback network the tests use: a port nothing listens on."""

from __future__ import annotations

import socket


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
