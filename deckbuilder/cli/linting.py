"""``deckbuilder lint``: item-writing flaws, one line each; and the count that check and
build print."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deckbuilder.cli.app import app
from deckbuilder.cli.options import (
    Fallback,
    JsonFlag,
    Lang,
    Sources,
    checked_lang,
    session_of,
    source_paths,
)
from deckbuilder.cli.output import Session, err, plural

if TYPE_CHECKING:
    from deckbuilder.model import Deck

__all__ = ["lint", "lint_count", "lint_pointer"]


@app.command()
def lint(
    ctx: typer.Context,
    sources: Sources = None,
    as_json: JsonFlag = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit with status 1 when there are warnings (CI).")
    ] = False,
    lang: Lang = None,
    fallback: Fallback = False,
) -> int:
    """Find item-writing flaws: "all of the above" that moves when shuffled, the longest
    choice being the answer, a negative question without emphasis, repeated questions and
    more (docs/lint.md). Warnings never stop a build; --strict makes them fail.

    A note opts out of a rule with 'lint: [code, ...]'.

    Example: deckbuilder lint cards/ --strict
    """
    from deckbuilder.cardfile.reader import load_decks
    from deckbuilder.lint import lint_decks, warnings_json

    session = session_of(ctx)
    session.json = as_json
    decks = load_decks(source_paths(sources), lang=checked_lang(lang, "all"), fallback=fallback)
    warnings = lint_decks(decks)
    if as_json:
        session.emit_json(warnings_json(warnings, strict=strict))
    else:
        for warning in warnings:
            typer.echo(str(warning))
        notes = len({(w.file, w.note) for w in warnings})
        found = f"{plural(len(warnings), 'warning')} in {plural(notes, 'note')}"
        session.say(found if warnings else f"no warnings in {plural(len(decks), 'deck')}")
    return 1 if strict and warnings else 0


def lint_count(decks: Sequence[Deck]) -> int:
    """How many warnings ``deckbuilder lint`` gives for ``decks``."""
    from deckbuilder.lint import lint_decks

    return len(lint_decks(decks))


def lint_pointer(session: Session, decks: Sequence[Deck], sources: list[Path] | None) -> None:
    """What check and build say about lint (on stderr, beside the other warnings): the
    count and the command that shows them; nothing when there are none. With --quiet
    nothing would be said, so lint does not run."""
    if session.quiet:
        return
    count = lint_count(decks)
    if not count:
        return
    command = shlex.join(["deckbuilder", "lint", *(str(s) for s in sources or ())])
    err(f"{plural(count, 'lint warning')}; see them with: {command}", fg="yellow")
