"""Anki's text files (its "Notes in Plain Text" export, and any text Anki imports) ->
the model's notes, with the columns Anki would give each field.

The headers (:mod:`.delimited`) may name the column of each note's GUID, note type, deck
and tags; the other columns are its fields. Without a note type column, every row is a
note of the type ``#notetype:`` names (Anki's Basic when it names none, or one this tool
does not build): its fields take the first columns, by ``#columns:`` name where those name
them, and the first column after them is the tags, as Anki maps a header-less file
(``front<TAB>back<TAB>tags``).

The export names each note's note type but does not carry it. Notes of Anki's stock
types (by their English names) become notes of deckbuilder's own; notes of a note type
with more than two fields come in onto a note type declared from the columns
(:func:`columns_type`), and so do the rows of a file that names no note type when the
import is given one (a note type of the project, or a new key). With a GUID column the
notes keep their GUIDs: built and imported into the collection they came from, Anki
reports them as conflicting and changes nothing. Without one, each note's id (and so its
GUID) comes from its first field as it shows; importing the built deck into that
collection adds the notes again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from deckbuilder.errors import Problem, RequestError, Severity
from deckbuilder.importers.any_type import declared_type, fields_note, type_key
from deckbuilder.importers.base import Skipped, SourceDeck, SourceNotes, Tally, decks_of
from deckbuilder.importers.delimited import (
    Metadata,
    guess_delimiter,
    looks_like_html,
    read_metadata,
    rows,
)
from deckbuilder.importers.html_markdown import field_markdown, plain_html
from deckbuilder.model import BasicNote, ClozeNote, Note
from deckbuilder.note_types import CardTemplate, NoteType, TypeKind
from deckbuilder.templates import name_problems

KNOWN_HEADERS = frozenset(
    {"separator", "html", "tags", "columns", "notetype", "deck"}
    | {"guid column", "notetype column", "deck column", "tags column"}
    | {"match scope", "if matches"}
)
IN_PLACE_HINT = (
    "Anki's text export does not carry its note types, so re-importing the built package "
    "into the collection it came from reports these notes as conflicting and leaves them "
    "as they are (no duplicates, review history untouched). To get edits updated in place, "
    "export the deck as an .apkg and import that instead"
)
NO_GUID = (
    "no GUID column, so each note's identity comes from its first field: "
    "importing the built deck into a collection that already has these notes (the one "
    "this file came from) adds them again. Export from Anki with 'Include unique "
    "identifier' ticked (or as an .apkg) to update those notes instead"
)
_CLOZE = re.compile(r"\{\{c\d+::")


@dataclass(frozen=True)
class _Type:
    """A note type this tool builds, as Anki (in English) and deckbuilder name it."""

    fields: tuple[str, ...]
    cloze: bool = False
    reverse: bool = False
    optional: bool = False  # "Basic (optional reversed card)": the third field decides


_TYPES = {
    "basic": _Type(("Front", "Back")),
    "deckbuilder basic": _Type(("Front", "Back")),
    "basic (and reversed card)": _Type(("Front", "Back"), reverse=True),
    "deckbuilder basic (and reversed card)": _Type(("Front", "Back"), reverse=True),
    "basic (optional reversed card)": _Type(("Front", "Back", "Add Reverse"), optional=True),
    "cloze": _Type(("Text", "Back Extra"), cloze=True),
    "deckbuilder cloze": _Type(("Text", "Back Extra"), cloze=True),
}
_BASIC = _TYPES["basic"]


def read_anki_text(text: str, source: Path, note_type: NoteType | str | None = None) -> SourceNotes:
    """The notes of an Anki text file's ``text`` (decoded, line ends ``\\n``);
    ``note_type``: see :func:`anki_text_notes`."""
    lines = text.split("\n")
    return anki_text_notes(lines, read_metadata(lines), source, note_type=note_type)


def anki_text_notes(
    lines: list[str],
    meta: Metadata,
    source: Path,
    delimiter: str = "",
    *,
    note_type: NoteType | str | None = None,
    labels: Sequence[str] = (),
) -> SourceNotes:
    """The notes of an Anki text file split into ``lines``, whose headers are ``meta``.
    ``delimiter``: the one to use when the headers name none (else Anki's guess).
    ``note_type``: the note type every row is a note of when the file does not name its
    own: a declared one, or the key of a new one named from the columns. ``labels``: the
    columns' names when the headers give none (a spreadsheet's header row)."""
    start = meta.lines
    delimiter = meta.delimiter or delimiter or guess_delimiter("\n".join(lines[start:]))
    table = [(line, row) for line, row in rows(lines, start, delimiter, source) if any(row)]
    html = meta.html if meta.html is not None else looks_like_html([row for _, row in table])
    result = SourceNotes("Anki text", source, named_decks="deck" in meta.column)
    special = {key: n for key, n in meta.column.items() if n > 0}
    if note_type is not None and "notetype" in special:
        raise RequestError.single(
            "note_type",
            f"{source.name} names each note's note type in its column {special['notetype']}; "
            "import it without a note type",
        )
    declared = _declared_types(table, meta, special, html, note_type, labels or meta.columns)
    chosen = note_type if isinstance(note_type, NoteType) else None
    by_column = _FieldColumns(
        meta,
        table[0][1] if table else [],
        set(special.values()),
        labels=labels,
        chosen=chosen,
        from_columns=(meta.notetype if note_type is None else "") in declared and not chosen,
    )
    if chosen is not None:
        result.warnings += _columns_left_out(table, by_column, chosen, source)
    if "guid" not in special:
        result.strict_refusals.append(Problem.warning(str(source), None, NO_GUID))
    outcomes: dict[str, list[str]] = {}  # note type name -> what each note imported became
    in_deck: list[tuple[str, Note]] = []  # each note with its deck's name
    for line, row in table:

        def cell(key: str, row: list[str] = row) -> str:
            n = special.get(key, 0)
            return row[n - 1] if 0 < n <= len(row) else ""

        type_name = cell("notetype") if "notetype" in special else meta.notetype
        tags = [*meta.tags, *cell("tags").split()] if "tags" in special else [*meta.tags]
        tags.extend(by_column.tags(row))
        own = declared.get(type_name if note_type is None else "")
        if own is not None:
            names = chosen.fields if chosen else None
            note, outcome = _declared_note(row, by_column, own, names, html, line, tuple(tags))
        else:
            note, outcome = _note(row, by_column, type_name, html, line)
        name = own.name if isinstance(own, NoteType) else type_name or "Basic"
        imported = outcomes.setdefault(name, [])  # named in the order the rows come
        if note is None:
            result.skipped.append(Skipped(line, outcome))
            continue
        imported.append(outcome)
        note = replace(note, tags=tuple(dict.fromkeys(tags)), guid=cell("guid").strip())
        in_deck.append((cell("deck") if "deck" in special else meta.deck, note))
    result.decks = decks_of(in_deck) or [SourceDeck(meta.deck)]
    for name, said in outcomes.items():
        for outcome in dict.fromkeys(said):
            n = said.count(outcome)
            result.report.append(Tally(name, n, outcome))
    if "guid" in special and result.notes:
        hint = Problem(str(source), None, f"{IN_PLACE_HINT}.", severity=Severity.NOTE)
        result.notes_after.append(hint)
    return result


def _declared_types(
    table: list[tuple[int, list[str]]],
    meta: Metadata,
    special: dict[str, int],
    html: bool,
    note_type: NoteType | str | None,
    labels: Sequence[str],
) -> dict[str, NoteType | str]:
    """The note types that rows come in onto as declared, by the name the file gives
    them ('' for the one the import was given), or why one cannot come in: each named
    type deckbuilder has no short form for whose notes have more than two fields, and
    (in a note type column) one named as Anki's own whose notes have more fields than
    Anki's (a "Cloze" given a Source field)."""
    columns = set(special.values())
    if isinstance(note_type, NoteType):
        return {"": note_type}
    by_name: dict[str, list[list[str]]] = {}
    for _, row in table:
        n = special.get("notetype", 0)
        name = (row[n - 1] if 0 < n <= len(row) else "") if n else meta.notetype
        values = [value for i, value in enumerate(row, start=1) if i not in columns]
        while values and not values[-1].strip():  # Anki pads rows to the widest type
            values.pop()
        by_name.setdefault("" if note_type else name, []).append(values)
    field_labels = [label for i, label in enumerate(labels, start=1) if i not in columns]
    taken: set[str] = set()
    declared: dict[str, NoteType | str] = {}
    for name, notes in by_name.items():
        width = max(len(values) for values in notes)
        known = _TYPES.get(name.casefold())
        if note_type:
            name_of = note_type
        elif not name or width <= 2:
            continue  # Anki's Basic, or two fields: a note type of deckbuilder's own
        elif known is not None and ("notetype" not in special or width <= len(known.fields)):
            continue  # Anki's own, the next column its tags (no note type column)
        else:
            name_of = name
        html_notes = [[v if html else plain_html(v) for v in values] for values in notes]
        found = columns_type(name_of, field_labels, html_notes, taken, key=note_type or "")
        declared[name] = found
    return declared


