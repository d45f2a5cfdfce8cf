"""What the command line prints: the session's output streams, and the words, tables and
JSON summaries of decks and builds. The commands in :mod:`deckbuilder.cli` decide what to
show; this module decides how it reads."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from deckbuilder.app import BUILT_IN, Deck
from deckbuilder.errors import Problem, Severity, plural, shown

if TYPE_CHECKING:
    from deckbuilder.app import BuildResult, CheckResult, DeckForecast, PackageResult


@dataclass
class Session:
    """Per-invocation settings, shared by the root options and the commands (ctx.obj)."""

    debug: bool = False
    quiet: bool = False
    verbose: bool = False
    json: bool = False  # a command asked for machine-readable output, errors included
    # Files the command has replaced so far, for the message if it is interrupted.
    written: list[Path] = field(default_factory=list)
    # Signals received (SIGTERM, SIGHUP) that interrupt the command like Ctrl-C.
    signals: list[int] = field(default_factory=list)

    def say(self, text: str = "") -> None:
        """Normal output (stdout), silenced by --quiet."""
        if not self.quiet:
            echo(text)

    def detail(self, text: str) -> None:
        """Extra output shown only with --verbose."""
        if self.verbose and not self.quiet:
            echo(text)

    def emit_json(self, data: Any) -> None:
        text = json.dumps(data, ensure_ascii=False, indent=2)
        # JSON escapes the C0 controls itself; the C1 and direction controls too, here,
        # for the terminal (a JSON reader gets the same text).
        echo(_C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text), escape=False)


class StreamError(Exception):
    """Standard output cannot take what the command prints: closed, full, or in an
    encoding that cannot write the text."""


# Characters that would drive the terminal rather than show (escape sequences can retitle
# a window or clear the screen): C0 controls but tab and line feed, DEL and C1 controls;
# and those that would make a line read other than it is: the direction controls (U+202E
# shows the rest of a line backwards) and the line and paragraph separators.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_C1 = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
# A line longer than this is cut (a value pasted whole into a message, say).
MAX_LINE = 2000


def printable(text: str) -> str:
    """``text`` as a terminal should get it: control characters written as ``\\x1b`` (a
    direction control as ``\\u202e``), lone surrogates (file names that are not UTF-8) as
    '?', and each line at most MAX_LINE characters."""
    if _CONTROLS.search(text):
        text = _CONTROLS.sub(_escape, text)
    text = text.encode("utf-8", "replace").decode("utf-8")
    if len(text) > MAX_LINE:
        text = "\n".join(
            line
            if len(line) <= MAX_LINE
            else f"{line[:MAX_LINE]}... ({len(line) - MAX_LINE:,} more characters)"
            for line in text.split("\n")
        )
    return text


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def echo(
    text: str, *, err: bool = False, style: dict[str, Any] | None = None, escape: bool = True
) -> None:
    """One line of output (stdout, or stderr with ``err``), made printable, then styled.
    Standard output that cannot take it is a StreamError; standard error that cannot is
    left alone: there is nowhere else to say anything."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        if err:
            return
        raise StreamError("standard output is closed")
    line = printable(text) if escape else text.encode("utf-8", "replace").decode("utf-8")
    if style:
        line = typer.style(line, **style)
    try:
        stream.write(line + "\n")
        if err:
            stream.flush()
    except UnicodeEncodeError:
        if err:
            return
        encoding = getattr(stream, "encoding", None) or "unknown"
        raise StreamError(
            f"standard output's encoding ({encoding}) cannot write this text; use a UTF-8 "
            "terminal or set PYTHONIOENCODING=utf-8"
        ) from None
    except OSError as exc:
        if err:
            return
        raise StreamError(f"cannot write to standard output: {exc.strerror or exc}") from None


def err(text: str, **style: Any) -> None:
    """A line on stderr, coloured only on a terminal (and never with NO_COLOR set)."""
    colour = sys.stderr is not None and sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    echo(text, err=True, style=style if colour else None)


# Warnings of one code shown before the rest are counted: 20,000 unused media files would
# bury everything else under 20,000 lines.
MAX_OF_A_KIND = 100


def problem_text(problem: Problem) -> str:
    """What ``problem`` says, its severity worded first: ``warning: ...``, ``warning
    [code]: ...`` (a lint rule's), ``note: ...``; an error says only what is wrong."""
    if problem.severity is Severity.ERROR:
        return problem.message
    code = f" [{problem.code}]" if problem.code else ""
    return f"{problem.severity.value}{code}: {problem.message}"


