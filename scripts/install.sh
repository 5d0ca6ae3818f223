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
# The distribution was named mobster before mobster-replay (the package index's mobster is another
# project): a virtualenv made before the rename forgets our old record first, so one copy is installed.
# Only ours is removed: a mobster whose files are this project's packages or its editable hook.
if "$py" -c 'import importlib.metadata as m, sys
files = [str(f) for f in (m.distribution("mobster").files or [])]
sys.exit(0 if any(f.startswith("mobster_cli/") or "_editable_impl_mobster.pth" in f for f in files) else 1)' 2>/dev/null; then
  if [ -x "$venv/bin/uv" ]; then
    "$venv/bin/uv" pip uninstall --quiet --python "$py" mobster || true
  else
    "$py" -m pip uninstall --quiet --yes mobster || true
  fi
fi
if [ -x "$venv/bin/uv" ] && "$venv/bin/uv" pip install --quiet --python "$py" "$@"; then
  exit 0
fi
echo "note: installing with pip (uv isn't available here)" >&2
"$py" -m pip --version >/dev/null 2>&1 || "$py" -m ensurepip --upgrade >/dev/null
"$py" -m pip install --quiet --upgrade "pip>=25.1"
"$py" -m pip install --quiet "$@"