def _columns_left_out(
    table: list[tuple[int, list[str]]], columns: _FieldColumns, chosen: NoteType, source: Path
) -> list[Problem]:
    """A warning naming the columns that hold text no field of ``chosen`` takes."""
    used = {*columns.columns(chosen.fields), columns.tags_column, *columns.special}
    left = sorted(
        {i for _, row in table for i, value in enumerate(row, start=1) if value.strip()} - used
    )
    if not left:
        return []
    named = ("columns " if len(left) > 1 else "column ") + ", ".join(map(str, left))
    fields = ", ".join(chosen.fields)
    return [
        Problem.warning(
            str(source),
            None,
            f"no field of note type '{chosen.key}' ({fields}) takes the text of "
            f"{named}: not imported",
        )
    ]


class _FieldColumns:
    """Which columns of a row are the fields of a note of a global note type, and which
    the tags, as Anki maps them. ``chosen``: the note type the import was given, whose
    fields take the columns by name where the columns' names name any of them, else in
    order; ``from_columns``: the global note type is made from every column."""

    def __init__(
        self,
        meta: Metadata,
        first_row: list[str],
        special: set[int],
        *,
        labels: Sequence[str] = (),
        chosen: NoteType | None = None,
        from_columns: bool = False,
    ) -> None:
        self.special = special
        self.labels = list(labels or meta.columns) or [""] * len(first_row)
        self.by_row_type = "notetype" in meta.column and meta.column["notetype"] > 0
        self.tags_column = 0
        self.cache: dict[tuple[str, ...], list[int]] = {}
        self.in_order = chosen is not None
        if not self.by_row_type and "tags" not in meta.column and not from_columns:
            names = chosen.fields if chosen else _TYPES.get(meta.notetype.casefold(), _BASIC).fields
            fields = self.columns(names)
            after = max(fields, default=0) + 1
            free = [i for i in range(after, len(self.labels) + 1) if i not in special]
            self.tags_column = free[0] if free else 0

    def columns(self, fields: tuple[str, ...]) -> list[int]:
        """The 1-based column of each field (0: none)."""
        if fields in self.cache:
            return self.cache[fields]
        free = [i for i in range(1, len(self.labels) + 1) if i not in self.special]
        by_name = {self.labels[i - 1]: i for i in reversed(free) if self.labels[i - 1]}
        if not by_name or (self.in_order and not by_name.keys() & set(fields)):
            mapped = free[: len(fields)] + [0] * (len(fields) - len(free))
        else:
            mapped = [by_name.get(name, 0) for name in fields]
        if mapped and not mapped[0] and free:
            mapped[0] = free[0]
        self.cache[fields] = mapped
        return mapped

    def fields(self, row: list[str], names: tuple[str, ...] | None) -> list[str]:
        """The row's fields: those of note type ``names``, or (None, or a row naming its
        note type) every column but the special ones, in order."""
        if names is None or self.by_row_type:
            return [value for i, value in enumerate(row, start=1) if i not in self.special]
        return [row[i - 1] if 0 < i <= len(row) else "" for i in self.columns(names)]

    def tags(self, row: list[str]) -> list[str]:
        n = self.tags_column
        return row[n - 1].split() if 0 < n <= len(row) else []


