"""The author's loop: init, check, build, list, schema."""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from pathlib import Path
from typing import Annotated

import typer

from deckbuilder.cli.app import app
from deckbuilder.cli.linting import lint_count, lint_pointer
from deckbuilder.cli.options import (
    Fallback,
    Jobs,
    JsonFlag,
    Lang,
    MediaDir,
    Sources,
    build_timestamp,
    checked_lang,
    session_of,
    source_paths,
)
from deckbuilder.cli.output import (
    build_facts,
    build_lines,
    counts_text,
    deck_summary,
    deck_table,
    err,
    plural,
    print_warnings,
)
from deckbuilder.errors import OutputError, UsageError


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
    from deckbuilder.app.pipeline import check as check_decks
    from deckbuilder.app.pipeline import write_packages
    from deckbuilder.progress import terminal_bar

    session = session_of(ctx)
    session.json = as_json
    # A progress bar on stderr for long builds, only on a terminal and not with -q/--json.
    with terminal_bar(sys.stderr, enabled=not (session.quiet or as_json)):
        rendered = check_decks(
            source_paths(sources),
            media_dir=media,
            lang=checked_lang(lang, "all"),
            fallback=fallback,
        )
        # The forecast comes before writing, so that writing is the build's last long step.
        from deckbuilder.preview.report import build_previews

        previews, study_warnings = (
            ({}, []) if no_preview else build_previews([rd.deck for rd in rendered])
        )
        results = write_packages(
            rendered, out, timestamp=build_timestamp(), replaced=session.written
        )
    for warning in study_warnings:  # a history the preview cannot use: not the package's
        err(str(warning), fg="yellow")
    if not as_json:
        for line, _ in previews.values():
            session.say(line)
    print_warnings([r.rendered for r in results])
    if not as_json:
        lint_pointer(session, [rd.deck for rd in rendered], sources)  # never fails the build
    if as_json:
        decks = []
        for result in results:
            entry = deck_summary(result.rendered.deck)
            entry.update(build_facts(result))
            if result.rendered.deck.key in previews:
                entry["preview"] = previews[result.rendered.deck.key][1]
            decks.append(entry)
        lint_warnings = lint_count([rd.deck for rd in rendered])
        session.emit_json({"ok": True, "decks": decks, "lint_warnings": lint_warnings})
        return
    for result in results:
        for line in build_lines(result):
            session.say(line)


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
    from deckbuilder.app.pipeline import check as check_decks

    session = session_of(ctx)
    session.json = as_json
    rendered = check_decks(
        source_paths(sources), media_dir=media, lang=checked_lang(lang, "all"), fallback=fallback
    )
    print_warnings(rendered)
    from deckbuilder.preview.settings import study_warnings

    for warning in study_warnings([rd.deck for rd in rendered]):  # as build will say them
        err(str(warning), fg="yellow")
    if as_json:
        decks = [deck_summary(rd.deck) for rd in rendered]
        lint_warnings = lint_count([rd.deck for rd in rendered])  # never fails the check
        session.emit_json({"ok": True, "decks": decks, "lint_warnings": lint_warnings})
        return
    lint_pointer(session, [rd.deck for rd in rendered], sources)
    for rd in rendered:
        session.detail(f"{rd.deck.source}: {rd.deck.name}: {counts_text(rd.deck)}")
    notes = sum(len(rd.notes) for rd in rendered)
    cards = sum(rd.deck.card_count for rd in rendered)
    session.say(
        f"ok: {plural(len(rendered), 'deck')}, {plural(notes, 'note')}, {plural(cards, 'card')}"
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
    from deckbuilder.cardfile.reader import load_decks

    session = session_of(ctx)
    session.json = as_json
    decks = load_decks(source_paths(sources), lang=checked_lang(lang, "all"), fallback=fallback)
    if as_json:
        session.emit_json({"ok": True, "decks": [deck_summary(d) for d in decks]})
        return
    for line in deck_table(decks):
        session.say(line)


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

    from deckbuilder.files.atomic import atomic_write_bytes

    session = session_of(ctx)
    target = folder / "cards" / "example.yaml"
    text = resources.files("deckbuilder").joinpath("starter/example.yaml").read_bytes()
    created: list[Path] = []
    making = folder
    try:
        _refuse_to_overwrite(folder, target)
        for sub in ("cards", "media", "output"):
            making = folder / sub
            _make_folder(making, created)
        making = target
        atomic_write_bytes(target, text, replaced=session.written)
    except BaseException as exc:
        if target in session.written:
            raise  # an interrupt once the project is complete: it stays, folders and all
        for path in reversed(created):
            with suppress(OSError):
                path.rmdir()
        if not isinstance(exc, (OSError, OutputError)):
            raise
        cause = exc if isinstance(exc, OSError) else exc.__cause__
        if isinstance(exc, OSError) and exc.filename:
            making = Path(exc.filename)
        reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(exc)
        raise OutputError(f"cannot create {making}: {reason}; nothing was changed") from exc
    session.say(f"Created {target}, {folder / 'media'}{os.sep} and {folder / 'output'}{os.sep}.")
    prefix = "" if folder == Path(".") else f"cd {folder} && "
    session.say(f"Next: {prefix}deckbuilder build")


def _refuse_to_overwrite(folder: Path, target: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} exists and is not a folder; nothing was changed")
    if target.exists():
        raise UsageError(f"{target} already exists; nothing was changed")
    for path in (folder / "cards", folder / "media", folder / "output"):
        if path.exists() and not path.is_dir():
            raise UsageError(f"{path} exists and is not a folder; nothing was changed")


def _make_folder(path: Path, created: list[Path]) -> None:
    """Make ``path`` and any missing parent, adding each folder made to ``created``."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir()
        created.append(folder)


@app.command()
def schema(ctx: typer.Context) -> None:
    """Print the JSON Schema of the card format, for editors and tools.

    Example: deckbuilder schema > card-schema.json
    """
    from deckbuilder.cardfile.schema import card_schema

    session_of(ctx).emit_json(card_schema())
