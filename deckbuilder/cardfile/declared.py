"""Note types of the author's own: ``note_types:`` in a card file, and
``note-types/<key>.yaml`` at the project root for one that several card files use.

Each declaration becomes a :class:`deckbuilder.note_types.NoteType`, checked where its
lines are known: the fields' and cards' names as Anki keeps them, the templates as Anki
and genanki read them (:func:`deckbuilder.templates.card_problems`), the sort field,
raw fields and text-to-speech tags. Notes name one with ``type: <key>`` and give their
texts under ``fields:`` (read by :func:`read_declared_note`).

Under a built-in key (``basic``, ``cloze``, ... : :data:`deckbuilder.note_types.KEPT_SHAPES`)
a declaration is Anki's own note type that the deck's notes of that kind are built with,
kept by ``deckbuilder import`` from the collection (with its ``anki_id``), so that a build
updates the notes Anki has: the notes stay the short forms they are.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from deckbuilder.cardfile.fields import ID_RE, FieldReader, id_problem, is_null, shown, suggest
from deckbuilder.cardfile.keys import (
    CARD_TEMPLATE,
    NOTE_TYPE_DECLARATION,
    NOTE_TYPES,
    key_names,
    keyed,
)
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.errors import DeckError, Problem, Severity
from deckbuilder.note_types import KEPT_SHAPES, CardTemplate, NoteType, TypeKind
from deckbuilder.templates import (
    card_problems,
    name_problems,
    names_problems,
    tts_problems,
    typed_answer_warnings,
)

NOTE_TYPES_FOLDER = "note-types"
_CARDS_FOLDER = "cards"
_DECLARATION_KEYS = key_names(NOTE_TYPE_DECLARATION)
_CARD_KEYS = key_names(CARD_TEMPLATE)
_DECLARATION = keyed(NOTE_TYPE_DECLARATION)
_CARD = keyed(CARD_TEMPLATE)
# What 'type:' says for deckbuilder's own note types (and Anki's that it keeps as
# they are): a declared note type cannot take one of these keys.
RESERVED_KEYS = frozenset(t.kind.value for t in NOTE_TYPES) | {
    "basic-reversed",
    "basic-optional-reversed",
    "declared",
    "image-occlusion",
}
_LARGEST_ID = 2**63 - 1
# Reads a YAML file into its located tree (DeckError for what is wrong with the file).
ReadFile = Callable[[Path], YValue | None]


def project_root(card_file: Path) -> Path:
    """The project folder of a card file: the one holding the ``cards`` folder it is in,
    or (a card file elsewhere) its own folder."""
    folder = card_file.parent
    for candidate in (folder, *folder.parents):
        if candidate.name == _CARDS_FOLDER:
            return candidate.parent
    return folder


class DeclaredTypes:
    """The note types a card file can use: its own ``note_types:``, then those in the
    project's ``note-types/`` folder, read when a note first names one."""

    def __init__(
        self, fields: FieldReader, tree: YMap, scope: str, read_file: ReadFile | None = None
    ) -> None:
        self.fields = fields
        self.scope = scope  # the deck's id: a card file's own note types are its alone
        self.root = project_root(fields.path)
        self.read_file = read_file
        self.own: dict[str, NoteType] = {}
        self.shared: dict[str, NoteType | None] = {}  # read from note-types/ (None: none)
        self.used: dict[str, NoteType] = {}
        # Keys this file declares whose declarations were refused (their problems told at
        # the declaration): a note naming one needs no problem of its own.
        self.refused: set[str] = set()
        # The fields of those whose field list is right (a template was at fault): their
        # notes' field names are checked against it, so that every problem is told at once.
        self.refused_fields: dict[str, tuple[str, ...]] = {}
        # Anki's own note types the deck's notes of a built-in kind are built with, by
        # that kind's key (kept from the collection the deck was imported from).
        self.kept: dict[str, NoteType] = {}
        value = tree.get("note_types")
        if value is not None and not is_null(value):
            self._read_own(value)

    def _read_own(self, value: YValue) -> None:
        if not isinstance(value, YMap):
            self.fields.problem(
                value.line,
                "'note_types' must be a mapping from a note type's key to its declaration "
                f"(vocab: {{fields: [...], cards: [...]}}), not {describe(value)}",
            )
            return
        for key, declaration in value.entries.items():
            line = value.key_line(key)
            if key in KEPT_SHAPES:
                kept = read_declaration(self.fields, key, declaration, line, self.scope)
                if kept is not None and not _kept_problems(self.fields, kept, declaration):
                    self.kept[key] = kept
                continue
            found = None
            if not _key_problem(self.fields, key, line):
                found = read_declaration(self.fields, key, declaration, line, self.scope)
            if found is None:
                self.refused.add(key)
                names = _written_field_names(declaration)
                if names:
                    self.refused_fields[key] = names
            else:
                self.own[key] = found

    def get(self, key: str) -> NoteType | None:
        """The note type ``key`` (read from note-types/ when not declared here)."""
        found = self.own.get(key)
        if found is None:
            if key not in self.shared:
                self.shared[key] = self._read_shared(key)
            found = self.shared[key]
        if found is not None:
            self.used.setdefault(key, found)
        return found

    def known(self) -> list[str]:
        """The keys a note may name: this file's own, and the project's."""
        folder = self.root / NOTE_TYPES_FOLDER
        shared = sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []
        return list(dict.fromkeys([*self.own, *shared]))

    def _read_shared(self, key: str) -> NoteType | None:
        if self.read_file is None:
            return None
        found, problems, names = shared_note_type(
            self.root, key, self.read_file, self.fields.languages, self.fields.lang
        )
        for problem in problems:
            told = (
                self.fields.problems if problem.severity is Severity.ERROR else self.fields.warnings
            )
            told.append(problem)
        if found is None and names:
            self.refused_fields[key] = names
        return found


