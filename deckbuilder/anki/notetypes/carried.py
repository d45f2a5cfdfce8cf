"""Note types a deck keeps from the Anki collection it was imported from.

Anki updates a note in place only when the package gives it the note type it already has
(the same id, field names and template names); with another, the import reports the
note as conflicting and leaves it alone. So the notes
``deckbuilder import`` reads from an ``.apkg`` are built with their collection's note
types: per note kind (basic, basic-reversed, cloze, ...), the id, name, fields, templates
and CSS, as they were, less what they run or fetch when Anki shows a card (scripts,
remote resources: see :mod:`~deckbuilder.anki.notetypes.active_content`). A note type
that holds such parts is refused unless it says ``keep_scripts: true``, which import
writes for the note types the user names. A deck that keeps none uses deckbuilder's own.

Import writes them into the card file, as ``note_types:`` declarations under the kind's
key (:func:`kept_declaration`; read back by :func:`carried_types`). Earlier imports wrote
them beside the card file in ``<card file stem>.notetypes.json``, which is still read
(:func:`read_carried`); a deck keeps a kind's note type in one of the two, not both.
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from deckbuilder.anki.notetypes import (
    NoteTypeSpec,
    declared_spec,
    kept_spec,
    note_type,
)
from deckbuilder.anki.notetypes.active_content import counted, note_type_parts
from deckbuilder.errors import DeckError, Problem
from deckbuilder.files.bounds import real_path_outside
from deckbuilder.files.reading import read_regular
from deckbuilder.model import BasicNote, Deck, FieldsNote, Note, NoteKind
from deckbuilder.note_types import BUILT_IN, KEPT_SHAPES, CardTemplate, NoteType
from deckbuilder.templates import name_problems, names_problems, shortened, template_problems

SIDECAR_SUFFIX = ".notetypes.json"
# Limits against absurd files (documented in docs/note-types.md). Anki's own note types
# have templates of a few KB; genanki reads each template several times per build.
MAX_SIDECAR_BYTES = 4 * 1024 * 1024
MAX_TEMPLATE_CHARS = 128 * 1024
MAX_CSS_CHARS = 1024 * 1024
_LARGEST_ID = 2**63 - 1  # Anki's ids are signed 64-bit numbers
_OWN_IDS = {t.anki_id: NoteKind(t.key) for t in BUILT_IN.values()}
_OWN_NAMES = {t.name.casefold() for t in BUILT_IN.values()}
_NO_CARRIED: dict[NoteKind, NoteTypeSpec] = {}


def sidecar_path(card_file: Path) -> Path:
    return card_file.with_name(card_file.stem + SIDECAR_SUFFIX)


def spec_kind(note: Note) -> NoteKind:
    """The note type kind a note is built with: a reversed basic note has its own, and a
    note with ``add_reverse:`` Anki's "Basic (optional reversed card)"."""
    if isinstance(note, BasicNote):
        if note.add_reverse is not None:
            return NoteKind.BASIC_OPTIONAL_REVERSED
        if note.reverse:
            return NoteKind.BASIC_REVERSED
    return note.kind


def spec_for(note: Note, carried: Mapping[NoteKind, NoteTypeSpec]) -> NoteTypeSpec:
    if isinstance(note, FieldsNote):
        return declared_spec(note.note_type)
    kind = spec_kind(note)
    found = carried.get(kind)
    if found is not None:
        return found
    if kind is NoteKind.BASIC_OPTIONAL_REVERSED:
        # Without the collection's note type (no sidecar file), deckbuilder's own: the
        # same cards.
        assert isinstance(note, BasicNote)
        return note_type(NoteKind.BASIC_REVERSED if note.reverse else NoteKind.BASIC)
    return note_type(kind)


def spec_fields(note: Note, spec: NoteTypeSpec, fields: tuple[str, ...]) -> tuple[str, ...]:
    """A note's rendered ``fields`` as ``spec`` takes them: the "Add Reverse" field of
    Anki's "Basic (optional reversed card)" follows its front and back, as it was."""
    if spec.kind is NoteKind.BASIC_OPTIONAL_REVERSED and isinstance(note, BasicNote):
        return (*fields, note.add_reverse or "")
    return fields


def kept_declaration(spec: NoteTypeSpec) -> NoteType:
    """The ``note_types:`` declaration that keeps ``spec``, a collection's note type of
    one of the built-in kinds, in a card file (under the kind's key)."""
    shape = KEPT_SHAPES[spec.kind.value]
    return NoteType(
        key=spec.kind.value,
        name=spec.name,
        fields=spec.fields,
        templates=tuple(CardTemplate(*template) for template in spec.templates),
        css=spec.css,
        sort_field=spec.sort_field,
        kind=shape.kind,
        anki_id=spec.id,
        keep_scripts=spec.keep_scripts,
    )


