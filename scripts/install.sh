#!/usr/bin/env bash
# Install into the project's virtualenv what the arguments name (pip's syntax), e.g.
#   scripts/install.sh -e '.[all]' --group dev
# with uv when it can be had (seconds), else with pip (about a minute: it is the fallback when
# uv can't be installed or fails, e.g. with no network but a local wheel folder).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${VENV:-.venv}"
py="$venv/bin/python"
if [ ! -x "$venv/bin/uv" ]; then
  "$py" -m pip install --quiet "uv>=0.8" >/dev/null 2>&1 || true
fi
if [ -x "$venv/bin/uv" ] && "$venv/bin/uv" pip install --quiet --compile-bytecode --python "$py" "$@"; then
  exit 0
fi
echo "note: installing with pip (uv isn't available here)" >&2
"$py" -m pip install --quiet --upgrade "pip>=25.1"
"$py" -m pip install --quiet "$@"