def shared_note_type(
    root: Path,
    key: str,
    read_file: ReadFile,
    languages: tuple[str, ...] = (),
    lang: str = "",
) -> tuple[NoteType | None, list[Problem], tuple[str, ...]]:
    """The note type ``key`` of the project at ``root`` (``note-types/<key>.yaml``), None
    when it has none, what is wrong with its file, and the field names the file gives
    (see :func:`_written_field_names`)."""
    if not ID_RE.match(key):
        return None, [], ()
    path = root / NOTE_TYPES_FOLDER / f"{key}.yaml"
    if not path.is_file():
        return None, [], ()
    try:
        tree = read_file(path)
    except DeckError as exc:
        return None, list(exc.problems), ()
    reader = FieldReader(path, languages, lang)
    if not isinstance(tree, YMap):
        line = tree.line if tree is not None else None
        reader.problem(line, "a note type file must be a mapping (fields:, cards:, ...)")
        return None, reader.problems, ()
    found = read_declaration(reader, key, tree, tree.line, "")
    return found, reader.problems + reader.warnings, _written_field_names(tree)


def _key_problem(fields: FieldReader, key: str, line: int) -> bool:
    if not ID_RE.match(key):
        fields.problem(line, id_problem("note type key", key))
        return True
    if key in RESERVED_KEYS:
        fields.problem(
            line,
            f"'{key}' is the name of one of deckbuilder's own note types; give the note "
            "type another key",
        )
        return True
    return False


def _kept_problems(fields: FieldReader, kept: NoteType, value: YValue) -> bool:
    """Whether the note type kept under a built-in key cannot carry that kind's notes
    (each problem reported): it must be Anki's (an ``anki_id``) and of the kind's shape."""
    before = len(fields.problems)
    shape = KEPT_SHAPES[kept.key]
    where = f"note type '{kept.key}'"
    if not kept.anki_id:
        fields.problem(
            kept.line,
            f"{where} is a built-in note type's key: a declaration under it is the Anki note "
            f"type the deck's {kept.key} notes are built with, kept by 'deckbuilder import', "
            "and needs its 'anki_id'; for a note type of your own, choose another key",
        )
    templates = "template" if shape.templates == 1 else "templates"
    if (len(kept.fields), len(kept.templates)) != (shape.fields, shape.templates):
        fields.problem(
            kept.line,
            f"{where} must have {shape.fields} fields and {shape.templates} card {templates} "
            f"to carry {kept.key} notes, not {len(kept.fields)} and {len(kept.templates)}",
        )
    if kept.kind is not shape.kind:
        written = isinstance(value, YMap) and "kind" in value.entries
        line = value.key_line("kind") if isinstance(value, YMap) and written else kept.line
        fields.problem(line, f"{where} must be of kind {shape.kind.value}, as Anki's is")
    return len(fields.problems) > before


