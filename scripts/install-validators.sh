#!/usr/bin/env bash
# The outside checkers the tests hold Mobster's outputs to, each from its registry, pinned:
#
#   scripts/install-validators.sh [DIR]      # DIR defaults to .validators (git-ignored)
#
#   DIR/junit-10.xsd                         Jenkins' JUnit schema, the file pytest's own tests
#                                            validate against: testing/example_scripts/junit-10.xsd
#                                            of pytest's sdist on PyPI (pytest==9.0.2, the sdist's
#                                            sha256 checked), fetched with `pip download`
#   DIR/axe/node_modules/axe-core/axe.min.js axe-core from npm (the report's accessibility audit)
#   DIR/junit-10.xsd.unavailable             why the schema could not be had: the JUnit schema
#                                            tests skip with it (tests/junit_schema.py)
#   DIR/axe-core.unavailable                 why axe-core could not be had: the axe tests skip
#                                            with it (tests/axe.py)
#
# Nothing of either is kept in the repository: they are third-party files, fetched as a package.
# Idempotent: when each file is there with its pin it writes nothing and ends at once. When pip or
# npm is missing or its registry can't be reached it says so once, writes the reason and exits 0
# (exit 4 instead with --strict); exit 1 for a download that came but isn't what the pin says.
set -euo pipefail

PYTEST_SDIST=pytest-9.0.2.tar.gz
PYTEST_SDIST_SHA256=75186651a92bd89611d1d9fc20f0b4345fd827c41ccd5c299a868a05d70edf11
SCHEMA_MEMBER=pytest-9.0.2/testing/example_scripts/junit-10.xsd
AXE_VERSION=4.14.1
TIMEOUT=${MOBSTER_REGISTRY_TIMEOUT:-15}

strict=0
if [ "${1:-}" = "--strict" ]; then
  strict=1
  shift
fi
cd "$(dirname "$0")/.."
mkdir -p "${1:-.validators}"
DIR=$(cd "${1:-.validators}" && pwd)
venv="${VENV:-.venv}"
py="$venv/bin/python"
[ -x "$py" ] || py="${PYTHON:-python3}"

say() { echo "install-validators: $*" >&2; }
status=0

