"""The command line: parse, call the library, show the result.

Errors are mapped to messages and exit codes in one place, :func:`main`:
0 ok, 1 a problem with the input or an option value, 2 a usage error, 3 a bug.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from . import __version__
from .errors import DeckError, OutputError, UsageError
from .model import Deck, NoteKind

if TYPE_CHECKING:
    from .pipeline import BuildResult
    from .render import RenderedDeck


class _Commands(TyperGroup):
    """Lists the commands in the order of an author's day, not of their definition."""

    ORDER = ("init", "import", "check", "build", "preview", "list", "schema")

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        return sorted(
            names, key=lambda n: self.ORDER.index(n) if n in self.ORDER else len(self.ORDER)
        )


app = typer.Typer(
    name="deckbuilder",
    help="Turn quiz questions written in YAML into Anki packages (.apkg).",
    cls=_Commands,
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
Lang = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Option(
        "--lang",
        help="Language of decks that declare 'languages:': a code (ko) or 'all'. "
        "Files without 'languages:' are unaffected.",
        show_default=False,
    ),
]
Fallback = Annotated[
    bool,
    typer.Option(
        "--fallback",
        help="A text missing the language uses the deck's default language (with a "
        "warning) instead of failing.",
    ),
]

Jobs = Annotated[
    Optional[int],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Option(
        "--jobs",
        "-j",
        help="Processes to read a big card file with (default: one per CPU core). "
        "The result is the same for any number.",
        show_default=False,
    ),
]


def _jobs(value: int | None) -> int:
    if value is None:
        from .parallel import usable_cpus

        return usable_cpus()
    if value < 1:
        raise UsageError(f"--jobs must be 1 or more, not {value}")
    return value


def _lang(value: str | None, default: str | None) -> str | None:
    """Check --lang; None means the deck's first language."""
    from .load import ALL_LANGUAGES, LANG_RE

    if value is None:
        return default
    value = value.strip()
    if value != ALL_LANGUAGES and not LANG_RE.match(value):
        raise UsageError(f"--lang must be a language code like ko or en, or 'all', not {value!r}")
    return value


@dataclass
class Session:
    """Per-invocation settings, shared by the root options and the commands (ctx.obj)."""

    debug: bool = False
    quiet: bool = False
    verbose: bool = False
    json: bool = False  # a command asked for machine-readable output, errors included
    # What a command read or wrote, kept alive until the process exits: freeing a big
    # build one object at a time when the command returns took 0.05 s at 50,000 notes,
    # and run() leaves without freeing anything. (main() called as a library function
    # drops it with the session.)
    keep: list[object] = field(default_factory=list)

    def say(self, text: str = "") -> None:
        """Normal output (stdout), silenced by --quiet."""
        if not self.quiet:
            typer.echo(text)

    def detail(self, text: str) -> None:
        """Extra output shown only with --verbose."""
        if self.verbose and not self.quiet:
            typer.echo(text)

    def emit_json(self, data: Any) -> None:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _session(ctx: typer.Context) -> Session:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Session) else Session()


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object (errors too).")]


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


def _err(text: str, **style: Any) -> None:
    """A line on stderr, coloured only on a terminal (and never with NO_COLOR set)."""
    colour = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    typer.echo(typer.style(text, **style) if colour and style else text, err=True)


def _print_warnings(rendered: Sequence[RenderedDeck]) -> None:
    for rd in rendered:
        for warning in rd.warnings:
            _err(str(warning), fg="yellow")


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"deckbuilder {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print more detail.")] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback of internal errors.")
    ] = False,
) -> None:
    """Turn quiz questions written in YAML into Anki packages (.apkg).

    Example: deckbuilder build
    """
    session = _session(ctx)
    session.quiet, session.verbose, session.debug = quiet, verbose, debug
    ctx.obj = session


