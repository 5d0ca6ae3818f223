# The two commands of README.md: `make demo` and `make test`. Both create a project-local
# virtualenv (.venv) when it is missing and install what they need into it; `make test` also
# brings a pinned real Appium into .appium (scripts/install-appium.sh: npm, once; the tests that
# drive it skip, saying why, where npm or its registry can't be reached), and the outside checkers
# the tests hold the outputs to into .validators (scripts/install-validators.sh: Jenkins' JUnit
# schema from pytest's sdist on PyPI, axe-core from npm; their tests skip, saying why, without them).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: coverage demo test venv

venv: $(BIN)/python

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Mobster needs Python 3.11 or newer" or 0)'
	$(PYTHON) -m venv --without-pip $(VENV)

demo: venv
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/install.sh -e '.[all]'
	$(BIN)/mobster demo

test: venv
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/install.sh -e '.[all]' --group dev
	bash scripts/install-appium.sh
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/install-validators.sh
	PATH="$(abspath $(BIN)):$$PATH" bash scripts/check.sh

# The tests with line and branch coverage (a report in the terminal), on one core.
coverage: venv
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/install.sh -e '.[all]' --group dev
	bash scripts/install-appium.sh
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/install-validators.sh
	$(BIN)/pytest --cov --cov-report=term
