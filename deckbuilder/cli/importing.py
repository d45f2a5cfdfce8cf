"""``deckbuilder import``: quizzes written elsewhere become card files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer

from deckbuilder import app as library
from deckbuilder.cli.app import app
from deckbuilder.cli.options import JsonFlag, session_of
from deckbuilder.cli.output import echo, problem_json, problem_line, problem_text
from deckbuilder.errors import Severity, plural, shown


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
    session = session_of(ctx, as_json=as_json)
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
    warnings = [p for p in result.diagnostics if p.severity is not Severity.NOTE]
    for warning in warnings:
        echo(problem_line(warning), err=True)
    # What is told besides (notes) comes after the files written, with the report.
    report = [
        *import_report(result),
        *(problem_text(p) for p in result.diagnostics if p.severity is Severity.NOTE),
    ]
    if as_json:
        session.emit_json(
            {
                "ok": True,
                "card_files": [str(path) for path in result.card_files],
                "warnings": [problem_json(p) for p in warnings],
                "report": report,
                "note_types": [
                    {
                        "name": active.note_type,
                        "kept": active.kept,
                        "parts": [
                            {"kind": f.part.value, "where": f.where, "excerpt": f.excerpt}
                            for f in active.found
                        ],
                    }
                    for active in result.plan.active
                ],
            }
        )
        return
    for line in report:
        echo(line)


def import_report(result: library.ImportResult) -> list[str]:
    """What became of the notes of each note type, then the files written."""
    plan = result.plan
    # Note types are named as the source has them: a line break or a direction override
    # there must not forge or turn a line of the report.
    lines = [
        shown(
            f"{t.name}: {plural(t.notes, 'note')} -> {'' if t.imported else 'not imported: '}"
            f"{t.outcome}",
            None,
            quoted=False,
        )
        for t in plan.read.report
    ]
    decks, quiz = plan.decks, result.questions
    fmt = f"{plan.read.format} format" if quiz else plan.read.format
    for i, deck in enumerate(decks):
        count = deck.skipped + (len(plan.read.skipped) if i == 0 else 0)
        summary = _skipped_summary(result) if len(decks) == 1 else f"{count} skipped"
        told = quiz or count or (len(decks) == 1 and plan.skipped)
        line = (
            f"wrote {shown(deck.out, None, quoted=False)}: "
            f"{plural(len(deck.notes), 'question' if quiz else 'note')} imported"
            f"{f', {summary}' if told else ''} ({fmt}, deck {shown(deck.name, None)})"
        )
        lines.append(line + (f"; {deck.unanswered} without an answer" if deck.unanswered else ""))
    written = set(result.card_files) | set(plan.media)  # lock files, note types
    lines += [f"wrote {shown(p, None, quoted=False)}" for p in plan.files if p not in written]
    if plan.media:
        lines.append(f"wrote {plural(len(plan.media), 'media file')} into {result.media_dir}/")
    if not all(t.imported for t in plan.read.report):
        lines.append("notes of the note types marked 'not imported' stay in Anki as they are")
    return lines


def _skipped_summary(result: library.ImportResult) -> str:
    """'0 skipped', or '3 skipped (2 essay, 1 description)'."""
    skipped = result.plan.skipped
    kinds = Counter(s.kind or "with a problem" for s in skipped)
    if set(kinds) <= {"with a problem"}:
        return f"{len(skipped)} skipped"
    return f"{len(skipped)} skipped ({', '.join(f'{n} {k}' for k, n in kinds.items())})"