def _show_changes(session: Session, result: BuildResult) -> None:
    """What changed since the last build, from the lock file: what re-importing will do."""
    c = result.changes
    if result.first_build:
        session.say(f"  first build: {_plural(len(c.added), 'note')} added")
    else:
        session.say(
            f"  since last build: {len(c.added)} added, {len(c.changed)} changed, "
            f"{len(c.removed)} removed, {len(c.unchanged)} unchanged"
        )
    for spec in c.note_types_changed:
        session.say(f"  note type '{spec.name}': templates or CSS changed (updates in place)")
    for rep in c.note_types_replaced:
        session.say(
            f"  note type for {rep.new.kind.value} notes has new fields "
            f"({', '.join(rep.old.fields)} -> {', '.join(rep.new.fields)}): "
            f"now '{rep.new.name}' (id {rep.new.id})"
        )
        session.say(
            '    Import with "Merge note types" ticked, or existing notes will not update '
            "(README, 'Updating a shared deck')."
        )
    if c.removed:
        session.say(f"  removed: {', '.join(e.id for e in c.removed)}")
        session.say(
            "    A package cannot delete notes. To delete them in Anki, search the browser for:"
        )
        session.say(f"    nid:{','.join(str(e.anki_id) for e in c.removed)}")
    state = "updated; commit it with the card file" if result.lock_written else "unchanged"
    session.say(f"  lock  {result.lock} ({state})")


@app.command()
def build(
    ctx: typer.Context,
    sources: Sources = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write packages to.")] = Path(
        "output"
    ),
    media: MediaDir = Path("media"),
    no_preview: Annotated[
        bool, typer.Option("--no-preview", help="Skip the FSRS workload summary.")
    ] = False,
    as_json: JsonFlag = False,
    lang: Lang = None,
    fallback: Fallback = False,
    jobs: Jobs = None,
) -> None:
    """Check the card files and write one Anki package per deck: OUT/<deck id>.apkg.

    A deck with 'languages:' gives one package per language, OUT/<deck id>.<lang>.apkg
    (all of them by default; --lang ko for one).

    Example: deckbuilder build cards/ --out output/ --lang all
    """
    from .pipeline import check as check_decks
    from .pipeline import write_packages
    from .progress import no_collections, terminal_bar

    session = _session(ctx)
    session.json = as_json
    # A progress bar on stderr for long builds, only on a terminal and not with -q/--json.
    show, started = not (session.quiet or as_json), time.monotonic()
    processes = _jobs(jobs)
    # The preview is computed while the packages are written, in a process forked now,
    # while this one is small (with -j 1: here, after them), and printed before what was
    # written, as if it came first.
    job = None
    if not no_preview:
        from .parallel import Later

        job = Later(_preview_summaries, _load_scheduler, processes)
    try:
        # One block without the cyclic collector: turned back on in between, it would
        # walk everything the check made before the packages are written.
        with no_collections():
            with terminal_bar(sys.stderr, enabled=show, since=started):
                rendered = check_decks(
                    _sources(sources),
                    media_dir=media,
                    lang=_lang(lang, "all"),
                    fallback=fallback,
                    jobs=processes,
                    keys=True,
                )
            if job is not None:
                job.give(_preview_inputs([rd.deck for rd in rendered]))
            with terminal_bar(sys.stderr, enabled=show, since=started):
                results = write_packages(rendered, out, timestamp=_timestamp())
            previews = dict(job.result()) if job is not None else {}
        session.keep.append((rendered, results))
    finally:
        if job is not None:
            job.cancel()
    if not as_json:
        for line, _ in previews.values():
            session.say(line)
    _print_warnings(rendered)
    if as_json:
        decks = []
        for result in results:
            entry = _deck_summary(result.rendered.deck)
            entry.update(_build_facts(result))
            if result.rendered.deck.key in previews:
                entry["preview"] = previews[result.rendered.deck.key][1]
            decks.append(entry)
        session.emit_json({"ok": True, "decks": decks})
        return
    for result in results:
        rd = result.rendered
        session.say(f"{rd.deck.name}  ({rd.deck.source})")
        for kind, (notes, cards) in rd.deck.counts().items():
            session.say(
                f"  {kind.value:<6} {_plural(notes, 'note'):>10}  {_plural(cards, 'card'):>10}"
            )
        session.say(f"  media  {_plural(len(rd.media), 'file'):>10}")
        session.say(f"  wrote {result.path} ({_human_size(result.size)})")
        _show_changes(session, result)


# What the preview of each deck needs, small enough to send to another process: the deck
# key, its name, its cards and the settings it is previewed with.
_PreviewInput = tuple[str, str, int, Any]


def _preview_inputs(decks: Sequence[Deck]) -> list[_PreviewInput]:
    from .preview import deck_settings

    return [(deck.key, deck.name, deck.card_count, deck_settings(deck)[0]) for deck in decks]


