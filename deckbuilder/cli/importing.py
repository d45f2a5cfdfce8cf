"""``deckbuilder import``: quizzes written elsewhere become card files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from deckbuilder.cli.app import app
from deckbuilder.cli.options import session_of
from deckbuilder.cli.output import plural
from deckbuilder.errors import UsageError

if TYPE_CHECKING:
    from deckbuilder.importers.notes_plan import NotesImport


@app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(
            help="Quiz text, Aiken or GIFT file; an Anki package (.apkg, .colpkg) or text "
            "export (.txt); or a spreadsheet (.csv, .tsv) with a header row.",
            show_default=False,
        ),
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
    """Turn questions you have into a card file for build: a quiz (numbered text, Aiken or
    GIFT), a spreadsheet (.csv, .tsv), or an Anki deck (.apkg, .colpkg, text export).

    Example: deckbuilder import quiz.csv --out cards/quiz.yaml
    """
    from deckbuilder.importers import FORMATS, plan_import, write_card_file
    from deckbuilder.importers.base import skipped_summary
    from deckbuilder.importers.notes_plan import read_notes_source

    written = session_of(ctx).written  # for the message if it is interrupted
    notes = read_notes_source(source) if fmt == "auto" else None
    if notes is not None:
        _import_notes(notes, source, out, deck, force, written)
        return
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
    path = write_card_file(plan, source, force=force, replaced=written)
    missing = len(result.missing_answers)
    typer.echo(
        f"wrote {path}: {plural(len(result.questions), 'question')} imported, "
        f"{skipped_summary(result.skipped)} ({result.format} format, deck '{plan.deck_name}')"
        + (f"; {missing} without an answer" if missing else "")
    )


def _import_notes(
    result: NotesImport,
    source: Path,
    out: Path | None,
    deck: str | None,
    force: bool,
    written: list[Path],
) -> None:
    """An Anki package, Anki's text export or a spreadsheet: plan, report, write."""
    from deckbuilder.importers.notes_plan import notes_report, plan_notes, write_notes

    plan = plan_notes(result, source, out, deck, Path("media"))
    for warning in result.warnings:
        typer.echo(str(warning), err=True)
    write_notes(plan, source, force=force, replaced=written)
    for line in notes_report(plan):
        typer.echo(line)