def problem_json(problem: Problem) -> dict[str, Any]:
    """``problem`` in JSON output."""
    return {
        "file": problem.file,
        "line": problem.line,
        "note": problem.note,
        "message": problem.message,
        "severity": problem.severity.value,
    }


def checked_json(decks: list[dict[str, Any]], result: CheckResult | BuildResult) -> dict[str, Any]:
    """The JSON output of check and build: the decks; the warnings they tell on standard
    error, each with its code, which the line shows (``warning [unused-media]: ...``); and
    how many warnings lint gives."""
    return {
        "ok": True,
        "decks": decks,
        "warnings": [{**problem_json(w), "code": w.code} for w in result.warnings],
        "lint_warnings": result.lint_warnings,
    }


def problem_line(problem: Problem) -> str:
    """``problem`` as a line of output: ``FILE:LINE: note 'ID': warning: what is wrong``."""
    return f"{problem.place} {problem_text(problem)}"


def print_warnings(warnings: Sequence[Problem]) -> None:
    """Each warning on a line of its own, but only the first MAX_OF_A_KIND of a code (the
    warnings that can come by the thousand have one: unused media files, say); then, for
    each code past it, how many more there were."""
    count: Counter[str] = Counter()
    for warning in warnings:
        if warning.code:
            count[warning.code] += 1
        if count[warning.code or ""] <= MAX_OF_A_KIND:
            err(problem_line(warning), fg="yellow")
    for code, seen in count.items():
        if seen > MAX_OF_A_KIND:
            err(f"and {seen - MAX_OF_A_KIND:,} more like the above [{code}]", fg="yellow")


def lint_pointer(
    session: Session,
    count: int | None,
    sources: Sequence[Path] | None,
    lang: str | None = None,
    fallback: bool = False,
) -> None:
    """What check and build say about lint (on stderr, beside the other warnings): the
    count and the command that shows them; nothing when there are none or with --quiet.
    The command reads the languages counted: without --lang it would show every
    language's warnings, and without --fallback refuse a deck that needs it."""
    if session.quiet or not count:
        return
    picked = [*(["--lang", lang] if lang else []), *(["--fallback"] if fallback else [])]
    command = shlex.join(["deckbuilder", "lint", *(str(s) for s in sources or ()), *picked])
    err(f"{plural(count, 'lint warning')}; see them with: {command}", fg="yellow")


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} MB"


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide characters (Hangul, CJK) take
    two, combining marks and zero-width characters none. Measured composed (NFC): a file
    name saved on macOS spells Hangul as jamo, which the terminal shows as syllables."""
    return sum(
        0
        if unicodedata.combining(ch) or unicodedata.category(ch) == "Cf"
        else 2
        if unicodedata.east_asian_width(ch) in "WF"
        else 1
        for ch in unicodedata.normalize("NFC", text)
    )


def _all_tags(deck: Deck) -> list[str]:
    return list(dict.fromkeys([*deck.tags, *(tag for note in deck.notes for tag in note.tags)]))


def counts_text(deck: Deck) -> str:
    """``2 mcq notes (2 cards), 1 cloze note (3 cards)``"""
    return ", ".join(
        f"{plural(notes, kind + ' note')} ({plural(cards, 'card')})"
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
        "by_type": {kind: {"notes": n, "cards": c} for kind, (n, c) in deck.counts().items()},
        "tags": _all_tags(deck),
    }


def deck_table(decks: Sequence[Deck]) -> list[str]:
    """``deckbuilder list``: one row per deck, columns aligned for wide characters too."""
    # A column for each built-in note type that has one; notes of the others (and of the
    # note types a deck declares, or an import brought) are counted together.
    columns = [t for t in BUILT_IN.values() if t.column]
    kinds = [t.key for t in columns]
    header = ("DECK", "ID", "FILE", *(t.column for t in columns), "OTHER", "CARDS", "TAGS")
    rows: list[tuple[str, ...]] = [header]
    for deck in decks:
        counts = deck.counts()
        per_kind = [str(counts.get(kind, (0, 0))[0]) for kind in kinds]
        per_kind.append(str(sum(n for key, (n, _) in counts.items() if key not in kinds)))
        tags = " ".join(_all_tags(deck))
        source = shown(deck.source, None, quoted=False)
        rows.append((deck.name, deck.key, source, *per_kind, str(deck.card_count), tags))
    widths = [max(_width(row[i]) for row in rows) for i in range(len(header))]
    numeric = set(range(3, 5 + len(kinds)))
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
    lines = [f"{rd.deck.name}  ({shown(rd.deck.source, None, quoted=False)})"]
    counts = rd.deck.counts()
    width = max([6, *(len(kind) for kind in counts)])  # 'media' and the kinds line up
    for kind, (notes, cards) in counts.items():
        lines.append(f"  {kind:<{width}} {plural(notes, 'note'):>10}  {plural(cards, 'card'):>10}")
    lines.append(f"  {'media':<{width}} {plural(len(rd.media), 'file'):>10}")
    lines.append(f"  wrote {shown(result.path, None, quoted=False)} ({human_size(result.size)})")
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
    lines += note_type_lines(result)
    lines += removed_lines(result)
    lines.append(f"  lock  {result.lock} ({lock_state(result)})")
    return lines


def lock_state(result: PackageResult) -> str:
    """What became of a package's lock file: moved, updated or unchanged."""
    if result.lock_moved_from is not None:
        return f"moved from {result.lock_moved_from}, beside its card file; commit both"
    return "updated; commit it with the card file" if result.lock_written else "unchanged"