def _preview_summaries(
    decks: Sequence[_PreviewInput],
) -> list[tuple[str, tuple[str, dict[str, Any]]]]:
    """deck key -> (the preview line build prints, the preview's JSON summary)."""
    from .preview import build_summary, summary_line

    out = []
    # The languages of a deck have the same cards and settings: one forecast for all.
    summaries: dict[tuple[int, Any], Any] = {}
    for key, name, cards, settings in decks:
        summary = summaries.get((cards, settings))
        if summary is None:
            summary = summaries[cards, settings] = build_summary(cards, settings)
        out.append((key, (f"preview {name}: {summary_line(summary)}", summary.as_dict())))
    return out


def _load_scheduler() -> None:
    """What the preview imports (NumPy most of all), loaded while the decks are read."""
    import numpy  # noqa: F401

    from . import preview  # noqa: F401


def _build_facts(result: BuildResult) -> dict[str, Any]:
    c = result.changes
    return {
        "package": str(result.path),
        "size": result.size,
        "media": sorted(result.rendered.media),
        "lock": str(result.lock),
        "lock_written": result.lock_written,
        "first_build": result.first_build,
        "changes": {
            "added": list(c.added),
            "changed": list(c.changed),
            "removed": [{"id": e.id, "search": f"nid:{e.anki_id}"} for e in c.removed],
            "unchanged": len(c.unchanged),
            "note_types_changed": [spec.name for spec in c.note_types_changed],
            "note_types_replaced": [rep.new.name for rep in c.note_types_replaced],
        },
    }


@app.command()
def check(
    ctx: typer.Context,
    sources: Sources = None,
    media: MediaDir = Path("media"),
    as_json: JsonFlag = False,
    lang: Lang = None,
    fallback: Fallback = False,
    jobs: Jobs = None,
) -> None:
    """Validate card files without writing anything (every language of a deck with
    'languages:', unless --lang picks one).

    Example: deckbuilder check cards/gradient-checkpointing.yaml
    """
    from .pipeline import check as check_decks
    from .progress import no_collections

    session = _session(ctx)
    session.json = as_json
    with no_collections():
        rendered = check_decks(
            _sources(sources),
            media_dir=media,
            lang=_lang(lang, "all"),
            fallback=fallback,
            jobs=_jobs(jobs),
        )
    session.keep.append(rendered)
    _print_warnings(rendered)
    if as_json:
        session.emit_json({"ok": True, "decks": [_deck_summary(rd.deck) for rd in rendered]})
        return
    for rd in rendered:
        session.detail(f"{rd.deck.source}: {rd.deck.name}: {_counts_text(rd.deck)}")
    notes = sum(len(rd.notes) for rd in rendered)
    cards = sum(rd.deck.card_count for rd in rendered)
    session.say(
        f"ok: {_plural(len(rendered), 'deck')}, {_plural(notes, 'note')}, {_plural(cards, 'card')}"
    )