def read_declaration(
    fields: FieldReader, key: str, value: YValue, line: int, scope: str
) -> NoteType | None:
    """One note type's declaration, or None (with its problems reported)."""
    if not isinstance(value, YMap):
        fields.problem(
            value.line if value is not None else line,
            f"note type '{key}' must be a mapping (name:, fields:, cards:), not {describe(value)}",
        )
        return None
    before = len(fields.problems)
    fields.unknown_keys(value, _DECLARATION_KEYS, f"note type '{key}'")
    name = fields.read(value, _DECLARATION["name"]) or key
    for wrong in name_problems("its name", name):
        fields.problem(
            value.key_line("name") if "name" in value.entries else line,
            f"note type '{key}': {wrong}",
        )
    names = _names(fields, value, "fields", key, required=True)
    kind = _kind(fields, value, key)
    templates, card_lines = _cards(fields, value, key)
    css = fields.read(value, _DECLARATION["css"])
    sort_field = _sort_field(fields, value, key, names)
    raw = _names(fields, value, "raw", key)
    for field_name in raw:
        if field_name not in names:
            fields.problem(
                value.key_line("raw"),
                f"note type '{key}': raw field '{shown(field_name)}' is not one of its fields "
                f"({', '.join(names)}){suggest(field_name, names)}",
            )
    anki_id = _anki_id(fields, value, key)
    keep_scripts = fields.read(value, _DECLARATION["keep_scripts"])
    # The templates are checked even so, so that all the declaration's problems are told.
    told = len(fields.problems) > before
    if not names or not templates:
        return None
    cards_line = value.key_line("cards")
    if kind is TypeKind.CLOZE and len(templates) != 1:
        fields.problem(
            cards_line,
            f"note type '{key}' is a cloze note type, which has exactly one card template "
            "(a card is made for each deletion number)",
        )
        return None
    as_tuples = [(t.name, t.front, t.back) for t in templates]
    # Each at its card's line, where an editor jumps to fix the template.
    refused = card_problems(names, as_tuples, cloze=kind is TypeKind.CLOZE)
    for number, template in enumerate(templates, start=1):
        refused += [
            (number, f"card {template.name!r}: {problem}")
            for side in (template.front, template.back)
            for problem in tts_problems(side, names)
        ]
    for number, problem in dict.fromkeys(refused):
        fields.problem(card_lines[number - 1], f"note type '{key}': {problem}")
    fields.warnings += [
        Problem.warning(
            fields.file, card_lines[number - 1], f"note type '{key}': {told}", code="typed-answers"
        )
        for number, told in typed_answer_warnings(as_tuples)
    ]
    if refused or told:
        return None
    return NoteType(
        key=key,
        name=name,
        fields=tuple(names),
        templates=tuple(templates),
        css=css,
        sort_field=sort_field,
        kind=kind,
        raw=frozenset(raw),
        anki_id=anki_id,
        keep_scripts=keep_scripts,
        scope=scope,
        source=fields.file,
        line=line,
    )


def _written_field_names(value: YValue) -> tuple[str, ...]:
    """The field names a declaration gives, () unless they are a list Anki takes as it is:
    read as :func:`read_declaration` reads them, whose problems are told there."""
    if not isinstance(value, YMap):
        return ()
    untold = FieldReader(Path())
    names = _names(untold, value, "fields", "")
    return () if untold.problems else tuple(names)


def _names(
    fields: FieldReader, value: YMap, key: str, type_key: str, *, required: bool = False
) -> list[str]:
    found = value.get(key)
    if found is None or is_null(found):
        if required:
            line = value.key_line(key)
            fields.problem(line, f"note type '{type_key}': '{key}' is required: a list of names")
        return []
    items = found.items if isinstance(found, YSeq) else None
    if items is None or not all(isinstance(i, YScalar) and not i.is_null for i in items):
        fields.problem(
            found.line,
            f"note type '{type_key}': '{key}' must be a list of field names "
            f"([Front, Back]), not {describe(found)}",
        )
        return []
    names = [unicodedata.normalize("NFC", item.raw) for item in items]  # type: ignore[union-attr]
    if required and not names:
        fields.problem(found.line, f"note type '{type_key}': '{key}' is empty; name its fields")
    for wrong in names_problems("field", names, field_name=True):
        fields.problem(found.line, f"note type '{type_key}': {wrong}")
    return names


def _kind(fields: FieldReader, value: YMap, key: str) -> TypeKind:
    written = fields.read_plain(value, _DECLARATION["kind"]).strip()
    if not written:
        return TypeKind.STANDARD
    try:
        return TypeKind(written)
    except ValueError:
        fields.problem(
            value.key_line("kind"),
            f"note type '{key}': 'kind' must be standard or cloze, not '{shown(written)}'",
        )
        return TypeKind.STANDARD


