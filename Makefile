# `make test` is the one command that sets up a fresh machine and runs the whole suite. It
# works in a virtual environment (.venv), so it runs where the system Python is "externally
# managed" (Debian 12, Ubuntu 24.04) too.
.PHONY: test deps build lint

VENV := .venv
PYTHON := $(VENV)/bin/python

deps:
	./scripts/install-test-deps.sh

test: deps
	$(PYTHON) -m pytest -n auto --dist loadscope

build:
	./scripts/make-venv.sh && $(PYTHON) -m pip install --quiet . && $(VENV)/bin/deckbuilder build

lint:
	$(PYTHON) -m ruff check deckbuilder tests && $(PYTHON) -m ruff format --check deckbuilder tests && $(PYTHON) -m mypy && $(VENV)/bin/lint-imports
