# The two commands of README.md: `make demo` and `make test`. Both create a project-local
# virtualenv (.venv) when it is missing and install what they need into it.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: coverage demo test venv

venv: $(BIN)/python

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Mobster needs Python 3.11 or newer" or 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

demo: venv
	$(BIN)/python -m pip install --quiet -e '.[all]'
	$(BIN)/mobster demo

test: venv
	$(BIN)/python -m pip install --quiet -e '.[all]' --group dev
	PATH="$(abspath $(BIN)):$$PATH" bash scripts/check.sh

# The tests with line and branch coverage (a report in the terminal), on one core.
coverage: venv
	$(BIN)/python -m pip install --quiet -e '.[all]' --group dev
	$(BIN)/pytest --cov --cov-report=term