def carried_types(deck: Deck) -> Mapping[NoteKind, NoteTypeSpec]:
    """The collection's note types ``deck`` keeps: declared in its card file, or in the
    note types file an earlier import wrote beside it. DeckError for what Anki would
    refuse in them, at the declaration's line, and for a kind kept in both places."""
    carried = read_carried(deck.source)
    if not deck.kept_types:
        return carried
    problems: list[Problem] = []
    specs: dict[NoteKind, NoteTypeSpec] = dict(carried)
    for kept in deck.kept_types:
        spec = kept_spec(kept)
        if spec.kind in carried:
            problems.append(
                Problem(
                    kept.source,
                    kept.line,
                    f"note type '{kept.key}' is kept here and in {sidecar_path(deck.source)}: "
                    "Anki's note type is kept in one place; delete that file",
                )
            )
        where = f"note type '{kept.key}'"
        refused = spec_problems(spec, keep="keep_scripts: true")
        problems += [Problem(kept.source, kept.line, f"{where}: {p}") for p in refused]
        specs[spec.kind] = spec
    problems += [Problem(str(deck.source), None, p) for p in _shared_problems(specs)]
    if problems:
        raise DeckError(problems)
    return specs


def read_carried(card_file: Path) -> Mapping[NoteKind, NoteTypeSpec]:
    """The note types kept beside ``card_file`` (empty when it has none); DeckError naming
    the file and everything wrong with it when it is not as import writes it, or holds a
    note type Anki or genanki would refuse."""
    path = sidecar_path(card_file)
    if not os.path.lexists(path):
        return _NO_CARRIED
    elsewhere = real_path_outside(path, [os.path.realpath(card_file.parent)])
    if elsewhere is not None:  # a shared deck's 'x.notetypes.json -> ~/.ssh/...'
        raise DeckError.single(
            path, f"a link to '{elsewhere}', outside the card file's folder; it is not read"
        )
    data = read_regular(path, MAX_SIDECAR_BYTES)
    try:
        parsed = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise DeckError.single(path, _restore("JSON nested too deeply")) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise DeckError.single(path, _restore(f"not JSON: {shortened(str(exc))}")) from None
    specs, problems = parse_carried(parsed)
    if problems:
        raise DeckError(Problem(str(path), None, problem) for problem in problems)
    return specs


def _restore(what: str) -> str:
    return (
        f"not a note types file as 'deckbuilder import' writes it ({what}); restore it "
        "from version control"
    )


def parse_carried(data: Any) -> tuple[dict[NoteKind, NoteTypeSpec], list[str]]:
    """The note types of a note types file's JSON, and what is wrong with it (then the
    note types are not to be used)."""
    entries = data.get("note_types") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return {}, [_restore("no list of note types ('note_types')")]
    out: dict[NoteKind, NoteTypeSpec] = {}
    problems: list[str] = []
    for number, entry in enumerate(entries, start=1):
        spec, wrong = _entry(number, entry)
        if spec is not None and spec.kind in out:
            wrong.append(f"note type {number}: kind {spec.kind.value} is listed twice")
        if wrong:
            problems += wrong
        elif spec is not None:
            out[spec.kind] = spec
    problems += _shared_problems(out)
    return out, problems


_KEYS = {"kind": str, "id": int, "name": str, "fields": list, "templates": list, "css": str}
_TEMPLATE_KEYS = ("name", "front", "back")


def _entry(number: int, entry: Any) -> tuple[NoteTypeSpec | None, list[str]]:
    """One entry of the file as a note type, or None and what is wrong with it."""
    label = f"note type {number}"
    if not isinstance(entry, dict):
        return None, [_restore(f"{label} is not an object")]
    wrong = [
        f"'{key}' is missing" if key not in entry else f"'{key}' is not {_SHAPES[shape]}"
        for key, shape in _KEYS.items()
        if not isinstance(entry.get(key), shape) or isinstance(entry.get(key), bool)
    ]
    if wrong:
        return None, [_restore(f"{label}: {'; '.join(wrong)}")]
    if isinstance(entry["name"], str) and entry["name"].strip():
        label = f"note type {shortened(entry['name'])!r}"
    fields, templates = entry["fields"], entry["templates"]
    if not all(isinstance(name, str) for name in fields):
        return None, [_restore(f"{label}: a field name is not text")]
    if not all(
        isinstance(t, dict) and all(isinstance(t.get(k), str) for k in _TEMPLATE_KEYS)
        for t in templates
    ):
        return None, [_restore(f"{label}: a template is not {{name, front, back}} as text")]
    if entry["kind"] not in KEPT_SHAPES:
        kinds = ", ".join(KEPT_SHAPES)
        return None, [_restore(f"{label}: kind {shortened(entry['kind'])!r} is not one of {kinds}")]
    keep_scripts = entry.get("keep_scripts", False)
    if not isinstance(keep_scripts, bool):
        shown = shortened(json.dumps(keep_scripts, ensure_ascii=False))
        return None, [f"{label}: 'keep_scripts' is {shown}, not true or false"]
    kind = NoteKind(entry["kind"])
    wanted = KEPT_SHAPES[kind.value]
    cards = wanted.templates
    shape = f"{wanted.fields} fields and {cards} template{'s' if cards > 1 else ''}"
    if (len(fields), len(templates)) != (wanted.fields, cards):
        return None, [_restore(f"{label}: a note type of kind {kind.value} has {shape}")]
    first, *more = [(t["name"], t["front"], t["back"]) for t in templates]
    spec = NoteTypeSpec(
        kind=kind,
        id=entry["id"],
        name=entry["name"],
        fields=tuple(fields),
        template_name=first[0],
        front=first[1],
        back=first[2],
        css=entry["css"],
        more_templates=tuple(more),
        keep_scripts=keep_scripts,
    )
    own = BUILT_IN.get(kind.value)
    if own is not None and own.stock_kind:  # Anki knows it by its stock kind and field tags
        spec = replace(
            spec, cloze=own.is_cloze, stock_kind=own.stock_kind, field_tags=own.field_tags
        )
    return spec, [f"{label}: {problem}" for problem in spec_problems(spec)]