@app.command("list")
def list_(
    ctx: typer.Context,
    sources: Sources = None,
    as_json: JsonFlag = False,
    lang: Lang = None,
    fallback: Fallback = False,
) -> None:
    """List decks: file, notes and cards per note type, tags (one row per language of a
    deck with 'languages:', unless --lang picks one).

    Example: deckbuilder list cards/
    """
    from .load import load_decks

    session = _session(ctx)
    session.json = as_json
    decks = load_decks(_sources(sources), lang=_lang(lang, "all"), fallback=fallback)
    if as_json:
        session.emit_json({"ok": True, "decks": [_deck_summary(d) for d in decks]})
        return
    header = ("DECK", "ID", "FILE", "MCQ", "CLOZE", "BASIC", "CARDS", "TAGS")
    rows: list[tuple[str, ...]] = [header]
    for deck in decks:
        counts = deck.counts()
        per_kind = [str(counts.get(kind, (0, 0))[0]) for kind in NoteKind]
        rows.append(
            (
                deck.name,
                deck.key,
                str(deck.source),
                *per_kind,
                str(deck.card_count),
                " ".join(_all_tags(deck)),
            )
        )
    widths = [max(_width(row[i]) for row in rows) for i in range(len(header))]
    numeric = {3, 4, 5, 6}
    for row in rows:
        cells = []
        for i, (cell, w) in enumerate(zip(row, widths, strict=True)):
            pad = " " * (w - _width(cell))
            cells.append(pad + cell if i in numeric else cell + pad)
        session.say("  ".join(cells).rstrip())


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide characters (Hangul, CJK) take two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@app.command()
def init(
    ctx: typer.Context,
    folder: Annotated[
        Path, typer.Argument(help="Project folder to set up (created if missing).")
    ] = Path("."),
) -> None:
    """Start a deck: cards/example.yaml (one note of each type), media/ and output/.

    Refuses to overwrite existing files.

    Example: deckbuilder init my-deck && cd my-deck && deckbuilder build
    """
    from importlib import resources

    from .export import atomic_write

    session = _session(ctx)
    target = folder / "cards" / "example.yaml"
    if target.exists():
        raise UsageError(f"{target} already exists; nothing was changed")
    for path in (folder / "cards", folder / "media", folder / "output"):
        if path.exists() and not path.is_dir():
            raise UsageError(f"{path} exists and is not a folder; nothing was changed")
    text = resources.files("deckbuilder").joinpath("starter/example.yaml").read_bytes()
    for sub in ("cards", "media", "output"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    atomic_write(target, lambda tmp: tmp.write_bytes(text))
    session.say(f"Created {target}, {folder / 'media'}{os.sep} and {folder / 'output'}{os.sep}.")
    prefix = "" if folder == Path(".") else f"cd {folder} && "
    session.say(f"Next: {prefix}deckbuilder build")


@app.command()
def schema(ctx: typer.Context) -> None:
    """Print the JSON Schema of the card format, for editors and tools.

    Example: deckbuilder schema > card-schema.json
    """
    from .schema import card_schema

    _session(ctx).emit_json(card_schema())


def _all_tags(deck: Deck) -> list[str]:
    tags = dict.fromkeys(deck.tags)
    for note in deck.notes:
        tags.update(dict.fromkeys(note.tags))
    return list(tags)


def _counts_text(deck: Deck) -> str:
    return ", ".join(
        f"{_plural(notes, kind.value + ' note')} ({_plural(cards, 'card')})"
        for kind, (notes, cards) in deck.counts().items()
    )


def _deck_summary(deck: Deck) -> dict[str, Any]:
    return {
        "id": deck.key,
        "name": deck.name,
        "file": str(deck.source),
        "lang": deck.lang or None,
        "notes": len(deck.notes),
        "cards": deck.card_count,
        "by_type": {kind.value: {"notes": n, "cards": c} for kind, (n, c) in deck.counts().items()},
        "tags": _all_tags(deck),
    }


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
    from .importers import FORMATS, plan_import, write_card_file

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
    path = write_card_file(plan, source, force=force)
    missing = len(result.missing_answers)
    typer.echo(
        f"wrote {path}: {_plural(len(result.questions), 'question')} imported, "
        f"{len(result.skipped)} skipped ({result.format} format, deck '{plan.deck_name}')"
        + (f"; {missing} without an answer" if missing else "")
    )


@app.command()
def preview(
    ctx: typer.Context,
    sources: Sources = None,
    media: MediaDir = Path("media"),
    retention: Annotated[
        Optional[float],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option(
            "--retention",
            help="Desired retention, between 0 and 1. Default: the deck's study block, else 0.9.",
            show_default=False,
        ),
    ] = None,
    new_per_day: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--new-per-day",
            help="New cards a day (0 or more). Default: the deck's study block, else 20.",
            show_default=False,
        ),
    ] = None,
    review_limit: Annotated[
        Optional[int],  # noqa: UP045 - typer needs Optional on Python 3.10
        typer.Option(
            "--review-limit",
            help="Maximum reviews a day. Default: the deck's study block, else no limit.",
        ),
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
) -> None:
    """Preview FSRS review intervals and the study workload of each deck, before export.

    Shows the interval ladder of a new card (py-fsrs, no fuzz), a simulated forecast
    of reviews, new cards, minutes and memorized cards a day, and a summary.

    With --html, also writes one self-contained HTML page per deck showing every card,
    front and back, as Anki renders it (day/night and phone-width switches), the
    forecast chart and the interval ladder.

    Example: deckbuilder preview cards/ --new-per-day 10 --days 180 --html
    """

    from .chart import FORMATS, write_chart
    from .pipeline import check as check_decks
    from .preview import (
        check_days,
        deck_settings,
        preview_deck,
        report,
        settings_from_options,
        to_json,
    )

    session = _session(ctx)
    session.json = as_json
    overrides = settings_from_options(retention, new_per_day, review_limit, params)
    check_days(days)
    if plot is not None and plot.suffix.lower() not in FORMATS:
        raise UsageError(f"--plot: the file name must end in .svg or .png, not {plot.name!r}")
    if html_out is not None and html_out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"--html-out: the file name must end in .html, not {html_out.name!r}")
    # One language is enough to forecast (default: the deck's first); --lang all shows each.
    from .progress import no_collections

    with no_collections():
        rendered = check_decks(
            _sources(sources),
            media_dir=media,
            lang=_lang(lang, None),
            fallback=fallback,
            jobs=_jobs(jobs),
        )
    decks = [rd.deck for rd in rendered]
    previews = []
    for deck in decks:
        settings, origin = deck_settings(deck, overrides)
        previews.append(preview_deck(deck, settings, days, seed, origin))
    if plot is not None:
        for p in previews:
            target = plot if len(previews) == 1 else plot.with_stem(f"{plot.stem}-{p.deck.key}")
            write_chart(p, target)
    pages = _write_pages(rendered, previews, html_out) if html or html_out is not None else []
    if as_json:
        data = to_json(previews)
        if pages:
            data["pages" if len(pages) > 1 else "page"] = (
                [str(x) for x in pages] if len(pages) > 1 else str(pages[0])
            )
        session.emit_json(data)
        return
    session.say("\n\n".join(report(p) for p in previews))
    for path in pages:
        session.say(f"wrote {path}")


