"""``deckbuilder preview``: the FSRS workload of each deck, and its preview page."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from deckbuilder import app as library
from deckbuilder.cli.app import OPTIONS, app
from deckbuilder.cli.options import Fallback, Jobs, Lang, MediaDir, Sources, selection, session_of
from deckbuilder.cli.output import err, print_warnings
from deckbuilder.cli.progress import terminal_progress
from deckbuilder.errors import UsageError


@app.command()
def preview(
    ctx: typer.Context,
    sources: Sources = None,
    media: MediaDir = Path("media"),
    retention: Annotated[
        Optional[float],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option(
            "--retention",
            help="Desired retention, 0.70 to 0.99 as in Anki (0.01 to 0.999 with a "
            "warning). Default: the deck's study block, else 0.9.",
            show_default=False,
        ),
    ] = None,
    new_per_day: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--new-per-day",
            help="New cards a day (0 to 9999). Default: the deck's study block, else 20.",
            show_default=False,
        ),
    ] = None,
    review_limit: Annotated[
        Optional[int],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option(
            "--review-limit",
            help="Maximum reviews a day (0 to 9999). Default: the deck's study block, "
            "else 200 (Anki's default deck options).",
        ),
    ] = None,
    days: Annotated[int, typer.Option("--days", help="Days to forecast (1 to 3650).")] = 365,
    params: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--params",
            help="The 21 FSRS-6 parameters, comma-separated as Anki's deck options show "
            "them, or a file holding them. Default: FSRS-6 defaults.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="Random seed of the simulation (0 or more).")
    ] = 42,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    plot: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--plot", help="Also draw the forecast to FILE (.svg or .png).", show_default=False
        ),
    ] = None,
    lang: Lang = None,
    fallback: Fallback = False,
    jobs: Jobs = None,
    html: Annotated[
        bool,
        typer.Option(
            "--html",
            help="Also write a preview page (every card, found by search, tag, note type, "
            "lint warning or note id; the forecast charts) to output/<deck id>.html.",
        ),
    ] = False,
    html_out: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--html-out",
            help="Write the preview page to FILE instead (implies --html; with several "
            "decks, FILE-<deck id>.html).",
            show_default=False,
        ),
    ] = None,
    sweep: Annotated[
        bool,
        typer.Option(
            "--sweep",
            help="Also forecast every desired retention from 0.70 to 0.99 and name the "
            "optimal one (the least study time per card remembered, 0.70 to 0.95).",
        ),
    ] = False,
    exam: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--exam",
            help="Plan for an exam on YYYY-MM-DD: the fewest new cards a day, and what is "
            "remembered on exam day (with --new-per-day: that many).",
            show_default=False,
        ),
    ] = None,
    start: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--start", help="First study day, YYYY-MM-DD (default: today).", show_default=False
        ),
    ] = None,
    lead: Annotated[
        Optional[int],  # noqa: UP045 - None: not given (an explicit 7 is given too)
        typer.Option(
            "--lead",
            help="Days before the exam by which every card is introduced (default: 7).",
            show_default=False,
        ),
    ] = None,
    history: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--history",
            help="Fit FSRS parameters from a review history: an Anki collection.anki2 "
            "(read from a copy), a .colpkg backup or an .apkg exported with scheduling. "
            "--params wins over it.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Preview FSRS review intervals and the study workload of each deck, before export.

    Shows the interval ladder of a new card (py-fsrs, no fuzz), a simulated forecast
    of reviews, new cards, minutes and memorized cards a day, and a summary.

    With --html, also writes one self-contained HTML page per deck showing every card,
    front and back, as Anki renders it (a page of cards at a time, with a search; day and
    night, phone width), the forecast charts and the interval ladder. docs/preview.md
    says how to read each number.

    Example: deckbuilder preview cards/ --new-per-day 10 --days 180 --html
    """
    session = session_of(ctx, as_json=as_json)
    if exam is None:
        given = [
            name for name, value in (("--start", start), ("--lead", lead is not None)) if value
        ]
        if given:
            raise UsageError(f"{' and '.join(given)}: only with --exam YYYY-MM-DD")
    if history is not None and params is not None:
        err(f"Note: --history {history} is not used: --params gives the parameters")
        history = None
    with terminal_progress(sys.stderr, enabled=not (session.quiet or as_json)) as bar:
        result = library.preview(
            library.PreviewRequest(
                today=date.today(),
                selection=selection(sources, lang, fallback, media, every_language=False),
                study=library.StudyOverrides(retention, new_per_day, review_limit),
                days=days,
                params=params,
                seed=seed,
                plot=plot,
                html=html,
                html_out=html_out,
                sweep=sweep,
                exam=_date("--exam", exam),
                start=_date("--start", start),
                lead=library.PreviewRequest.lead if lead is None else lead,  # its default
                history=history,
                written=session.written,
                progress=bar,
            )
        )
    for told in result.request_warnings:  # of its file, or of the option its code names
        where = told.place if told.file else OPTIONS[str(told.code)]
        err(f"Warning: {where} {told.message}", fg="yellow")
    print_warnings(result.warnings)
    if as_json:
        data = result.as_json()
        if result.pages:
            data["pages" if len(result.pages) > 1 else "page"] = (
                [str(x) for x in result.pages] if len(result.pages) > 1 else str(result.pages[0])
            )
        if result.charts:
            data["charts"] = [str(x) for x in result.charts]
        session.emit_json(_printable(data))
        return
    session.say(_printable(result.report()))
    for path in [*result.charts, *result.pages]:
        session.say(_printable(f"wrote {path}"))


def _date(option: str, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(f"{option}: {value!r} is not a date like 2025-06-30") from None


def _printable(value: Any) -> Any:
    """``value`` (text, or JSON data) as any terminal can take it. A file name that is not
    UTF-8 reaches Python as lone surrogates, which a strict UTF-8 stdout refuses: they are
    shown as '?'."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {key: _printable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_printable(item) for item in value]
    return value
