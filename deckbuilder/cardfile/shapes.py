"""Value shapes, each once: every part of the card format that says, documents, checks
or reads a value of a shape (text, an id, a letter list, a number mapping...) takes it
from that shape's row of :data:`SHAPES`.

A row (:class:`ValueShape`) holds how messages say the value ("'KEY' must be PHRASE, not
..."), how the keys table of the README and docs/card-format.md says it
(made by tests/cardfile/keys_table.py, which checks them), its JSON Schema as a function of the key (range, pattern and
allowed values come from the :class:`~.keys.Key`; :mod:`.schema` puts the fragments
together), and what reads it in the loader: a method of
:class:`~.fields.FieldReader` that reads any key of the shape from the key's declaration
(``fields.read(ymap, key)``), or, for a value with reading of its own (a note's choices,
a typed answer, the study block, masks), the functions that read it (:class:`ReadBy`).
A new shape is one row here (and, when its reading is not a FieldReader method's, the
code that reads it).

This module sits between the declaration (:mod:`.keys`) and everything that says or
reads a value: it imports only the declaration, so the loader's modules can ask it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deckbuilder import deck_options
from deckbuilder.cardfile.keys import (
    CARD_TEMPLATE,
    CHOICE,
    FIELDS,
    ID_PATTERN,
    LANG_PATTERN,
    MASK,
    NOTE_FIRST,
    NOTE_LAST,
    NOTE_TYPE_DECLARATION,
    NOTE_TYPES,
    NUMBER,
    NUMBER_PATTERN,
    STUDY,
    Key,
    NoteType,
    Shape,
    note_keys,
)
from deckbuilder.templates import TTS_LANGUAGE


@dataclass(frozen=True)
class ReadBy:
    """The functions of the loader that read a value of a shape with reading of its own,
    as ``module.function`` under :mod:`deckbuilder.cardfile` (a test resolves each)."""

    functions: tuple[str, ...]


@dataclass(frozen=True)
class ValueShape:
    """One value shape, as every part of the card format says or reads it."""

    phrase: str  # messages: "'KEY' must be PHRASE, not ..."
    words: str  # the keys table of the docs
    schema: Callable[[Key], dict[str, Any]]  # the value's JSON Schema, without description
    # What reads it: the name of a FieldReader method taking (ymap, key), which
    # FieldReader.read calls; or the loader's own functions for it.
    reader: str | ReadBy


def value_schema(key: Key) -> dict[str, Any]:
    """The JSON Schema of ``key``'s value, without its description: its shape's."""
    return SHAPES[key.shape].schema(key)


def _anchored(pattern: str) -> str:
    return f"^(?:{pattern})$"


# Scalars the loader reads as text: YAML writes numbers and true/false without quotes, and
# the loader keeps what was typed ("1.10" stays "1.10").
_SCALAR = ["string", "number", "boolean"]
_NON_BLANK = r"\S"


def _described(key: Key, fragment: dict[str, Any]) -> dict[str, Any]:
    out = {"description": _description(key), **fragment}
    if key.default is not None:
        out["default"] = list(key.default) if isinstance(key.default, tuple) else key.default
    return out


def _description(key: Key) -> str:
    default = f" Default: {key.default_text}." if key.default_text else ""
    return f"{key.doc}{default}"


def _speech_language(key: Key) -> dict[str, Any]:
    """A speech language as the loader takes it (ko_KR, en_US; blank: the default), or the
    same per language."""
    code = TTS_LANGUAGE.pattern.removesuffix("\\Z")
    plain = {"type": "string", "pattern": rf"^\s*(?:{code})?\s*$"}
    return {"oneOf": [plain, _language_map(plain), {"type": "null"}]}


def _language_map(plain: dict[str, Any], reserved: tuple[str, ...] = ()) -> dict[str, Any]:
    """A map from language code to ``plain`` (needs the deck's ``languages``)."""
    names: dict[str, Any] = {"pattern": _anchored(LANG_PATTERN)}
    if reserved:  # the keys of a choice mapping, which are no language
        names["not"] = {"enum": list(reserved)}
    return {
        "type": "object",
        "description": "The text per language (codes from the deck's 'languages').",
        "propertyNames": names,
        "additionalProperties": plain,
        "minProperties": 1,
    }


def _text(key: Key, reserved: tuple[str, ...] = ()) -> dict[str, Any]:
    """Markdown text (or one line of it), or the same per language."""
    plain: dict[str, Any] = {"type": _SCALAR}
    if key.pattern:
        plain = {"type": "string", "pattern": key.pattern}
    elif key.required:
        plain["pattern"] = _NON_BLANK
    either = [plain, _language_map(plain, reserved)]
    if not key.required:
        either.append({"type": "null"})
    return {"oneOf": either}


def _deck_name() -> dict[str, Any]:
    # One line of parts joined by '::', none of them blank (white space around the whole
    # name is dropped).
    char, seen = r"(?:[^:\t\n]|:(?!:))", r"(?:[^:\s]|:(?!:))"
    part = f"{char}*{seen}{char}*"
    plain = {"type": _SCALAR, "pattern": rf"^\s*{part}(?:::{part})*\s*$"}
    return {"oneOf": [plain, _language_map(plain)]}


def _one_or_list(item: dict[str, Any], key: Key) -> dict[str, Any]:
    many: dict[str, Any] = {"type": "array", "items": item}
    if key.low is not None:
        many["minItems"] = int(key.low)
    if key.high is not None:
        many["maxItems"] = int(key.high)
    return {"oneOf": [item, many]}


def _choices(key: Key) -> dict[str, Any]:
    reserved = tuple(k.name for k in CHOICE)
    mapping = mapping_schema(CHOICE, "A choice with feedback: {text: Mars, feedback: ...}.")
    one = {"description": "One choice.", "oneOf": [*_text(key, reserved)["oneOf"], mapping]}
    return {
        "type": "array",
        "minItems": int(key.low or 0),
        "maxItems": int(key.high or 0),
        "items": one,
    }


def _number_mapping() -> dict[str, Any]:
    """A typed answer's number: ``{number:, tolerance:}`` or ``{min:, max:}``."""
    number, tolerance, low, high, unit = NUMBER
    unit_text = value_schema(unit)
    with_tolerance = {
        "type": "object",
        "description": "A number, maybe with a tolerance: {number: 4, tolerance: 0.5}.",
        "properties": {
            number.name: _described(number, _typed_number(number)),
            tolerance.name: _described(tolerance, _typed_number(tolerance)),
            unit.name: _described(unit, unit_text),
        },
        "required": [number.name],
        "additionalProperties": False,
    }
    a_range = {
        "type": "object",
        "description": "A range of numbers: {min: 3.141, max: 3.142}.",
        "properties": {
            **{k.name: _described(k, _typed_number(k)) for k in (low, high)},
            unit.name: _described(unit, unit_text),
        },
        "required": [low.name, high.name],
        "additionalProperties": False,
    }
    return {"oneOf": [with_tolerance, a_range]}


def _typed_number(key: Key) -> dict[str, Any]:
    # Written as a number; a quoted one is read as the number it spells.
    sign = "[+]?" if key.low == 0 else "[-+]?"
    spelled = NUMBER_PATTERN.removeprefix("[-+]?")
    number: dict[str, Any] = {"type": "number"}
    if key.low is not None:
        number["minimum"] = key.low
    return {"oneOf": [number, {"type": "string", "pattern": rf"^\s*{sign}{spelled}\s*$"}]}


def _typed_answers(key: Key) -> dict[str, Any]:
    text = {
        "type": _SCALAR,
        "description": "An accepted text, on one line.",
        "pattern": r"^\s*\S(?:[^\n]*\S)?\s*$",
    }
    return _one_or_list({"oneOf": [text, _number_mapping()]}, key)


def _letters() -> dict[str, Any]:
    letter = r"[A-Za-z]"
    return {
        "oneOf": [
            {"type": "string", "pattern": rf"^[\s,]*{letter}(?:[\s,]+{letter})*[\s,]*$"},
            {
                "type": "array",
                "items": {"type": "string", "pattern": rf"^\s*{letter}\s*$"},
                "minItems": 1,
            },
        ]
    }


def _tags(key: Key) -> dict[str, Any]:
    tag = {"type": _SCALAR, "pattern": r"^\s*\S+\s*$", "description": "One tag: no spaces."}
    return {"oneOf": [*_one_or_list(tag, key)["oneOf"], {"type": "null"}]}


def _files(key: Key) -> dict[str, Any]:
    name = {"type": _SCALAR, "pattern": _NON_BLANK, "description": "A file name in media/."}
    return {"oneOf": [*_one_or_list(name, key)["oneOf"], {"type": "null"}]}


def _codes(key: Key) -> dict[str, Any]:
    code = {"enum": list(key.values), "description": "A lint rule's code (docs/lint.md)."}
    return {"oneOf": [*_one_or_list(code, key)["oneOf"], {"type": "null"}]}


def _steps(key: Key) -> dict[str, Any]:
    step = {"type": "string", "pattern": _anchored(key.pattern or "")}
    return _one_or_list(step, key)


def _params(key: Key) -> dict[str, Any]:
    # py-fsrs's bounds, read when a schema is asked for (see deckbuilder.deck_options)
    param_bounds = zip(deck_options.LOWER_BOUNDS, deck_options.UPPER_BOUNDS, strict=True)
    bounds = [{"type": "number", "minimum": low, "maximum": high} for low, high in param_bounds]
    listed = {"type": "array", "items": bounds, "minItems": len(bounds), "maxItems": len(bounds)}
    return {"oneOf": [listed, {"type": "string"}, {"type": "null"}]}


def _pixels(count: int) -> dict[str, Any]:
    """``count`` positions or sizes in a picture's pixels."""
    pixel = {"type": "number", "minimum": 0}
    return {"type": "array", "minItems": count, "maxItems": count, "items": pixel}


_MASK_SHAPES = ("rect", "ellipse", "polygon")


def _mask_list(key: Key) -> dict[str, Any]:
    """An image occlusion note's 'masks': masks and labels, at least one of them a mask
    (labels alone would make no card)."""
    a_mask = {"anyOf": [{"required": [name]} for name in _MASK_SHAPES]}
    return {"type": "array", "items": _masks(), "contains": a_mask}


def _masks() -> dict[str, Any]:
    """One entry of an image occlusion note's 'masks': a mask or a label."""
    by_name = {key.name: key for key in MASK}
    mask_keys = tuple(by_name[name] for name in (*_MASK_SHAPES, "card"))
    label_keys = tuple(by_name[name] for name in ("text", "at", "size"))
    masks = [
        {
            **mapping_schema(mask_keys, f"A mask: a {name}, on a card."),
            "required": [name],
            "not": {"anyOf": [{"required": [other]} for other in _MASK_SHAPES if other != name]},
        }
        for name in _MASK_SHAPES
    ]
    label = mapping_schema(label_keys, "A label drawn on the picture: never a card.")
    label["required"] = ["text", "at"]
    text = label["properties"]["text"]
    label["properties"]["text"] = {**text, "type": _SCALAR, "pattern": _NON_BLANK}
    return {"oneOf": [*masks, label]}


def mapping_schema(keys: tuple[Key, ...], description: str) -> dict[str, Any]:
    """The JSON Schema of a mapping of ``keys`` (a deck, a study block, a choice...)."""
    out: dict[str, Any] = {
        "type": "object",
        "properties": {key.name: _described(key, value_schema(key)) for key in keys},
        "additionalProperties": False,
    }
    if description:
        out["description"] = description
    required = [key.name for key in keys if key.required]
    if required:
        out["required"] = required
    return out


def _note(note_type: NoteType) -> dict[str, Any]:
    kind = note_type.kind.value
    schema = mapping_schema(note_keys(note_type.kind), note_type.doc)
    schema["title"] = f"{kind} note"
    schema["properties"]["type"] = {
        "description": "The note type"
        + ("; may be left out when the keys make it obvious." if note_type.inferred else "."),
        "const": kind,
    }
    if not note_type.inferred:
        schema["required"].append("type")
    if kind == "basic":
        # 'add_reverse' is what Anki's optional reversed card keeps; 'reverse' is ours.
        schema["not"] = {"required": ["reverse", "add_reverse"]}
        # Anki makes the card of a basic note whose back is empty, and the loader takes
        # one: the back may be blank (the language map's entries share this text).
        schema["properties"]["back"]["oneOf"][0].pop("pattern", None)
    return schema


def _declared_note() -> dict[str, Any]:
    """A note of a note type the card file (or note-types/) declares: ``type: <key>``
    and its texts under ``fields:``."""
    schema = mapping_schema((*NOTE_FIRST, FIELDS, *NOTE_LAST), "A note of a declared note type.")
    schema["title"] = "note of a declared note type"
    schema["properties"]["type"] = {
        "description": "The key of a note type under 'note_types:' or in note-types/.",
        "type": "string",
        "pattern": _anchored(ID_PATTERN),
        "not": {"enum": [t.kind.value for t in NOTE_TYPES]},
    }
    schema["required"] = [*schema.get("required", []), "type", "fields"]
    return schema


# -- the schema of the shapes that are more than a line ---------------------------------------
def _url(key: Key) -> dict[str, Any]:
    return {
        "oneOf": [{"type": "string", "pattern": _anchored(key.pattern or "")}, {"type": "null"}]
    }


def _whole_or_number(key: Key) -> dict[str, Any]:
    kind = "integer" if key.shape is Shape.WHOLE else "number"
    return {"type": kind, "minimum": key.low, "maximum": key.high}


def _languages(key: Key) -> dict[str, Any]:
    code = {"type": "string", "pattern": _anchored(key.pattern or ""), "not": {"const": "all"}}
    return {"type": "array", "minItems": 1, "uniqueItems": True, "items": code}


def _notes(key: Key) -> dict[str, Any]:
    return {
        "type": "array",
        "minItems": int(key.low or 0),
        "maxItems": int(key.high or 0),
        "items": {"oneOf": [*(_note(t) for t in NOTE_TYPES), _declared_note()]},
    }


def _note_types(key: Key) -> dict[str, Any]:
    key_pattern = _anchored(ID_PATTERN)
    declaration = mapping_schema(NOTE_TYPE_DECLARATION, "A note type of the author's own.")
    return {
        "type": "object",
        "patternProperties": {key_pattern: declaration},
        "additionalProperties": False,
    }


def _field_texts(key: Key) -> dict[str, Any]:
    text = _text(key)
    return {"type": "object", "additionalProperties": {**text, "description": key.doc}}


def _field_names(key: Key) -> dict[str, Any]:
    name = {"type": "string", "pattern": _NON_BLANK}
    return {"type": "array", "minItems": int(key.low or 0), "uniqueItems": True, "items": name}


def _cards(key: Key) -> dict[str, Any]:
    card = mapping_schema(CARD_TEMPLATE, "One card: its front and back templates.")
    return {"type": "array", "minItems": 1, "items": card}


def _speak(key: Key) -> dict[str, Any]:
    text_key = {"type": "string", "pattern": _NON_BLANK}
    return {"oneOf": [text_key, {"type": "array", "items": text_key}, {"type": "null"}]}


def _unit(key: Key) -> dict[str, Any]:
    # A unit: text after the number, not starting with a digit or a sign.
    return {"type": _SCALAR, "pattern": r"^\s*[^\s0-9+\-.,]"}


def _box(key: Key) -> dict[str, Any]:
    # left and top may be 0, a width or height may not
    return {
        "type": "array",
        "items": [{"type": "number", "minimum": 0}] * 2
        + [{"type": "number", "exclusiveMinimum": 0}] * 2,
        "minItems": 4,
        "maxItems": 4,
    }


# -- the table ---------------------------------------------------------------------------------
_NOTE_TYPE_NAMES = ", ".join(t.record.key for t in NOTE_TYPES) + ", or a declared note type's key"

SHAPES: dict[Shape, ValueShape] = {
    Shape.TEXT: ValueShape("text", "text (Markdown)", _text, "read_text"),
    Shape.PLAIN: ValueShape(
        "text",
        "text (HTML, as Anki has it)",
        lambda key: {"type": [*_SCALAR, "null"]},
        "read_plain",
    ),
    Shape.DECK_NAME: ValueShape(
        "text", "text, one line", lambda key: _deck_name(), ReadBy(("deck._deck_name",))
    ),
    Shape.ID: ValueShape(
        "text",
        "id: a-z, 0-9, - and _",
        lambda key: {
            "type": ["string", "integer", "boolean"],
            "pattern": _anchored(key.pattern or ""),
        },
        ReadBy(("deck._deck_key", "notes._read_note")),
    ),
    Shape.GUID: ValueShape(
        "text",
        "printable ASCII, no spaces",
        lambda key: {"type": _SCALAR, "pattern": _anchored(key.pattern or "")},
        ReadBy(("notes.read_guid",)),
    ),
    Shape.NOTE_TYPE: ValueShape(
        "text",
        _NOTE_TYPE_NAMES,
        # each note's own 'type' is its note type's key: see _note
        lambda key: {"enum": [t.kind.value for t in NOTE_TYPES]},
        ReadBy(("notes._note_kind",)),
    ),
    Shape.LABEL: ValueShape(
        "text",
        "language code",
        lambda key: {"oneOf": [{"enum": list(key.values)}, {"type": "null"}]},
        ReadBy(("deck._label_language",)),
    ),
    Shape.FLAG: ValueShape(
        "true or false", "true or false", lambda key: {"type": "boolean"}, "read_flag"
    ),
    Shape.WHOLE: ValueShape(
        "a whole number like 20",
        "whole number",
        _whole_or_number,
        ReadBy(("study._whole", "occlusion._read_card", "declared._anki_id")),
    ),
    Shape.NUMBER: ValueShape(
        "a number like 0.9",
        "number",
        _whole_or_number,
        ReadBy(("study._number", "occlusion._number", "typed._read_number")),
    ),
    Shape.STEPS: ValueShape(
        "a list of steps like [1m, 10m]",
        "list of steps (30s, 10m, 1h, 1d)",
        _steps,
        ReadBy(("study._steps",)),
    ),
    Shape.PARAMS: ValueShape(
        "a list of 21 numbers",
        "list of 21 numbers, or text",
        _params,
        ReadBy(("study._parameters",)),
    ),
    Shape.PATH: ValueShape(
        "the path of a review history (collection.anki2, .colpkg or .apkg)",
        "path",
        lambda key: {"oneOf": [{"type": "string", "pattern": _NON_BLANK}, {"type": "null"}]},
        ReadBy(("study._history",)),
    ),
    Shape.TAGS: ValueShape("a tag or a list of tags", "tag or list of tags", _tags, "read_tags"),
    Shape.FILES: ValueShape(
        "a file name or a list of file names", "file name or list of them", _files, "read_tags"
    ),
    Shape.LINT: ValueShape(
        "a rule code or a list of them",
        "rule code or list of them",
        _codes,
        ReadBy(("notes.read_lint_opt_outs",)),
    ),
    Shape.LANGUAGES: ValueShape(
        "a list of language codes, e.g. [ko, en] (the first is the default)",
        "list of language codes",
        _languages,
        ReadBy(("deck.declared_languages",)),
    ),
    Shape.LETTERS: ValueShape(
        "a letter or a list of letters",
        "letter or list of letters",
        lambda key: _letters(),
        ReadBy(("notes._read_answer",)),
    ),
    Shape.CHOICES: ValueShape(
        "a list", "list of choices", _choices, ReadBy(("notes._read_choices",))
    ),
    Shape.ANSWERS: ValueShape(
        "an accepted answer, a list of them, or a number mapping",
        "text, number mapping, or a list of them",
        _typed_answers,
        ReadBy(("typed._read_answers",)),
    ),
    Shape.STUDY: ValueShape(
        "a mapping (new_per_day:, ...)",
        "mapping (the study keys)",
        lambda key: {"oneOf": [mapping_schema(STUDY, ""), {"type": "null"}]},
        ReadBy(("study.read_study",)),
    ),
    Shape.NOTES: ValueShape("a list", "list of notes", _notes, ReadBy(("notes.read_notes",))),
    Shape.NOTE_TYPES: ValueShape(
        "a mapping from a note type's key to its declaration (name:, fields:, cards:)",
        "mapping from key to note type declaration",
        _note_types,
        ReadBy(("declared.DeclaredTypes", "declared.read_declaration")),
    ),
    Shape.FIELD_TEXTS: ValueShape(
        "a mapping from field name to text",
        "mapping from field name to text",
        _field_texts,
        ReadBy(("declared.read_declared_note_fields",)),
    ),
    Shape.FIELD_NAMES: ValueShape(
        "a list of field names",
        "list of field names",
        _field_names,
        ReadBy(("declared._names",)),
    ),
    Shape.CARDS: ValueShape(
        "a list of cards, each {name:, front:, back:}",
        "list of card templates",
        _cards,
        ReadBy(("declared._cards",)),
    ),
    Shape.TYPE_KIND: ValueShape(
        "standard or cloze",
        "standard or cloze",
        lambda key: {"enum": list(key.values)},
        ReadBy(("declared._kind",)),
    ),
    Shape.SPEAK: ValueShape(
        "a text key of the note or a list of them, e.g. [question]",
        "text key or list of them",
        _speak,
        "read_tags",
    ),
    Shape.LOCALE: ValueShape(
        "a speech language like ko_KR or en_US",
        "speech language (ko_KR, en_US)",
        _speech_language,
        ReadBy(("deck._speak_language",)),
    ),
    Shape.PICTURE: ValueShape(
        "a picture's file name in media/ (PNG, JPEG, GIF, WebP or SVG)",
        "file name in media/",
        lambda key: {"type": "string", "pattern": _NON_BLANK},
        "read_text",
    ),
    Shape.MODE: ValueShape(
        "hide-all or hide-one",
        "hide-all or hide-one",
        lambda key: {"oneOf": [{"enum": list(key.values)}, {"type": "null"}]},
        ReadBy(("occlusion._read_mode",)),
    ),
    Shape.MASKS: ValueShape(
        "a list of masks ({rect: [left, top, width, height]}, {ellipse: ...}, "
        "{polygon: [[x, y], ...]}) and labels ({text: RA, at: [x, y]})",
        "list of masks and labels",
        _mask_list,
        ReadBy(("occlusion._read_masks",)),
    ),
    Shape.BOX: ValueShape(
        "[left, top, width, height] in the picture's pixels",
        "[left, top, width, height]",
        _box,
        ReadBy(("occlusion._read_entry",)),
    ),
    Shape.POINTS: ValueShape(
        "a list of at least 3 points, [x, y] each, in the picture's pixels",
        "list of [x, y]",
        lambda key: {"type": "array", "minItems": 3, "items": _pixels(2)},
        ReadBy(("occlusion._read_points",)),
    ),
    Shape.POINT: ValueShape(
        "[x, y] in the picture's pixels",
        "[x, y]",
        lambda key: _pixels(2),
        ReadBy(("occlusion._read_label",)),
    ),
    Shape.URL: ValueShape(
        "a web address like https://example.org/cards",
        "web address (https://...)",
        _url,
        ReadBy(("deck._source_url",)),
    ),
    Shape.UNIT: ValueShape(
        "a unit like mg, km/h or °C", "text, one line", _unit, ReadBy(("typed._read_unit",))
    ),
}
