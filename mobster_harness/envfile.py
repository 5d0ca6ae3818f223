"""Env files: the ``KEY=value`` lines of API keys and ``${NAME}`` values, for both front ends.

Rule 1: an env file is a regular file (a FIFO is refused without waiting) of at most
        :data:`ENV_FILE_MAX_BYTES`, UTF-8, of ``KEY=value`` lines (``#`` comments, optional
        quotes, ``export`` allowed). Anything else is an :class:`EnvFileError` naming the file (and
        its line or byte) and the option as the front end spells it; a value is never echoed.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ENV_FILE_MAX_BYTES", "EnvFileError", "read_env_file"]

#: An env file holds a few keys; anything larger is not one.
ENV_FILE_MAX_BYTES = 64 * 1024


class EnvFileError(ValueError):
    """An env file that can't be used; the message names it and says what to write (Rule 1)."""


def read_env_file(path: Path, *, spelled: str = "--env-file") -> dict[str, str]:
    """``KEY=value`` lines (``#`` comments, optional quotes, ``export`` allowed); never echoes a value."""
    from mobster_core.checks import read_user_file
    from mobster_core.exceptions import UnsafeFile

    out: dict[str, str] = {}
    try:
        text = read_user_file(path, max_bytes=ENV_FILE_MAX_BYTES).decode("utf-8")
    except UnsafeFile as exc:
        raise EnvFileError(f"{spelled} {path}: {exc.reason}; give a regular file of KEY=value lines") from exc
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise EnvFileError(f"{spelled} {path}: can't read it ({why}); check the path") from exc
    except UnicodeDecodeError as exc:
        raise EnvFileError(f"{spelled} {path}: byte {exc.start + 1} is not UTF-8; save it as UTF-8") from exc
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        if not sep or not key.strip().isidentifier():
            raise EnvFileError(f"{spelled} {path}:{n}: expected KEY=value")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key.strip()] = value
    return out
