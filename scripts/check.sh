#!/usr/bin/env bash
# Every check the project holds itself to, in one place: lint, format, types, import
# boundaries, tests. `make test` runs it inside the project's virtualenv; CI runs `make test`.
#
# mypy (one core, about 40 s on a fresh clone) runs beside the tests, which take every core
# (pytest-xdist): the gate's time is the tests' time. Its report is printed when the tests end,
# and either failing fails the gate.
set -euo pipefail
cd "$(dirname "$0")/.."

# Python may write its compiled bytecode: with PYTHONDONTWRITEBYTECODE set (as on some CI images)
# every interpreter the tests start (xdist workers, the CLI in a subprocess, pytester's runs)
# compiles every module again, which tripled the time to collect the tests.
unset PYTHONDONTWRITEBYTECODE

step() { printf '\n== %s\n' "$*" >&2; }

step "ruff check"
ruff check .
step "ruff format --check"
ruff format --check .
step "lint-imports"
lint-imports

types_log="$(mktemp)"
trap 'rm -f "$types_log"' EXIT
mypy >"$types_log" 2>&1 &
types_pid=$!

step "pytest"
# A worker per core and one more: the tests share nothing but read-only files, and some wait on
# real servers and subprocesses, so one more worker keeps both cores busy (2 cores: 160 s against
# 166 s with two). Coverage doubles the tests' CPU, so it is its own target: `make coverage`.
workers=$(( $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) + 1 ))
tests_status=0
pytest --numprocesses="$workers" "$@" || tests_status=$?

step "mypy --strict"
types_status=0
wait "$types_pid" || types_status=$?
cat "$types_log"

if [ "$tests_status" -ne 0 ] || [ "$types_status" -ne 0 ]; then
  echo "check failed: pytest exit $tests_status, mypy exit $types_status" >&2
  exit 1
fi