_SHAPES = {str: "text", int: "a whole number", list: "a list"}


def spec_problems(spec: NoteTypeSpec, *, keep: str = '"keep_scripts": true') -> list[str]:
    """What Anki or genanki would refuse, or silently change, in a note type kept from a
    collection: its id, its name, its field and template names, its templates, sizes.
    ``keep``: how the file it is kept in says to keep what it runs or fetches."""
    problems: list[str] = []
    if not 1 <= spec.id <= _LARGEST_ID:
        shown = str(spec.id) if -(10**40) < spec.id < 10**40 else "(over 40 digits)"
        problems.append(f"its id {shown} is not from 1 to {_LARGEST_ID}; Anki refuses the package")
    elif spec.id in _OWN_IDS:
        problems.append(
            f"its id {spec.id} is the id of deckbuilder's own note type "
            f"{note_type(_OWN_IDS[spec.id]).name!r}; Anki would take them for one"
        )
    problems += name_problems("its name", spec.name)
    if unicodedata.normalize("NFC", spec.name).casefold() in _OWN_NAMES:
        problems.append(
            "its name is the name of one of deckbuilder's own note types; Anki would rename it"
        )
    problems += names_problems("field", spec.fields, field_name=True)
    problems += names_problems("card", [name for name, _, _ in spec.templates])
    sizes = [
        (f"the {side} of card {number}", text, MAX_TEMPLATE_CHARS)
        for number, (_, front, back) in enumerate(spec.templates, start=1)
        for side, text in (("front", front), ("back", back))
    ]
    for what, text, limit in [*sizes, ("its CSS", spec.css, MAX_CSS_CHARS)]:
        if len(text) > limit:
            problems.append(f"{what} has {len(text):,} characters; the limit is {limit:,}")
    if not problems:
        problems += template_problems(spec.fields, spec.templates, cloze=spec.is_cloze)
    if not spec.keep_scripts:
        problems += _active_problems(spec, keep)
    return problems


def _active_problems(spec: NoteTypeSpec, keep: str) -> list[str]:
    """What a note type runs or fetches that nobody asked to keep (issue 45)."""
    found = note_type_parts(spec)
    if not found:
        return []
    first = found[0]
    return [
        f"its templates and CSS hold what Anki runs or fetches on every review: "
        f"{counted(found)} (first, in {first.where}: {_shown_excerpt(first.excerpt)}); import "
        f"the package again to remove them, remove this note type from the file, or set "
        f"{keep} in it if you trust them"
    ]


def _shown_excerpt(text: str) -> str:
    """An excerpt quoted on one line: characters a terminal would act on escaped."""
    return "'" + "".join(c if c.isprintable() else repr(c)[1:-1] for c in text) + "'"


def _shared_problems(specs: Mapping[NoteKind, NoteTypeSpec]) -> list[str]:
    """Note types of one file that Anki would take for one: the same id or name."""
    problems: list[str] = []
    ids: dict[int, NoteTypeSpec] = {}
    names: dict[str, NoteTypeSpec] = {}
    for spec in specs.values():
        same = ids.setdefault(spec.id, spec)
        if same is not spec:
            problems.append(
                f"note types {same.name!r} and {spec.name!r} have the same id {spec.id}; Anki "
                "would take them for one"
            )
        same = names.setdefault(spec.name.casefold(), spec)
        if same is not spec:
            problems.append(
                f"note types {same.name!r} and {spec.name!r} have the same name to Anki, "
                "which renames the second"
            )
    return problems