def _declared_note(
    row: list[str],
    columns: _FieldColumns,
    note_type: NoteType | str,
    names: tuple[str, ...] | None,
    html: bool,
    line: int,
    tags: tuple[str, ...],
) -> tuple[Note | None, str]:
    """The row's note of a declared note type (its fields, by ``names``, or every column
    in order), or None, and what became of it."""
    if isinstance(note_type, str):
        return None, f"not imported: {note_type}"
    values = columns.fields(row, names)
    if not values or not values[0].strip():
        return None, "not imported: its first field is empty (Anki skips such a row too)"
    html_fields = [v if html else plain_html(v) for v in values]
    note = fields_note(note_type, html_fields, tags=tags, guid="", line=line)
    return note, f"notes of a note type of the deck's own ('{note_type.key}')"


def _note(
    row: list[str], columns: _FieldColumns, type_name: str, html: bool, line: int
) -> tuple[Note | None, str]:
    """The row's note, or None, and what became of it."""
    name = type_name.casefold()
    known = _TYPES.get(name)
    if known is None and not columns.by_row_type:
        known = _BASIC  # Anki falls back to its default note type
    fields = columns.fields(row, known.fields if known is not None else None)
    reverse = known is not None and known.reverse
    if known is not None and known.optional:
        fields += [""] * (3 - len(fields))
        reverse = bool(fields[2].strip())
        fields = fields[:2] + [f for f in fields[3:] if f.strip()]
    # Anki pads each row of an export to the widest note type's fields.
    while len(fields) > 2 and not fields[-1].strip():
        fields = fields[:-1]
    fields += [""] * (2 - len(fields))
    if len(fields) != 2:
        return None, f"not imported: {len(fields)} fields (deckbuilder reads notes of two fields)"
    cloze = known.cloze if known is not None else bool(_CLOZE.search(fields[0]))
    texts = [field_markdown(v if html else plain_html(v), cloze=cloze).markdown for v in fields]
    if not fields[0].strip():
        return None, "not imported: its first field is empty (Anki skips such a row too)"
    kind = "cloze" if cloze else ("reversed basic" if reverse else "basic")
    outcome = (
        f"{kind} notes"
        if known is not None or not type_name
        else f"{kind} notes (read by their two fields)"
    )
    if cloze:
        return ClozeNote(id="", line=line, text=texts[0], extra=texts[1]), outcome
    return BasicNote(id="", line=line, front=texts[0], back=texts[1], reverse=reverse), outcome


