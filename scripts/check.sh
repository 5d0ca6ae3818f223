#!/usr/bin/env bash
# Every check the project holds itself to, in one place: lint, format, types, import
# boundaries, tests. `make test` runs it inside the project's virtualenv; CI runs `make test`.
#
# mypy (one core, about 30 s on a fresh clone) starts first and runs beside the linters and the
# tests, which take every core (pytest-xdist): the gate's time is the tests' time. Its report is
# printed when the tests end, and any check failing fails the gate.
set -euo pipefail
cd "$(dirname "$0")/.."

# Python may write its compiled bytecode: with PYTHONDONTWRITEBYTECODE set (as on some CI images)
# every interpreter the tests start (xdist workers, the CLI in a subprocess, pytester's runs)
# compiles every module again, which tripled the time to collect the tests.
unset PYTHONDONTWRITEBYTECODE
# The property tests run hypothesis's ci profile here (tests/conftest.py): every example count the
# tests ask for, derandomized, so the gate never fails on an example no run saw before. A bare
# `pytest` runs the dev profile: a fifth of the examples, random ones.
export HYPOTHESIS_PROFILE=ci

step() { printf '\n== %s\n' "$*" >&2; }

types_log="$(mktemp)"
mypy >"$types_log" 2>&1 &
types_pid=$!
# A linter that fails ends the gate at once: mypy is stopped with it.
trap 'kill "$types_pid" 2>/dev/null || true; rm -f "$types_log"' EXIT

step "ruff check"
ruff check .
step "ruff format --check"
ruff format --check .
step "lint-imports"
lint-imports

step "pytest"
# One worker per core: the suite is CPU-bound and its tests share nothing but read-only files.
# Coverage doubles the tests' CPU, so it is its own target: `make coverage`.
tests_status=0
pytest --numprocesses=auto "$@" || tests_status=$?

step "mypy --strict"
types_status=0
wait "$types_pid" || types_status=$?
cat "$types_log"

if [ "$tests_status" -ne 0 ] || [ "$types_status" -ne 0 ]; then
  echo "check failed: pytest exit $tests_status, mypy exit $types_status" >&2
  exit 1
fi
