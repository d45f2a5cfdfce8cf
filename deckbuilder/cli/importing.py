"""``deckbuilder import``: quizzes written elsewhere become card files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from deckbuilder import app as library
from deckbuilder.cli.app import app
from deckbuilder.cli.options import JsonFlag, session_of
from deckbuilder.cli.output import echo, problem_line


@app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(
            help="Quiz text, Aiken or GIFT file; an Anki package (.apkg, .colpkg) or text "
            "file (.txt); or a spreadsheet (.csv, .tsv).",
            show_default=False,
        ),
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="Input format: auto, quiz, aiken, gift or anki-text. auto: packages and "
            "spreadsheets by suffix, .gift/.aiken by suffix, else by content.",
        ),
    ] = "auto",
    out: Annotated[
        Optional[Path],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option(
            "--out",
            "-o",
            help="Card file to write (one deck). Default: cards/<deck name or input name>.yaml, "
            "one per deck.",
            show_default=False,
        ),
    ] = None,
    deck: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--deck",
            help="The deck to import from a package with several; else the deck's name "
            "(default: the title or category in the file).",
            show_default=False,
        ),
    ] = None,
    note_type: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--note-type",
            help="For Anki text or a spreadsheet that names no note type: the note type "
            "its notes come in onto, every column a field. A note type of the project "
            "(note-types/KEY.yaml), or a new key: declared in the card file, its fields "
            "named from the columns.",
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
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Fail (exit 1, nothing written) when any note is left out, or when notes "
            "have no GUIDs from the source.",
        ),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the card file if it exists.")
    ] = False,
    keep_scripts: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--keep-scripts",
            metavar="NOTE_TYPE",
            help="Keep this Anki note type's templates and CSS as they are, with the "
            "scripts, event handlers and remote resources they hold (Anki runs or fetches "
            "them on every review); without it they are removed, with a warning. "
            "Repeat for several.",
            show_default=False,
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Turn questions you have into card files for build: a quiz (numbered text, Aiken or
    GIFT), a spreadsheet (.csv, .tsv), or Anki decks (.apkg, .colpkg, text files). Notes
    that cannot be carried are listed with their line and left out; the rest come in.

    Example: deckbuilder import quiz.csv --out cards/quiz.yaml
    """
    session = session_of(ctx)
    session.json = as_json
    result = library.import_file(
        library.ImportRequest(
            source=source,
            format=fmt,
            out=out,
            deck=deck,
            note_type=note_type,
            allow_missing_answers=allow_missing_answers,
            strict=strict,
            force=force,
            keep_scripts=tuple(keep_scripts or ()),
            written=session.written,  # for the message if it is interrupted
        )
    )
    for warning in result.warnings:
        echo(problem_line(warning), err=True)
    if as_json:
        session.emit_json(result.as_json())
        return
    for line in result.report:
        echo(line)
