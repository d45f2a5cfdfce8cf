"""The JSON Schema of the card format, for editors (completion, inline errors) and tools.

Built from the declaration of every key (:mod:`.keys`): each key's shape, range, pattern,
default and documentation. The loader is the authority on what loads; a property test
holds the two together (what this schema accepts loads, what loads this schema accepts),
and lists what JSON Schema cannot say (an answer letter beyond the choices, two notes
with one id...). Draft-07, which yaml-language-server and most editors understand best.
"""

from __future__ import annotations

from typing import Any

from deckbuilder import deck_options
from deckbuilder.cardfile.keys import (
    CARD_TEMPLATE,
    CHOICE,
    DECK,
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

__all__ = ["EXAMPLES", "card_schema"]

SCHEMA_ID = "https://deckbuilder.invalid/card-file.schema.json"

EXAMPLES: list[dict[str, Any]] = [
    {
        "deck": "ML Systems::Gradient Checkpointing",
        "id": "gradient-checkpointing",
        "description": "Trading recomputation for activation memory.",
        "tags": ["ml-systems"],
        "study": {
            "new_per_day": 10,
            "review_limit": 100,
            "desired_retention": 0.9,
            "learning_steps": ["1m", "10m"],
        },
        "notes": [
            {
                "id": "tradeoff",
                "type": "mcq",
                "question": "What does gradient checkpointing mainly trade for lower memory?",
                "choices": ["Extra computation (recomputation)", "Model accuracy", "Disk space"],
                "answer": "A",
                "explanation": "Activations are recomputed during the backward pass.",
                "shuffle": True,
                "tags": ["basics"],
            },
            {
                "id": "which-prime",
                "question": "Which of these are prime?",
                "choices": [
                    "2",
                    {"text": "4", "feedback": "4 = 2 * 2."},
                    "5",
                ],
                "answer": ["A", "C"],
            },
            {
                "id": "sqrt-schedule",
                "type": "cloze",
                "text": "Checkpoints every {{c1::√N}} layers give {{c2::O(√N)::memory?}} memory.",
                "extra": "Shown on the back.",
            },
            {"id": "term", "type": "basic", "front": "Activation", "back": "A layer's output."},
        ],
    },
    {
        "deck": {"ko": "ML 시스템::체크포인팅", "en": "ML Systems::Checkpointing"},
        "id": "checkpointing",
        "languages": ["ko", "en"],
        "notes": [
            {
                "id": "tradeoff",
                "question": {
                    "ko": "그래디언트 체크포인팅은 무엇을 치르고 메모리를 아낍니까?",
                    "en": "What does gradient checkpointing trade for lower memory?",
                },
                "choices": [
                    {"ko": "추가 계산", "en": "Extra computation"},
                    {
                        "text": {"ko": "정확도", "en": "Accuracy"},
                        "feedback": {
                            "ko": "정확도는 그대로입니다.",
                            "en": "Accuracy stays the same.",
                        },
                    },
                    "`torch.optim.SGD`",
                ],
                "answer": "A",
            },
            {
                "id": "store",
                "text": {
                    "ko": "활성화는 {{c1::역전파}}에 필요하다.",
                    "en": "Activations are needed by {{c1::backpropagation}}.",
                },
            },
        ],
    },
]


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
    mapping = _mapping(CHOICE, "A choice with feedback: {text: Mars, feedback: ...}.")
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
    # A unit: text after the number, not starting with a digit or a sign.
    unit_text = {"type": _SCALAR, "pattern": r"^\s*[^\s0-9+\-.,]"}
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
    name = {"type": "string", "pattern": _NON_BLANK, "description": "A file name in media/."}
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


def _value(key: Key) -> dict[str, Any]:
    """The JSON Schema of ``key``'s value, without its description."""
    shape = key.shape
    if shape is Shape.TEXT:
        return _text(key)
    if shape is Shape.DECK_NAME:
        return _deck_name()
    if shape is Shape.PLAIN:
        return {"type": [*_SCALAR, "null"]}
    if shape is Shape.ID:
        return {"type": ["string", "integer", "boolean"], "pattern": _anchored(key.pattern or "")}
    if shape is Shape.GUID:
        return {"type": _SCALAR, "pattern": _anchored(key.pattern or "")}
    if shape is Shape.LABEL:
        return {"oneOf": [{"enum": list(key.values)}, {"type": "null"}]}
    if shape is Shape.NOTE_TYPE:
        return {"enum": [t.kind.value for t in NOTE_TYPES]}  # each note's own: see _note
    if shape is Shape.FLAG:
        return {"type": "boolean"}
    if shape in (Shape.WHOLE, Shape.NUMBER):
        kind = "integer" if shape is Shape.WHOLE else "number"
        return {"type": kind, "minimum": key.low, "maximum": key.high}
    if shape is Shape.STEPS:
        return _steps(key)
    if shape is Shape.PARAMS:
        return _params(key)
    if shape is Shape.URL:
        return {
            "oneOf": [{"type": "string", "pattern": _anchored(key.pattern or "")}, {"type": "null"}]
        }
    if shape is Shape.PATH:
        return {"oneOf": [{"type": "string", "pattern": _NON_BLANK}, {"type": "null"}]}
    if shape is Shape.TAGS:
        return _tags(key)
    if shape is Shape.FILES:
        return _files(key)
    if shape is Shape.LINT:
        return _codes(key)
    if shape is Shape.LANGUAGES:
        code = {"type": "string", "pattern": _anchored(key.pattern or ""), "not": {"const": "all"}}
        return {"type": "array", "minItems": 1, "uniqueItems": True, "items": code}
    if shape is Shape.LETTERS:
        return _letters()
    if shape is Shape.CHOICES:
        return _choices(key)
    if shape is Shape.ANSWERS:
        return _typed_answers(key)
    if shape is Shape.STUDY:
        return {"oneOf": [_mapping(STUDY, ""), {"type": "null"}]}
    if shape is Shape.NOTES:
        return {
            "type": "array",
            "minItems": int(key.low or 0),
            "maxItems": int(key.high or 0),
            "items": {"oneOf": [*(_note(t) for t in NOTE_TYPES), _declared_note()]},
        }
    if shape is Shape.NOTE_TYPES:
        key_pattern = _anchored(ID_PATTERN)
        declaration = _mapping(NOTE_TYPE_DECLARATION, "A note type of the author's own.")
        return {
            "type": "object",
            "patternProperties": {key_pattern: declaration},
            "additionalProperties": False,
        }
    if shape is Shape.FIELD_TEXTS:
        text = _text(key)
        return {"type": "object", "additionalProperties": {**text, "description": key.doc}}
    if shape is Shape.FIELD_NAMES:
        name = {"type": "string", "pattern": _NON_BLANK}
        return {"type": "array", "minItems": int(key.low or 0), "uniqueItems": True, "items": name}
    if shape is Shape.CARDS:
        card = _mapping(CARD_TEMPLATE, "One card: its front and back templates.")
        return {"type": "array", "minItems": 1, "items": card}
    if shape is Shape.TYPE_KIND:
        return {"enum": list(key.values)}
    if shape is Shape.SPEAK:
        text_key = {"type": "string", "pattern": _NON_BLANK}
        return {"oneOf": [text_key, {"type": "array", "items": text_key}, {"type": "null"}]}
    if shape is Shape.LOCALE:
        return _text(key)
    if shape is Shape.PICTURE:
        return {"type": "string", "pattern": _NON_BLANK}
    if shape is Shape.MODE:
        return {"oneOf": [{"enum": list(key.values)}, {"type": "null"}]}
    if shape is Shape.BOX:  # left and top may be 0, a width or height may not
        return {
            "type": "array",
            "items": [{"type": "number", "minimum": 0}] * 2
            + [{"type": "number", "exclusiveMinimum": 0}] * 2,
            "minItems": 4,
            "maxItems": 4,
        }
    if shape is Shape.POINT:
        return _pixels(2)
    if shape is Shape.POINTS:
        return {"type": "array", "minItems": 3, "items": _pixels(2)}
    if shape is Shape.MASKS:
        return {"type": "array", "minItems": 1, "items": _masks()}
    raise AssertionError(f"no schema for {shape}")  # pragma: no cover - every shape is above


def _pixels(count: int) -> dict[str, Any]:
    """``count`` positions or sizes in a picture's pixels."""
    pixel = {"type": "number", "minimum": 0}
    return {"type": "array", "minItems": count, "maxItems": count, "items": pixel}


def _masks() -> dict[str, Any]:
    """One entry of an image occlusion note's 'masks': a mask or a label."""
    by_name = {key.name: key for key in MASK}
    shapes = [name for name in ("rect", "ellipse", "polygon")]
    mask_keys = tuple(by_name[name] for name in (*shapes, "card"))
    label_keys = tuple(by_name[name] for name in ("text", "at", "size"))
    masks = [
        {
            **_mapping(mask_keys, f"A mask: a {name}, on a card."),
            "required": [name],
            "not": {"anyOf": [{"required": [other]} for other in shapes if other != name]},
        }
        for name in shapes
    ]
    label = _mapping(label_keys, "A label drawn on the picture: never a card.")
    label["required"] = ["text", "at"]
    text = label["properties"]["text"]
    label["properties"]["text"] = {**text, "type": _SCALAR, "pattern": _NON_BLANK}
    return {"oneOf": [*masks, label]}


def _mapping(keys: tuple[Key, ...], description: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "object",
        "properties": {key.name: _described(key, _value(key)) for key in keys},
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
    schema = _mapping(note_keys(note_type.kind), note_type.doc)
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
    schema = _mapping((*NOTE_FIRST, FIELDS, *NOTE_LAST), "A note of a declared note type.")
    schema["title"] = "note of a declared note type"
    schema["properties"]["type"] = {
        "description": "The key of a note type under 'note_types:' or in note-types/.",
        "type": "string",
        "pattern": _anchored(ID_PATTERN),
        "not": {"enum": [t.kind.value for t in NOTE_TYPES]},
    }
    schema["required"] = [*schema.get("required", []), "type", "fields"]
    return schema


def card_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a deckbuilder card file."""
    schema = _mapping(DECK, "One Anki deck of quiz cards, built with `deckbuilder build`.")
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "deckbuilder card file",
        **schema,
        # The cards of a deck with 'languages' show each language's own labels.
        "dependencies": {
            "languages": {
                "properties": {
                    "label_language": {
                        "description": "Not in a deck with 'languages'.",
                        "const": None,
                    }
                }
            }
        },
        "examples": EXAMPLES,
    }
