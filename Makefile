# `make test` is the one command that sets up a fresh machine and runs the whole suite.
.PHONY: test deps build lint

deps:
	./scripts/install-test-deps.sh

test: deps
	python3 -m pytest

build:
	python3 -m pip install --quiet -e . && deckbuilder build

lint:
	ruff check deckbuilder tests && ruff format --check deckbuilder tests && mypy