def _cards(fields: FieldReader, value: YMap, key: str) -> tuple[list[CardTemplate], list[int]]:
    """The cards declared, and the line of each."""
    found = value.get("cards")
    if found is None or is_null(found):
        fields.problem(
            value.key_line("cards"),
            f"note type '{key}': 'cards' is required: a list of cards, each "
            "{name:, front:, back:}",
        )
        return [], []
    if isinstance(found, YSeq) and not found.items:
        fields.problem(
            found.line,
            f"note type '{key}': 'cards' is empty; give it a card {{name:, front:, back:}}",
        )
        return [], []
    if not isinstance(found, YSeq):
        fields.problem(
            found.line,
            f"note type '{key}': 'cards' must be a list of cards, each {{name:, front:, "
            f"back:}}, not {describe(found)}",
        )
        return [], []
    out: list[CardTemplate] = []
    lines: list[int] = []
    names: list[str] = []
    for number, item in enumerate(found.items, start=1):
        if not isinstance(item, YMap):
            fields.problem(
                item.line,
                f"note type '{key}': card {number} must be a mapping (name:, front:, back:), "
                f"not {describe(item)}",
            )
            continue
        fields.unknown_keys(item, _CARD_KEYS, f"card {number} of note type '{key}'")
        name = fields.read(item, _CARD["name"]) or f"Card {number}"
        sides = []
        for side in ("front", "back"):
            text = fields.read(item, _CARD[side])
            if not text.strip():
                line = item.key_line(side)
                fields.problem(line, f"note type '{key}': card {number} needs a '{side}'")
            sides.append(text)
        names.append(name)
        out.append(CardTemplate(name, sides[0], sides[1]))
        lines.append(item.line)
    for wrong in names_problems("card", names):
        fields.problem(found.line, f"note type '{key}': {wrong}")
    return out, lines


def _sort_field(fields: FieldReader, value: YMap, key: str, names: list[str]) -> int:
    written = fields.read(value, _DECLARATION["sort_field"])
    if not written:
        return 0
    if written in names:
        return names.index(written)
    fields.problem(
        value.key_line("sort_field"),
        f"note type '{key}': sort_field '{shown(written)}' is not one of its fields "
        f"({', '.join(names)}){suggest(written, names)}",
    )
    return 0


def _anki_id(fields: FieldReader, value: YMap, key: str) -> int:
    found = value.get("anki_id")
    if found is None or is_null(found):
        return 0
    raw = found.raw.strip() if isinstance(found, YScalar) else ""
    if raw.isdigit() and len(raw) <= 19 and 1 <= int(raw) <= _LARGEST_ID:
        return int(raw)
    fields.problem(
        found.line,
        f"note type '{key}': 'anki_id' must be a whole number from 1 to {_LARGEST_ID} "
        "(Anki's id of the note type, as 'deckbuilder import' writes it)",
    )
    return 0


def read_declared_note_fields(
    fields: FieldReader, item: YMap, note_type: NoteType
) -> tuple[tuple[str, ...], dict[str, int]]:
    """The texts a note of ``note_type`` gives under ``fields:`` (in field order, '' for a
    field left out), and the line of each (``fields.NAME``)."""
    value = item.get("fields")
    lines: dict[str, int] = {}
    if value is None or is_null(value):
        fields.problem(
            item.key_line("fields"),
            f"a note of note type '{note_type.key}' gives its texts under 'fields:' "
            f"(its fields: {', '.join(note_type.fields)})",
            "fields",
        )
        return note_type.field_texts({}), lines
    if not isinstance(value, YMap):
        fields.problem(
            value.line,
            f"'fields' must be a mapping from field name to text ({note_type.fields[0]}: ...), "
            f"not {describe(value)}",
            "fields",
        )
        return note_type.field_texts({}), lines
    given: dict[str, str] = {}
    for name, text in value.entries.items():
        line = value.key_line(name)
        if name not in note_type.fields:
            _no_such_field(fields, note_type.key, note_type.fields, name, line)
            continue
        lines[f"fields.{name}"] = line
        if is_null(text):
            continue
        given[name] = fields.as_text(text, f"fields.{name}")
    return note_type.field_texts(given), lines


def unknown_note_fields(fields: FieldReader, item: YMap, key: str, names: Sequence[str]) -> None:
    """Tell each field a note of the note type ``key`` (refused for its templates) gives
    under ``fields:`` that is not one of its ``names``."""
    value = item.get("fields")
    if not isinstance(value, YMap):
        return
    for name in value.entries:
        if name not in names:
            _no_such_field(fields, key, names, name, value.key_line(name))


def _no_such_field(
    fields: FieldReader, key: str, names: Sequence[str], name: str, line: int
) -> None:
    fields.problem(
        line,
        f"note type '{key}' has no field '{shown(name)}' (its fields: {', '.join(names)})"
        f"{suggest(name, names)}",
        f"fields.{name}",
    )


def shared_name_problems(types: Iterable[NoteType]) -> list[Problem]:
    """Note types that Anki would take for one (one name, in any case), each at its
    declaration."""
    problems = []
    seen: dict[str, NoteType] = {}
    for note_type in types:
        folded = unicodedata.normalize("NFC", note_type.name).casefold()
        first = seen.setdefault(folded, note_type)
        if first is not note_type and (first.source, first.key) != (
            note_type.source,
            note_type.key,
        ):
            problems.append(
                Problem(
                    note_type.source,
                    note_type.line,
                    f"note type '{note_type.key}' has the Anki name '{shown(note_type.name)}' of "
                    f"note type '{first.key}' ({first.source}, line {first.line}); Anki would "
                    "take them for one: give one another 'name:'",
                )
            )
    return problems