# Note types a text file's notes come in onto when they have more than two fields.
#
# Anki's text export names each note's note type (`#notetype:NAME` or a note type
# column) but does not carry it: its fields, cards and styling stay in the collection. A
# note type the card format has no short form for is declared from the columns instead:
# its fields named by `#columns:` (or a spreadsheet's header row) where those name them,
# else `Field 1` .. `Field N`, and one card that asks the first field and shows the
# others on the back (a cloze card when every note's first field has a deletion). A note
# type of the project (`note-types/<key>.yaml`) can be chosen instead, for a file that
# names none; its fields take the columns by name where the column names match them, else
# in order.


def field_names(labels: Sequence[str], width: int) -> tuple[str, ...]:
    """``width`` field names: each column's label where Anki would keep it as a field
    name (and no other field has it), else ``Field N``."""
    names: list[str] = []
    seen: set[str] = set()
    for number in range(1, width + 1):
        label = labels[number - 1].strip() if number <= len(labels) else ""
        candidates = [label] if label and not name_problems("", label, field_name=True) else []
        candidates += [f"Field {number}", *(f"Field {number}-{n}" for n in range(2, width + 2))]
        name = next(c for c in candidates if c.casefold() not in seen)
        seen.add(name.casefold())
        names.append(name)
    return tuple(names)


def columns_type(
    name: str,
    labels: Sequence[str],
    notes: Sequence[Sequence[str]],
    taken: set[str],
    *,
    key: str = "",
) -> NoteType | str:
    """A note type named ``name`` for ``notes`` (each note's fields' HTML, column by
    column), its fields named from ``labels``; or why Anki would refuse it. Its key
    (``key``, else a slug of its name not in ``taken``) is added to ``taken``."""
    width = max((len(fields) for fields in notes), default=0)
    fields = field_names(labels, width)
    cloze = bool(notes) and all(fields and _CLOZE.search(fields[0]) for fields in notes)
    first, others = fields[0], fields[1:]
    shown = "<br>\n".join(f"{{{{{field}}}}}" for field in others)
    if cloze:
        front = f"{{{{cloze:{first}}}}}"
        back = front + (f"<br>\n{shown}" if shown else "")
    else:
        front = f"{{{{{first}}}}}"
        back = "{{FrontSide}}\n\n<hr id=answer>\n\n" + shown
    key = key or type_key(name, taken)
    found = declared_type(
        NoteType(
            key=key,
            name=name.strip() or key,
            fields=fields,
            templates=(CardTemplate("Card 1", front, back),),
            kind=TypeKind.CLOZE if cloze else TypeKind.STANDARD,
        ),
        notes,
    )
    if isinstance(found, NoteType):
        taken.add(key)
    return found
