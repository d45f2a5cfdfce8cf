"""``deckbuilder watch``: rebuild each deck when one of its files is saved."""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer

from deckbuilder import app as library
from deckbuilder.cli.app import app
from deckbuilder.cli.options import (
    Fallback,
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
    echo,
    err,
    lock_state,
    note_type_lines,
    print_warnings,
    problem_line,
    removed_lines,
)
from deckbuilder.errors import plural, shown


@app.command()
def watch(
    ctx: typer.Context,
    sources: Sources = None,
    out: OutDir = None,
    media: MediaDir = Path("media"),
    lang: Lang = None,
    fallback: Fallback = False,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve",
            help="Also serve each deck's preview page on this computer (127.0.0.1, the "
            "address is printed); an open page redraws the cards you save, and shows "
            "problems.",
        ),
    ] = False,
) -> None:
    """Build every deck, then rebuild a deck each time its card file, lock file, media or
    a shared note type it uses (note-types/) is saved, until Ctrl-C. A deck with problems keeps its last good package.

    Example: deckbuilder watch --serve cards/
    """
    session = session_of(ctx)
    chosen = selection(sources, lang, fallback, media)
    roots = [*chosen.sources, *([media] if media.is_dir() else [])]
    session.say(f"watching {', '.join(str(p) for p in roots)} (Ctrl-C to stop)")
    request = library.WatchRequest(
        clock=build_timestamp, selection=chosen, out_dir=out, lint=not session.quiet, serve=serve
    )
    try:
        # Closed on the way out, so that Ctrl-C also stops the page server at once.
        with closing(library.watch(request)) as events:
            for event in events:
                if isinstance(event, library.Serving):
                    which = "pages" if event.url == event.site else "page"
                    echo(f"preview {which} at {event.url} (this computer only)")
                else:
                    _tell(session, event)
    except KeyboardInterrupt:
        if session.signals:
            raise  # SIGTERM or SIGHUP: the exit status says which
        # Ctrl-C is how a watch ends; every package is whole (see deckbuilder.files.atomic).
        err("stopped watching")


def _tell(session: Session, rebuild: library.Rebuild) -> None:
    now = time.strftime("%H:%M:%S")
    if rebuild.result is None:
        for problem in rebuild.problems:
            err(problem_line(problem), fg="red")
        err(
            f"{now} {shown(rebuild.source, None, quoted=False)}: {plural(len(rebuild.problems), 'problem')}; nothing "
            "was written (its last package stays as it was)",
            bold=True,
        )
        return
    print_warnings(rebuild.result.warnings)
    for package in rebuild.result.packages:
        c = package.changes
        session.say(
            f"{now} wrote {package.path}: {len(c.added)} added, {len(c.changed)} changed, "
            f"{len(c.removed)} removed"
        )
        for line in note_type_lines(package) + removed_lines(package):
            session.say(line)
        if package.lock_moved_from is not None:
            session.say(f"  lock  {package.lock} ({lock_state(package)})")
