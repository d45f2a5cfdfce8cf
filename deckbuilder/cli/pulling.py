"""``deckbuilder pull``: edits made in Anki come back into the card files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from deckbuilder import app as library
from deckbuilder.cli.app import app
from deckbuilder.cli.options import MediaDir, Sources, build_timestamp, selection, session_of
from deckbuilder.cli.output import Session, echo, err
from deckbuilder.errors import plural

if TYPE_CHECKING:
    from deckbuilder.app.pull_notes import PulledDeck
    from deckbuilder.app.pulling import PullResult

# What each outcome is called in the summary, in the order shown.
_SHOWN = (
    ("updated", "updated from Anki"),
    ("added", "added from Anki"),
    ("same", "edited alike on both sides"),
    # An export of one deck leaves out a note whose cards were moved to another deck.
    ("removed", "deleted in Anki or moved out of the exported deck, removed here"),
    (
        "deleted",
        "deleted in Anki or moved out of the exported deck (kept here; --delete removes them)",
    ),
    ("kept", "conflicts settled for the card file"),
    # Anki numbers a note by the time it makes it: one added there before a later build
    # that no pull followed looks like one the card file had before (pull cannot tell).
    (
        "stale",
        "not in the card file, and older than its last build: removed from it before (delete "
        "them in Anki), or added in Anki before that build (add them to the card file yourself)",
    ),
)


@app.command()
def pull(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(
            help="What Anki has: an .apkg or .colpkg exported from Anki (desktop or "
            "AnkiDroid), or a collection.anki2 (read only; not while Anki has it open).",
            show_default=False,
        ),
    ],
    sources: Sources = None,
    prefer: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--prefer",
            help="Settle every conflict (a note edited in Anki and in the card file): "
            "'anki' takes Anki's text, 'cards' keeps the card file's for the next build.",
            show_default=False,
        ),
    ] = None,
    delete: Annotated[
        bool,
        typer.Option("--delete", help="Remove the notes deleted in Anki from the card files."),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print what would change, as a diff; write nothing."),
    ] = False,
    media: MediaDir = Path("media"),
) -> None:
    """Bring edits made in Anki back into the card files: notes edited in Anki since the
    last build, notes added there to the deck, and (with --delete) notes deleted there.
    A note edited on both sides is a conflict: shown, left alone, exit status 1.

    Example: deckbuilder pull ~/Downloads/Cells.apkg
    """
    session = session_of(ctx)
    result = library.pull(
        library.PullRequest(
            source=source,
            timestamp=build_timestamp(),
            selection=selection(sources, None, media=media),
            prefer=prefer,
            delete=delete,
            dry_run=dry_run,
            written=session.written,
        )
    )
    _show(session, result)
    left = result.unsettled
    if left:
        conflicts = sum(note.what == "conflict" for _, note in left)
        refused = len(left) - conflicts
        parts = [plural(conflicts, "conflict")] if conflicts else []
        parts += [f"{plural(refused, 'note')} not pulled"] if refused else []
        err(
            f"{' and '.join(parts)}; nothing was written for them"
            + (" (--prefer anki or --prefer cards settles conflicts)" if conflicts else ""),
            bold=True,
        )
        raise typer.Exit(code=1)


def _show(session: Session, result: PullResult) -> None:
    if not any(deck.in_source for deck in result.decks):
        err(
            "warning: SOURCE holds none of these card files' decks (no note of theirs, no "
            "note in their Anki decks): nothing to pull",
            fg="yellow",
        )
    for deck in result.decks:
        if not deck.in_source:  # an export of another deck, or the other languages'
            session.detail(f"{deck.name}  ({deck.card_file})\n  not in SOURCE: nothing to pull")
            continue
        for line in _deck_lines(deck):
            session.say(line)
        for note in deck.of("conflict", "refused"):
            where = f"{deck.card_file}:{note.line}" if note.line else str(deck.card_file)
            who = f"note '{note.note_id}'" if note.line else f"Anki's note {note.anki_id}"
            what = "conflict" if note.what == "conflict" else "not pulled"
            echo(f"{where}: {who}: {what}: {note.reason}", err=True)
            if note.diff:
                echo(note.diff.rstrip("\n"))
        for deck_note in deck.notes:
            at = f"{deck.card_file}:{deck_note.line}" if deck_note.line else str(deck.card_file)
            for loss in deck_note.losses:
                err(f"{at}: note '{deck_note.note_id}': warning: {loss}", fg="yellow")
    if result.dry_run:
        if result.diff:
            echo(result.diff.rstrip("\n"))
        session.say("dry run: nothing was written")
    elif result.written:
        wrote = ", ".join(str(path) for path in result.written)
        session.say(f"wrote {wrote}; next: git diff, build, import, commit")


def _deck_lines(deck: PulledDeck) -> list[str]:
    lines = [f"{deck.name}  ({deck.card_file})"]
    for what, words in _SHOWN:
        found = deck.of(what)
        if found:
            ids = ", ".join(
                f"nid:{n.anki_id}"
                if what == "stale"
                else f"{n.note_id} (nid:{n.anki_id})"
                if what in ("deleted", "removed")
                else n.note_id
                for n in found
            )
            lines.append(f"  {words}: {ids}")
    counts = [
        f"{len(deck.of('updated'))} updated",
        f"{len(deck.of('added'))} added",
        f"{len(deck.of('conflict'))} conflicts",
        f"{deck.changed_in_cards} edited in the card file only",
        f"{deck.unchanged} unchanged",
    ]
    lines.append(f"  since last build: {', '.join(counts)}")
    return lines
