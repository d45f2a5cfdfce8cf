from deckbuilder.cli import run

run()
