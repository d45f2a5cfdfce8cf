"""``deckbuilder preview``: the FSRS workload of each deck, and its preview page."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from deckbuilder.cli.app import app
from deckbuilder.cli.options import (
    Fallback,
    Jobs,
    Lang,
    MediaDir,
    Sources,
    checked_lang,
    session_of,
    source_paths,
)
from deckbuilder.errors import Problem, UsageError

if TYPE_CHECKING:
    from deckbuilder.render.deck import RenderedDeck


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
            help="Also write a preview page (every card, the forecast chart) to "
            "output/<deck id>.html.",
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
            "optimal one (least study time per card remembered, searched as fsrs-rs does).",
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
        int,
        typer.Option("--lead", help="Days before the exam by which every card is introduced."),
    ] = 7,
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
    front and back, as Anki renders it (day/night and phone-width switches), the
    forecast chart and the interval ladder.

    Example: deckbuilder preview cards/ --new-per-day 10 --days 180 --html
    """

    from deckbuilder.app.pipeline import check as check_decks
    from deckbuilder.cli.output import err
    from deckbuilder.preview.chart import FORMATS, write_chart
    from deckbuilder.preview.questions import history_parameters, questions_from_options
    from deckbuilder.preview.report import preview_deck, report, to_json
    from deckbuilder.preview.settings import retention_warning, settings_for, settings_from_options

    session = session_of(ctx)
    session.json = as_json
    overrides = settings_from_options(retention, new_per_day, review_limit, params, days, seed)
    questions = questions_from_options(sweep, exam, start, lead, new_per_day)
    fitted = None  # --history's path and the parameters fitted from it
    if history is not None and params is not None:
        err(f"Note: --history {history} is not used: --params gives the parameters")
    elif history is not None:
        fit, problem = history_parameters(history)
        fitted = (history, fit)
        if problem is not None:
            err(f"Warning: {problem}", fg="yellow")
    warning = retention_warning(retention)
    if warning is not None:
        err(f"Warning: {warning}", fg="yellow")
    if plot is not None and plot.suffix.lower() not in FORMATS:
        raise UsageError(f"--plot: the file name must end in .svg or .png, not {plot.name!r}")
    if html_out is not None and html_out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"--html-out: the file name must end in .html, not {html_out.name!r}")
    # One language is enough to forecast (default: the deck's first); --lang all shows each.
    rendered = check_decks(
        source_paths(sources), media_dir=media, lang=checked_lang(lang, None), fallback=fallback
    )
    previews = []
    warnings: dict[Problem, None] = {}  # the languages of a deck share its study block
    for deck in [rd.deck for rd in rendered]:
        # --params, then --history, then the study block's params or history.
        chosen = settings_for(deck, overrides, fitted)
        warnings.update(dict.fromkeys(chosen.warnings))
        previews.append(
            preview_deck(
                deck, chosen.settings, days, seed, chosen.origin, questions, chosen.parameters_from
            )
        )
    for told in warnings:
        err(str(told), fg="yellow")
    charts: list[Path] = []
    if plot is not None:
        for p in previews:
            target = plot if len(previews) == 1 else plot.with_stem(f"{plot.stem}-{p.deck.key}")
            write_chart(p, _file_target("--plot", target), replaced=session.written)
            charts.append(target)
    pages = (
        _write_pages(rendered, previews, html_out, session.written)
        if html or html_out is not None
        else []
    )
    if as_json:
        data = to_json(previews)
        if pages:
            data["pages" if len(pages) > 1 else "page"] = (
                [str(x) for x in pages] if len(pages) > 1 else str(pages[0])
            )
        if charts:
            data["charts"] = [str(x) for x in charts]
        session.emit_json(_printable(data))
        return
    session.say(_printable("\n\n".join(report(p) for p in previews)))
    for path in [*charts, *pages]:
        session.say(_printable(f"wrote {path}"))


def _write_pages(
    rendered: Sequence[RenderedDeck],
    previews: Sequence[Any],
    html_out: Path | None,
    replaced: list[Path],
) -> list[Path]:
    """Write each deck's preview page: HTML_OUT (FILE-<deck id>.html for several decks)
    or output/<deck id>.html. ``replaced`` gets each page as it is written."""
    from deckbuilder.cli.output import err
    from deckbuilder.errors import OutputError
    from deckbuilder.files.atomic import atomic_write_bytes
    from deckbuilder.preview.page import preview_page

    written = []
    for rd, p in zip(rendered, previews, strict=True):
        if html_out is None:
            target = Path("output") / f"{rd.deck.key}.html"
        elif len(rendered) == 1:
            target = html_out
        else:
            target = html_out.with_stem(f"{html_out.stem}-{rd.deck.key}")
        option = "--html" if html_out is None else "--html-out"
        found: list[Problem] = []  # what the page cannot show as Anki does (math)
        data = preview_page(rd, p, found).encode("utf-8")
        try:
            atomic_write_bytes(_file_target(option, target), data, replaced=replaced)
        except OutputError as exc:
            raise UsageError(f"{option}: {exc}") from None
        for warning in found:
            err(str(warning), fg="yellow")
        written.append(target)
    return written


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


def _file_target(option: str, target: Path) -> Path:
    """``target``, unless a folder has that name: a file must not take a folder's place."""
    try:
        is_dir = target.is_dir()
    except OSError as exc:  # a name too long for the file system, for one
        raise UsageError(f"{option}: cannot write {target}: {exc.strerror or exc}") from None
    if is_dir:
        raise UsageError(f"{option}: {target} is a folder; give the name of a file to write")
    return target