# One of them could not be had: the reason is kept for its tests to skip with.
unavailable() { # unavailable NAME REASON
  say "$2; the tests that need it will skip"
  printf '%s\n' "$2" >"$DIR/$1.unavailable"
  [ "$strict" -eq 0 ] || status=4
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# -- Jenkins' junit-10.xsd, from pytest's sdist ---------------------------------------------------

schema_pin="$PYTEST_SDIST sha256:$PYTEST_SDIST_SHA256 $SCHEMA_MEMBER"
schema() {
  if [ -f "$DIR/junit-10.xsd" ] && [ "$(cat "$DIR/junit-10.xsd.source" 2>/dev/null)" = "$schema_pin" ]; then
    rm -f "$DIR/junit-10.xsd.unavailable"
    return 0
  fi
  # pip is the registry's own client (it honours the machine's index and proxy settings); the
  # virtualenv has none (make venv), so the one of the Python that made it, else uv's.
  local pip=()
  if "$py" -m pip --version >/dev/null 2>&1; then
    pip=("$py" -m pip)
  elif "${PYTHON:-python3}" -m pip --version >/dev/null 2>&1; then
    pip=("${PYTHON:-python3}" -m pip)
  elif [ -x "$venv/bin/uvx" ]; then
    pip=("$venv/bin/uvx" pip)
  else
    unavailable junit-10.xsd "no pip to fetch $PYTEST_SDIST from PyPI with: Jenkins' junit-10.xsd was not installed"
    return 0
  fi
  local log="$work/pip.log" rc=0 version=${PYTEST_SDIST#pytest-}
  # --no-binary: the sdist (the wheel has no tests); pip builds its metadata, ~20 s, once.
  timeout 300 "${pip[@]}" download --quiet --no-deps --no-binary :all: --retries 1 --timeout "$TIMEOUT" \
    --dest "$work" "pytest==${version%.tar.gz}" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] || [ ! -f "$work/$PYTEST_SDIST" ]; then
    why=$(grep -m 1 -e '^ERROR' "$log" | sed 's/^ERROR: *//')
    [ "$rc" -eq 124 ] && why="no answer within 300 s"
    what="pip couldn't download $PYTEST_SDIST"
    grep -q -i -e 'NewConnectionError' -e 'Connection refused' -e 'timed out' -e 'resolve' "$log" &&
      what="the package index can't be reached (pip download $PYTEST_SDIST)"
    unavailable junit-10.xsd "$what: ${why:-exit $rc}; Jenkins' junit-10.xsd was not installed"
    return 0
  fi
  local got
  got=$("$py" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$work/$PYTEST_SDIST")
  if [ "$got" != "$PYTEST_SDIST_SHA256" ]; then
    say "$PYTEST_SDIST has sha256 $got, not the pinned $PYTEST_SDIST_SHA256: not installed"
    status=1
    return 0
  fi
  # One member, read as bytes (never extracted by its own path), written where we say.
  "$py" - "$work/$PYTEST_SDIST" "$SCHEMA_MEMBER" "$DIR/junit-10.xsd.part" <<'EOF'
import sys, tarfile

sdist, member, out = sys.argv[1:]
with tarfile.open(sdist, "r:gz") as tar:
    data = tar.extractfile(member).read()
if b'<xs:element name="testcase">' not in data:
    sys.exit(f"{member} in {sdist} is not Jenkins' JUnit schema")
with open(out, "wb") as f:
    f.write(data)
EOF
  mv "$DIR/junit-10.xsd.part" "$DIR/junit-10.xsd"
  printf '%s\n' "$schema_pin" >"$DIR/junit-10.xsd.source"
  rm -f "$DIR/junit-10.xsd.unavailable"
  say "junit-10.xsd from $PYTEST_SDIST (PyPI) in $DIR"
}

# -- axe-core, from npm ------------------------------------------------------------------------------

axe_version() { # the version axe-core's package.json says (no node started)
  sed -n 's/^  "version": "\([^"]*\)",*$/\1/p' "$DIR/axe/node_modules/axe-core/package.json" 2>/dev/null | head -n 1
}

axe() {
  if [ -f "$DIR/axe/node_modules/axe-core/axe.min.js" ] && [ "$(axe_version)" = "$AXE_VERSION" ]; then
    rm -f "$DIR/axe-core.unavailable"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    unavailable axe-core "npm is not installed (apt-get install npm): axe-core $AXE_VERSION was not installed"
    return 0
  fi
  local log="$work/npm.log" rc=0
  timeout "$TIMEOUT" npm ping --fetch-retries=0 --fetch-timeout=$((TIMEOUT * 1000)) >/dev/null 2>"$log" || rc=$?
  if [ "$rc" -ne 0 ]; then
    why=$(grep -v -e 'complete log' -e 'npm notice' "$log" | head -n 2 | tr '\n' ' ' | sed 's/ *$//')
    [ "$rc" -eq 124 ] && why="no answer within $TIMEOUT s"
    unavailable axe-core "the npm registry can't be reached (npm ping: ${why:-exit $rc}): axe-core $AXE_VERSION was not installed"
    return 0
  fi
  npm install --prefix "$DIR/axe" --no-audit --no-fund --no-update-notifier --loglevel=error --fetch-retries=2 \
    --ignore-scripts --save-exact "axe-core@$AXE_VERSION" >&2
  if [ "$(axe_version)" != "$AXE_VERSION" ] || [ ! -f "$DIR/axe/node_modules/axe-core/axe.min.js" ]; then
    say "npm finished but axe-core $AXE_VERSION is not in $DIR/axe/node_modules"
    status=1
    return 0
  fi
  rm -f "$DIR/axe-core.unavailable"
  say "axe-core $AXE_VERSION (npm) in $DIR/axe"
}

schema
axe
exit "$status"
