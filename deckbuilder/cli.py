"""The command line: parse, call the library, show the result.

Errors are mapped to messages and exit codes in one place, :func:`main`:
0 ok, 1 a problem with the input or an option value, 2 a usage error, 3 a bug.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .errors import DeckError, UsageError

app = typer.Typer(
    name="deckbuilder",
    help="Turn quiz questions written in YAML into Anki packages (.apkg).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

Sources = Annotated[
    Optional[list[Path]],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Argument(
        help="Card files (.yaml) or folders of them. Default: cards/", show_default=False
    ),
]
MediaDir = Annotated[
    Path, typer.Option("--media", help="Folder of images and sounds the cards refer to.")
]


class _State:
    debug = False


def _sources(sources: list[Path] | None) -> list[Path]:
    return list(sources) if sources else [Path("cards")]


def _timestamp() -> int:
    """Build time for note modification times; SOURCE_DATE_EPOCH wins (reproducible builds)."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env:
        if not env.isdigit():
            raise UsageError(f"SOURCE_DATE_EPOCH must be whole seconds since 1970, not {env!r}")
        return int(env)
    return int(time.time())


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024 or unit == "MB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"deckbuilder {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback of internal errors.")
    ] = False,
) -> None:
    """Turn quiz questions written in YAML into Anki packages (.apkg)."""
    _State.debug = debug


@app.command()
def build(
    sources: Sources = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write packages to.")] = Path(
        "output"
    ),
    media: MediaDir = Path("media"),
    no_preview: Annotated[
        bool, typer.Option("--no-preview", help="Skip the FSRS workload summary.")
    ] = False,
) -> None:
    """Check the card files and write one Anki package per deck: OUT/<deck id>.apkg.

    Example: deckbuilder build cards/ --out output/
    """
    if not no_preview:
        _print_build_preview(_sources(sources), media)
    from .pipeline import build as build_decks

    results = build_decks(_sources(sources), out, timestamp=_timestamp(), media_dir=media)
    for result in results:
        rd = result.rendered
        typer.echo(f"{rd.deck.name}  ({rd.deck.source})")
        for kind, (notes, cards) in rd.deck.counts().items():
            typer.echo(
                f"  {kind.value:<6} {_plural(notes, 'note'):>10}  {_plural(cards, 'card'):>10}"
            )
        typer.echo(f"  media  {_plural(len(rd.media), 'file'):>10}")
        typer.echo(f"  wrote {result.path} ({_human_size(result.size)})")


@app.command()
def check(sources: Sources = None, media: MediaDir = Path("media")) -> None:
    """Validate card files without writing anything.

    Example: deckbuilder check cards/gradient-checkpointing.yaml
    """
    from .pipeline import check as check_decks

    rendered = check_decks(_sources(sources), media_dir=media)
    notes = sum(len(rd.notes) for rd in rendered)
    cards = sum(rd.deck.card_count for rd in rendered)
    typer.echo(
        f"ok: {_plural(len(rendered), 'deck')}, {_plural(notes, 'note')}, {_plural(cards, 'card')}"
    )


def _print_build_preview(sources: list[Path], media: Path) -> None:
    """Before build writes anything: one preview summary line per deck."""
    from .pipeline import check as check_decks
    from .preview import build_summaries

    for line in build_summaries([rd.deck for rd in check_decks(sources, media_dir=media)]):
        typer.echo(line)


@app.command()
def preview(
    sources: Sources = None,
    media: MediaDir = Path("media"),
    retention: Annotated[
        float, typer.Option("--retention", help="Desired retention, between 0 and 1.")
    ] = 0.9,
    new_per_day: Annotated[
        int, typer.Option("--new-per-day", help="New cards a day (0 or more).")
    ] = 20,
    review_limit: Annotated[
        Optional[int],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option("--review-limit", help="Maximum reviews a day. Default: no limit."),
    ] = None,
    days: Annotated[int, typer.Option("--days", help="Days to forecast (1 to 36500).")] = 365,
    params: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--params",
            help="The 21 FSRS-6 parameters, comma-separated as Anki's deck options show "
            "them, or a file holding them. Default: FSRS-6 defaults.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Random seed of the simulation.")] = 42,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    plot: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--plot", help="Also draw the forecast to FILE (.svg or .png).", show_default=False
        ),
    ] = None,
) -> None:
    """Preview FSRS review intervals and the study workload of each deck, before export.

    Shows the interval ladder of a new card (py-fsrs, no fuzz), a simulated forecast
    of reviews, new cards, minutes and memorized cards a day, and a summary.

    Example: deckbuilder preview cards/ --new-per-day 10 --days 180 --plot forecast.svg
    """
    import json

    from .chart import FORMATS, write_chart
    from .pipeline import check as check_decks
    from .preview import check_days, preview_deck, report, settings_from_options, to_json

    settings = settings_from_options(retention, new_per_day, review_limit, params)
    check_days(days)
    if plot is not None and plot.suffix.lower() not in FORMATS:
        raise UsageError(f"--plot: the file name must end in .svg or .png, not {plot.name!r}")
    decks = [rd.deck for rd in check_decks(_sources(sources), media_dir=media)]
    previews = [preview_deck(deck, settings, days, seed) for deck in decks]
    if plot is not None:
        for p in previews:
            target = plot if len(previews) == 1 else plot.with_stem(f"{plot.stem}-{p.deck.key}")
            write_chart(p, target)
    if as_json:
        typer.echo(json.dumps(to_json(previews), ensure_ascii=False, indent=2))
        return
    typer.echo("\n\n".join(report(p) for p in previews))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the app and map every error to a message and an exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = app(args=args, prog_name="deckbuilder", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except DeckError as exc:
        for problem in exc.problems:
            typer.echo(str(problem), err=True)
        n = len(exc.problems)
        typer.echo(f"{_plural(n, 'problem')} found; nothing was written.", err=True)
        return 1
    except UsageError as exc:
        typer.echo(f"Error: {exc}", err=True)
        return 1
    except typer.TyperException as exc:  # usage errors from the argument parser
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            typer.echo(f"Error: {exc}", err=True)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("Interrupted; nothing was replaced.", err=True)
        return 130
    except Exception as exc:
        if _State.debug or "--debug" in args:
            raise
        typer.echo(
            f"Internal error: {type(exc).__name__}: {exc}. This is a bug in deckbuilder; "
            "please report it with the output of the same command run with --debug.",
            err=True,
        )
        return 3


def run() -> None:  # console script
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
