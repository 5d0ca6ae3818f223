"""The library's loggers: structlog in front of the standard ``logging`` module.

Rule 1: the library never configures logging; with no configuration nothing is printed. Every
        logger of the library is a child of the one ``mobster`` logger (``mobster.core.…``,
        ``mobster.drivers.…``), which has a ``NullHandler`` (added by the package).
Rule 2: processors are passed explicitly, so the library neither depends on nor alters
        ``structlog.configure``; key/value pairs arrive as ``LogRecord`` attributes.
Rule 3: a key that would collide with a ``LogRecord`` field of its own (``message``, ``msg``,
        ``args``, ``name``, ``exc_info`` as data, …: ``logging`` raises ``KeyError`` for those)
        is renamed ``<key>_``, by the logger itself, so no call, with whatever keys, can make a
        log line raise. ``exc_info``, ``stack_info`` and ``stacklevel`` keep their meaning.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import Any

import structlog

__all__ = ["RESERVED_KEYS", "get_logger", "logger_name"]

#: What ``logging.makeRecord`` refuses in ``extra``: every attribute a record has, and the two it
#: adds while formatting.
RESERVED_KEYS = frozenset({*logging.LogRecord("x", logging.INFO, "x", 0, "x", (), None).__dict__, "message", "asctime"})
_KWARGS = frozenset({"exc_info", "stack_info", "stacklevel"})


def _rename_reserved(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Rule 3: ``message=…`` becomes ``message_=…`` (and ``message_`` ``message__``, …)."""
    for key in [k for k in event_dict if k in RESERVED_KEYS and k not in _KWARGS]:
        value = event_dict.pop(key)
        new = f"{key}_"
        while new in event_dict or new in RESERVED_KEYS:
            new += "_"
        event_dict[new] = value
    return event_dict


def logger_name(name: str) -> str:
    """``mobster_core._store.cache`` -> ``mobster.core._store.cache``: under ``mobster`` (Rule 1)."""
    head, _, rest = name.partition(".")
    if head.startswith("mobster_"):
        head = f"mobster.{head.removeprefix('mobster_')}"
    elif head != "mobster":
        head = f"mobster.{head}"
    return f"{head}.{rest}" if rest else head


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A structlog logger over ``logging.getLogger(logger_name(name))`` (see the module rules)."""
    logger: structlog.stdlib.BoundLogger = structlog.wrap_logger(
        logging.getLogger(logger_name(name)),
        processors=[structlog.stdlib.filter_by_level, _rename_reserved, structlog.stdlib.render_to_log_kwargs],
        wrapper_class=structlog.stdlib.BoundLogger,
    )
    return logger
