"""The library's loggers: structlog in front of the standard ``logging`` module.

Rule 1: the library never configures logging; with no configuration nothing is printed (the
        package adds a ``NullHandler`` to the ``mobster`` logger).
Rule 2: processors are passed explicitly, so the library neither depends on nor alters
        ``structlog.configure``; key/value pairs arrive as ``LogRecord`` attributes.
"""

from __future__ import annotations

import logging

import structlog

__all__ = ["get_logger"]


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A structlog logger over ``logging.getLogger(name)`` (see the module rules)."""
    logger: structlog.stdlib.BoundLogger = structlog.wrap_logger(
        logging.getLogger(name),
        processors=[structlog.stdlib.filter_by_level, structlog.stdlib.render_to_log_kwargs],
        wrapper_class=structlog.stdlib.BoundLogger,
    )
    return logger
