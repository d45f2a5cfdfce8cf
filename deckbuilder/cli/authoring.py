"""The author's loop: init, check, build, list, schema."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from deckbuilder import app as library
from deckbuilder.cli.app import app
from deckbuilder.cli.options import (
    Fallback,
    Jobs,
    JsonFlag,
    Lang,
    MediaDir,
    OutDir,
    Sources,
    build_timestamp,
    selection,
    session_of,
)
from deckbuilder.cli.output import (
    Session,
    build_facts,
    build_lines,
    checked_json,
    counts_text,
    deck_summary,
    deck_table,
    err,
    forecast_line,
    lint_pointer,
    print_warnings,
)
from deckbuilder.cli.progress import terminal_progress
from deckbuilder.errors import plural, shown


@app.command()
def build(
    ctx: typer.Context,
    sources: Sources = None,
    out: OutDir = None,
    media: MediaDir = Path("media"),
    no_preview: Annotated[
        bool, typer.Option("--no-preview", help="Skip the FSRS workload summary.")
    ] = False,
    as_json: JsonFlag = False,
    lang: Lang = None,
    fallback: Fallback = False,
    jobs: Jobs = None,
    open_in_anki: Annotated[
        bool,
        typer.Option(
            "--open",
            help="Then open the packages in Anki desktop, as a double-click on them would.",
        ),
    ] = False,
    against: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--against",
            help="What Anki has (an .apkg, .colpkg or collection.anki2, as for pull): write "
            "nothing, exit 1, when this build would overwrite notes edited there since the "
            "last build.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Check the card files and write one Anki package per deck: OUT/<deck id>.apkg.

    A deck with 'languages:' gives one package per language, OUT/<deck id>.<lang>.apkg
    (all of them by default; --lang ko for one).

    Example: deckbuilder build cards/ --out output/ --lang all
    """
    session = session_of(ctx, as_json=as_json)
    # A progress bar on stderr for long builds, only on a terminal and not with -q/--json.
    with terminal_progress(sys.stderr, enabled=not (session.quiet or as_json)) as bar:
        result = library.build(
            library.BuildRequest(
                timestamp=build_timestamp(),
                selection=selection(sources, lang, fallback, media),
                out_dir=out,
                preview=not no_preview,
                lint=as_json or not session.quiet,
                against=against,
                written=session.written,
                progress=bar,
            )
        )
    if not as_json:
        for preview in result.previews.values():
            session.say(forecast_line(preview))
    print_warnings(result.warnings)
    if as_json:
        decks = []
        for package in result.packages:
            entry = deck_summary(package.rendered.deck)
            entry.update(build_facts(package))
            if package.rendered.deck.key in result.previews:
                entry["preview"] = result.previews[package.rendered.deck.key].numbers
            decks.append(entry)
        session.emit_json(checked_json(decks, result))
        return
    lint_pointer(session, result.lint_warnings, sources, lang, fallback)  # never fails the build
    for package in result.packages:
        for line in build_lines(package):
            session.say(line)
    if open_in_anki:
        _open(session, [package.path for package in result.packages])


def _open(session: Session, paths: list[Path]) -> None:
    """Hand the packages to Anki; say what Anki will ask, or (a warning: the build
    stands) what to do without it."""
    opened = library.open_packages(paths)
    for path in opened.opened:
        session.say(f"opened {path} in Anki")
    if opened.opened:
        session.say(
            '  In Anki\'s import dialog, under "Updates", keep "Update notes" and "Update '
            'note types" at "If newer"; tick "Merge note types" only when the build warned '
            "that a note changed its note type or a note type got new fields. See "
            "docs/updating.md, section 'build --open: what Anki asks'."
        )
    if opened.problem is not None:
        # The build itself worked: its packages are written, so scripts see success.
        err(f"Warning: {opened.problem}", fg="yellow")


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
    session = session_of(ctx, as_json=as_json)
    result = library.check(
        library.CheckRequest(
            selection(sources, lang, fallback, media), lint=as_json or not session.quiet
        )
    )
    print_warnings(result.warnings)  # the study blocks' too, as build will say them
    if as_json:
        decks = [deck_summary(rd.deck) for rd in result.decks]
        session.emit_json(checked_json(decks, result))
        return
    lint_pointer(session, result.lint_warnings, sources, lang, fallback)
    for rd in result.decks:
        source = shown(rd.deck.source, None, quoted=False)
        session.detail(f"{source}: {rd.deck.name}: {counts_text(rd.deck)}")
    session.say(
        f"ok: {plural(len(result.decks), 'deck')}, {plural(result.notes, 'note')}, "
        f"{plural(result.cards, 'card')}"
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
    session = session_of(ctx, as_json=as_json)
    result = library.list_decks(library.ListRequest(selection(sources, lang, fallback)))
    if as_json:
        session.emit_json({"ok": True, "decks": [deck_summary(d) for d in result.decks]})
        return
    for line in deck_table(result.decks):
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
    session = session_of(ctx)
    result = library.init_project(library.InitRequest(folder, written=session.written))
    media, output = result.folders
    session.say(f"Created {result.card_file}, {media}{os.sep} and {output}{os.sep}.")
    prefix = "" if folder == Path(".") else f"cd {folder} && "
    session.say(f"Next: {prefix}deckbuilder build")


@app.command()
def schema(ctx: typer.Context) -> None:
    """Print the JSON Schema of the card format, for editors and tools.

    Example: deckbuilder schema > card-schema.json
    """
    session_of(ctx).emit_json(library.schema())
