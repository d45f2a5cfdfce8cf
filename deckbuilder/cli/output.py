"""What the command line prints: the session's output streams, and the words, tables and
JSON summaries of decks and builds. The commands in :mod:`deckbuilder.cli` decide what to
show; this module decides how it reads."""

from __future__ import annotations

import json
import os
import shlex
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from deckbuilder.app import Deck, NoteKind

if TYPE_CHECKING:
    from deckbuilder.app import PackageResult
    from deckbuilder.errors import Problem

__all__ = [
    "Session",
    "build_facts",
    "build_lines",
    "counts_text",
    "deck_summary",
    "deck_table",
    "err",
    "human_size",
    "lint_pointer",
    "plural",
    "print_warnings",
]


@dataclass
class Session:
    """Per-invocation settings, shared by the root options and the commands (ctx.obj)."""

    debug: bool = False
    quiet: bool = False
    verbose: bool = False
    json: bool = False  # a command asked for machine-readable output, errors included
    # Files the command has replaced so far, for the message if it is interrupted.
    written: list[Path] = field(default_factory=list)

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


def err(text: str, **style: Any) -> None:
    """A line on stderr, coloured only on a terminal (and never with NO_COLOR set)."""
    colour = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    typer.echo(typer.style(text, **style) if colour and style else text, err=True)


def print_warnings(warnings: Sequence[Problem | str]) -> None:
    for warning in warnings:
        err(str(warning), fg="yellow")


def lint_pointer(session: Session, count: int | None, sources: Sequence[Path] | None) -> None:
    """What check and build say about lint (on stderr, beside the other warnings): the
    count and the command that shows them; nothing when there are none or with --quiet."""
    if session.quiet or not count:
        return
    command = shlex.join(["deckbuilder", "lint", *(str(s) for s in sources or ())])
    err(f"{plural(count, 'lint warning')}; see them with: {command}", fg="yellow")


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} MB"


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide characters (Hangul, CJK) take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _all_tags(deck: Deck) -> list[str]:
    tags = dict.fromkeys(deck.tags)
    for note in deck.notes:
        tags.update(dict.fromkeys(note.tags))
    return list(tags)


def counts_text(deck: Deck) -> str:
    """``2 mcq notes (2 cards), 1 cloze note (3 cards)``"""
    return ", ".join(
        f"{plural(notes, kind.value + ' note')} ({plural(cards, 'card')})"
        for kind, (notes, cards) in deck.counts().items()
    )


def deck_summary(deck: Deck) -> dict[str, Any]:
    """A deck in the JSON output of check, list and build."""
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


def deck_table(decks: Sequence[Deck]) -> list[str]:
    """``deckbuilder list``: one row per deck, columns aligned for wide characters too."""
    kinds = (NoteKind.MCQ, NoteKind.CLOZE, NoteKind.BASIC, NoteKind.TYPED)  # card-file kinds
    header = ("DECK", "ID", "FILE", *(kind.value.upper() for kind in kinds), "CARDS", "TAGS")
    rows: list[tuple[str, ...]] = [header]
    for deck in decks:
        counts = deck.counts()
        per_kind = [str(counts.get(kind, (0, 0))[0]) for kind in kinds]
        tags = " ".join(_all_tags(deck))
        rows.append((deck.name, deck.key, str(deck.source), *per_kind, str(deck.card_count), tags))
    widths = [max(_width(row[i]) for row in rows) for i in range(len(header))]
    numeric = set(range(3, 4 + len(kinds)))
    lines = []
    for row in rows:
        cells = []
        for i, (cell, w) in enumerate(zip(row, widths, strict=True)):
            pad = " " * (w - _width(cell))
            cells.append(pad + cell if i in numeric else cell + pad)
        lines.append("  ".join(cells).rstrip())
    return lines


def build_lines(result: PackageResult) -> list[str]:
    """What ``build`` says about one package: counts, the file, and what re-importing it
    will do (from the lock file)."""
    rd = result.rendered
    lines = [f"{rd.deck.name}  ({rd.deck.source})"]
    for kind, (notes, cards) in rd.deck.counts().items():
        lines.append(f"  {kind.value:<6} {plural(notes, 'note'):>10}  {plural(cards, 'card'):>10}")
    lines.append(f"  media  {plural(len(rd.media), 'file'):>10}")
    lines.append(f"  wrote {result.path} ({human_size(result.size)})")
    return lines + _change_lines(result)


def _change_lines(result: PackageResult) -> list[str]:
    c = result.changes
    if result.first_build:
        lines = [f"  first build: {plural(len(c.added), 'note')} added"]
    else:
        lines = [
            f"  since last build: {len(c.added)} added, {len(c.changed)} changed, "
            f"{len(c.removed)} removed, {len(c.unchanged)} unchanged"
        ]
    for spec in c.note_types_changed:
        lines.append(f"  note type '{spec.name}': templates or CSS changed (updates in place)")
    for rep in c.note_types_replaced:
        lines.append(
            f"  note type for {rep.new.kind.value} notes has new fields "
            f"({', '.join(rep.old.fields)} -> {', '.join(rep.new.fields)}): "
            f"now '{rep.new.name}' (id {rep.new.id})"
        )
        lines.append(
            '    Import with "Merge note types" ticked, or existing notes will not update '
            "(README, 'Updating a shared deck')."
        )
    if c.removed:
        lines.append(f"  removed: {', '.join(e.id for e in c.removed)}")
        lines.append(
            "    A package cannot delete notes. To delete them in Anki, search the browser for:"
        )
        lines.append(f"    nid:{','.join(str(e.anki_id) for e in c.removed)}")
    state = "updated; commit it with the card file" if result.lock_written else "unchanged"
    lines.append(f"  lock  {result.lock} ({state})")
    return lines


def build_facts(result: PackageResult) -> dict[str, Any]:
    """One package in the JSON output of build, beside its :func:`deck_summary`."""
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
