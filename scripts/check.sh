#!/usr/bin/env bash
# Every check the project holds itself to, in one place: lint, format, types, import
# boundaries, tests. `make test` runs it inside the project's virtualenv; CI runs `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

step "ruff check"
ruff check .
step "ruff format --check"
ruff format --check .
step "mypy --strict"
mypy
step "lint-imports"
lint-imports
step "pytest"
# One worker per core (pytest-xdist): the suite is CPU-bound and its tests share nothing but
# read-only files. Coverage doubles the tests' CPU, so it is its own target: `make coverage`.
pytest --numprocesses=auto "$@"
