"""``deckbuilder lint``: item-writing flaws, one line each."""

from __future__ import annotations

from typing import Annotated

import typer

from deckbuilder import app as library
from deckbuilder.cli.app import app
from deckbuilder.cli.options import Fallback, JsonFlag, Lang, Sources, selection, session_of
from deckbuilder.cli.output import echo, problem_line
from deckbuilder.errors import plural


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
    session = session_of(ctx, as_json=as_json)
    result = library.lint(library.LintRequest(selection(sources, lang, fallback)))
    if as_json:
        # ok is false when --strict fails on warnings.
        warnings = [w.as_dict() for w in result.diagnostics]
        session.emit_json(
            {"ok": not (strict and warnings), "warnings": warnings, "count": len(warnings)}
        )
    else:
        for warning in result.diagnostics:
            echo(problem_line(warning))
        found = f"{plural(len(result.diagnostics), 'warning')} in {plural(result.notes, 'note')}"
        session.say(
            found if result.diagnostics else f"no warnings in {plural(len(result.decks), 'deck')}"
        )
    return 1 if strict and result.diagnostics else 0