def _write_pages(
    rendered: Sequence[RenderedDeck], previews: Sequence[Any], html_out: Path | None
) -> list[Path]:
    """Write each deck's preview page: HTML_OUT (FILE-<deck id>.html for several decks)
    or output/<deck id>.html."""
    from .export import atomic_write
    from .page import preview_page

    written = []
    for rd, p in zip(rendered, previews, strict=True):
        if html_out is None:
            target = Path("output") / f"{rd.deck.key}.html"
        elif len(rendered) == 1:
            target = html_out
        else:
            target = html_out.with_stem(f"{html_out.stem}-{rd.deck.key}")
        data = preview_page(rd, p).encode("utf-8")
        atomic_write(target, lambda tmp, data=data: tmp.write_bytes(data))
        written.append(target)
    return written


def main(argv: Sequence[str] | None = None, session: Session | None = None) -> int:
    """Entry point: run the app and map every error to a message and an exit code.
    ``session``: the invocation's settings and what it keeps (a new one if not given)."""
    args = list(sys.argv[1:] if argv is None else argv)
    session = Session() if session is None else session
    try:
        result = app(args=args, prog_name="deckbuilder", standalone_mode=False, obj=session)
        code = result if isinstance(result, int) else 0
        if code == 130:  # Typer turns Ctrl-C into a silent exit status 130
            typer.echo("Interrupted; nothing was replaced.", err=True)
        return code
    except DeckError as exc:
        if session.json:
            problems = [
                {"file": p.file, "line": p.line, "note": p.note, "message": p.message}
                for p in exc.problems
            ]
            session.emit_json({"ok": False, "problems": problems})
            return 1
        for problem in exc.problems:
            _err(str(problem), fg="red")
        n = len(exc.problems)
        _err(f"{_plural(n, 'problem')} found; nothing was written.", bold=True)
        return 1
    except (UsageError, OutputError) as exc:
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
        if session.debug or "--debug" in args:
            raise
        typer.echo(
            f"Internal error: {type(exc).__name__}: {exc}. This is a bug in deckbuilder; "
            "please report it with the output of the same command run with --debug.",
            err=True,
        )
        return 3


def run() -> None:  # console script
    session = Session()
    code = main(session=session)
    # Leave without the interpreter's teardown: it frees every object of a big build one
    # by one (0.1 s at 50,000 notes) and has nothing else to do, as files are closed and
    # worker processes reaped by now; what the command made is still held by ``session``
    # (Session.keep), so it is not freed either. Output still in Python's buffers is
    # written first.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError):  # the reader has gone (deckbuilder schema | head -1)
            stream.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
