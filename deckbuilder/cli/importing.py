"""``deckbuilder import``: quizzes written elsewhere become card files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..console import plural
from ..errors import UsageError
from .app import app


@app.command("import")
def import_(
    source: Annotated[
        Path, typer.Argument(help="Quiz text, Aiken or GIFT file to import.", show_default=False)
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="Input format: auto, quiz, aiken or gift. auto: .gift/.aiken by suffix, "
            "else by content.",
        ),
    ] = "auto",
    out: Annotated[
        Optional[Path],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option(
            "--out",
            "-o",
            help="Card file to write. Default: cards/<deck name or input name>.yaml",
            show_default=False,
        ),
    ] = None,
    deck: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--deck",
            help="Deck name (default: the title or category in the file).",
            show_default=False,
        ),
    ] = None,
    allow_missing_answers: Annotated[
        bool,
        typer.Option(
            "--allow-missing-answers",
            help="Write questions without a marked answer with 'answer:' left empty.",
        ),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the card file if it exists.")
    ] = False,
) -> None:
    """Turn a quiz (numbered text, Aiken or GIFT) into a card file for build.

    Example: deckbuilder import quiz.txt --out cards/quiz.yaml
    """
    from ..importers import FORMATS, plan_import, write_card_file

    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if deck is not None and not deck.strip():
        raise UsageError("--deck must not be empty")
    plan = plan_import(source, fmt, out=out, deck=deck, allow_missing_answers=allow_missing_answers)
    result = plan.result
    for skipped in result.skipped:
        typer.echo(
            f"{source}:{skipped.line}: warning: skipped "
            f"{'an' if skipped.kind[0] in 'aeiou' else 'a'} {skipped.kind} question "
            f"({skipped.reason})",
            err=True,
        )
    for q in result.missing_answers:
        typer.echo(f"{source}:{q.line}: warning: no answer marked; 'answer:' left empty", err=True)
    for warning in result.warnings:  # e.g. a GIFT mark inside feedback, read as Moodle does
        typer.echo(str(warning), err=True)
    path = write_card_file(plan, source, force=force)
    missing = len(result.missing_answers)
    typer.echo(
        f"wrote {path}: {plural(len(result.questions), 'question')} imported, "
        f"{len(result.skipped)} skipped ({result.format} format, deck '{plan.deck_name}')"
        + (f"; {missing} without an answer" if missing else "")
    )
