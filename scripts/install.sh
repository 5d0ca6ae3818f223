#!/usr/bin/env bash
# Install into the project's virtualenv what the arguments name (pip's syntax), e.g.
#   scripts/install.sh -e '.[all]' --group dev
# with uv when it can be had (seconds), else with pip (about a minute: it is the fallback when
# uv can't be installed or fails, e.g. with no network but a local wheel folder).
#
# The virtualenv is made without pip (`make venv`: ensurepip alone took 8 s); uv is installed
# into it by the pip of the Python that made it ($PYTHON), or by its own pip when it has one.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${VENV:-.venv}"
py="$venv/bin/python"
base="${PYTHON:-python3}"
if [ ! -x "$venv/bin/uv" ]; then
  if "$py" -m pip --version >/dev/null 2>&1; then
    "$py" -m pip install --quiet "uv>=0.8" >/dev/null 2>&1 || true
  else
    "$base" -m pip --python "$py" install --quiet "uv>=0.8" >/dev/null 2>&1 || true
  fi
fi
if [ -x "$venv/bin/uv" ] && "$venv/bin/uv" pip install --quiet --python "$py" "$@"; then
  exit 0
fi
echo "note: installing with pip (uv isn't available here)" >&2
"$py" -m pip --version >/dev/null 2>&1 || "$py" -m ensurepip --upgrade >/dev/null
"$py" -m pip install --quiet --upgrade "pip>=25.1"
"$py" -m pip install --quiet "$@"