def note_type_lines(result: PackageResult) -> list[str]:
    """What changed in the package's note types since the last build, a line each."""
    c = result.changes
    lines = [
        f"  note type {shown(spec.name, None)}: templates or CSS changed (updates in place)"
        for spec in c.note_types_changed
    ]
    for rep in c.note_types_replaced:
        if rep.old.anki_id == rep.new.id:  # the same note type with other cards
            cards = ", ".join(name for name, _, _ in rep.new.templates)
            lines.append(
                f"  note type {shown(rep.new.name, None)} has new cards "
                f"({', '.join(rep.old.cards)} -> {cards})"
            )
        else:
            fields = (
                f"has new fields ({', '.join(rep.old.fields)} -> {', '.join(rep.new.fields)})"
                if rep.old.fields != rep.new.fields
                else f"has a new id, with the same fields (was {rep.old.anki_id})"
            )
            lines.append(
                f"  note type for {rep.new.kind.value} notes {fields}: "
                f"now {shown(rep.new.name, None)} (id {rep.new.id})"
            )
        lines.append(
            '    Import with "Merge note types" ticked, or existing notes will not update '
            "(README, 'Updating a shared deck')."
        )
    return lines


def removed_lines(result: PackageResult) -> list[str]:
    """What to do about notes the card file no longer has: Anki's import never deletes,
    so the learner deletes them in Anki's browser, found by their note ids in this deck."""
    removed = result.changes.removed
    if not removed:
        return []
    return [
        f"  removed: {', '.join(e.id for e in removed)}",
        "    A package cannot delete notes. To delete them in Anki, search the browser for:",
        f"    {result.removed_search}",
    ]


def forecast_line(preview: DeckForecast) -> str:
    """What ``build`` says of a deck's forecast, in one line."""
    line = f"preview {preview.deck}: {preview.summary}"
    if preview.history_unused:
        return f"{line} (default FSRS parameters: the study block's history cannot be used)"
    if preview.parameters_from is not None:
        return f"{line} (FSRS parameters {preview.parameters_from})"
    return line


def build_facts(result: PackageResult) -> dict[str, Any]:
    """One package in the JSON output of build, beside its :func:`deck_summary`."""
    c = result.changes
    return {
        "package": str(result.path),
        "size": result.size,
        "media": sorted(result.rendered.media),
        "lock": str(result.lock),
        "lock_written": result.lock_written,
        "lock_moved_from": None if result.lock_moved_from is None else str(result.lock_moved_from),
        "first_build": result.first_build,
        "changes": {
            "added": list(c.added),
            "changed": list(c.changed),
            "removed": [
                {"id": e.id, "anki_id": e.anki_id, "search": result.removed_search_for(e)}
                for e in c.removed
            ],
            "unchanged": len(c.unchanged),
            "note_types_changed": [spec.name for spec in c.note_types_changed],
            "note_types_replaced": [rep.new.name for rep in c.note_types_replaced],
        },
    }
