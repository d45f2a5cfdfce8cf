"""The JSON Schema of the card format, for editors (completion, inline errors) and tools.

The loader (:mod:`deckbuilder.cardfile.reader`) is the authority; this schema describes the same
contract and the tests hold the two together (same keys, and the schema's own examples
pass both). Draft-07, which yaml-language-server and most editors understand best.
"""

from __future__ import annotations

from typing import Any

__all__ = ["EXAMPLES", "card_schema"]

ID_PATTERN = "^[a-z0-9][a-z0-9_-]*$"
LANG_PATTERN = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"  # load.LANG_RE
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


def _localized(plain: dict[str, Any]) -> dict[str, Any]:
    """``plain``, or a map from language code to ``plain`` (needs the deck's ``languages``)."""
    return {
        "type": "object",
        "description": "The text per language (codes from the deck's 'languages').",
        "propertyNames": {"pattern": LANG_PATTERN},
        "additionalProperties": plain,
        "minProperties": 1,
    }


def _text(description: str, **plain_extra: Any) -> dict[str, Any]:
    plain = {"type": ["string", "number", "boolean"], **plain_extra}
    return {
        "description": description + " Markdown; or a map from language code to text "
        "({ko: ..., en: ...}) in a deck with 'languages'.",
        "oneOf": [plain, _localized(plain)],
    }


def _tags(description: str) -> dict[str, Any]:
    tag = {"type": "string", "pattern": r"^\S+$", "description": "One Anki tag: no spaces."}
    return {
        "description": description,
        "oneOf": [{"type": "array", "items": tag, "uniqueItems": True}, tag],
    }


def _note(
    kind: str, description: str, props: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    common = {
        "id": {
            "description": "Stable key of the note, unique in the file. Never change it once "
            "the deck is shared: Anki recognises the note by it.",
            "type": "string",
            "pattern": ID_PATTERN,
        },
        "type": {
            "description": "Note type; may be omitted when the keys make it obvious.",
            "const": kind,
        },
        "tags": _tags("Tags for this note, added to the deck's tags."),
        "lint": _lint_opt_outs(),
        "guid": {
            "description": "The GUID Anki knows this note by, written by 'deckbuilder import' "
            "for a note from an Anki collection; keep it as imported.",
            "type": "string",
            "pattern": r"^[!-~]{1,100}$",
        },
    }
    return {
        "title": f"{kind} note",
        "description": description,
        "type": "object",
        "properties": {**common, **props},
        "required": ["id", *required],
        "additionalProperties": False,
    }


def _lint_opt_outs() -> dict[str, Any]:
    from deckbuilder.lint.codes import RULES

    code = {"enum": list(RULES), "description": "A lint rule's code (docs/lint.md)."}
    return {
        "description": "Lint rules this note opts out of, for a flaw that is intended "
        "(deckbuilder lint then says nothing of it).",
        "oneOf": [{"type": "array", "items": code, "uniqueItems": True}, code],
    }


def _choice_with_feedback() -> dict[str, Any]:
    # 'text' (required) does not match LANG_PATTERN, so this never overlaps a language map.
    return {
        "type": "object",
        "description": "A choice with feedback, e.g. {text: Mars, feedback: Mars is the "
        "fourth planet.}",
        "properties": {
            "text": _text("The choice."),
            "feedback": _text(
                "Shown on the back of the card under this choice when it was picked, and "
                "under the right choices."
            ),
            "pin": {
                "description": "Keep this choice in its place while the others shuffle "
                '(for "None of the above"); default false.',
                "type": "boolean",
            },
        },
        "required": ["text"],
        "additionalProperties": False,
    }


def _study() -> dict[str, Any]:
    step = {
        "type": "string",
        "pattern": r"^[0-9]+(\.[0-9]+)?\s*[smhd]$",
        "description": "A step in Anki's notation: 30s, 10m, 1h, 1d.",
    }
    return {
        "description": "The study preset that travels with the deck (Anki's deck options). "
        'Anki applies it when "Import deck presets" is ticked. Defaults are Anki\'s.',
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "new_per_day": {
                "description": "New cards per day (default 20).",
                "type": "integer",
                "minimum": 0,
                "maximum": 9999,
            },
            "review_limit": {
                "description": "Maximum reviews per day (default 200).",
                "type": "integer",
                "minimum": 0,
                "maximum": 9999,
            },
            "desired_retention": {
                "description": "FSRS desired retention, 0.70 to 0.99 (default 0.9).",
                "type": "number",
                "minimum": 0.7,
                "maximum": 0.99,
            },
            "learning_steps": {
                "description": "Learning steps (default [1m, 10m]).",
                "type": "array",
                "items": step,
            },
            "relearning_steps": {
                "description": "Relearning steps (default [10m]).",
                "type": "array",
                "items": step,
            },
            "maximum_interval": {
                "description": "Maximum interval in days (default 36500).",
                "type": "integer",
                "minimum": 1,
                "maximum": 36500,
            },
            "params": {
                "description": "The 21 FSRS-6 parameters the preview uses (default: FSRS-6's), "
                "a list or comma-separated as Anki's deck options show them. Preview only.",
                "oneOf": [
                    {"type": "array", "items": {"type": "number"}, "minItems": 21, "maxItems": 21},
                    {"type": "string"},
                ],
            },
            "history": {
                "description": "A review history (collection.anki2, .colpkg, or .apkg with "
                "scheduling), relative to the card file, to fit the preview's FSRS parameters "
                "from; params wins over it. Preview only.",
                "type": "string",
            },
        },
    }


def _typed_note() -> dict[str, Any]:
    number = {"type": "number", "description": "The number."}
    low = {"type": "number", "description": "The smallest accepted number."}
    high = {"type": "number", "description": "The largest accepted number."}
    accepted = {
        "oneOf": [
            {"type": ["string", "number"], "description": "An accepted text, on one line."},
            {
                "type": "object",
                "description": "A number, with an optional tolerance: {number: 4, tolerance: 0.5}.",
                "properties": {
                    "number": number,
                    "tolerance": {
                        "type": "number",
                        "minimum": 0,
                        "description": "How far from the number an answer may be (default 0).",
                    },
                },
                "required": ["number"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "description": "A range of numbers: {min: 3.141, max: 3.142}.",
                "properties": {"min": low, "max": high},
                "required": ["min", "max"],
                "additionalProperties": False,
            },
        ]
    }
    note = _note(
        "typed",
        "The learner types the answer; the card judges it. One card.",
        {
            "question": _text("The question."),
            "answer": {
                "description": "The accepted answer, or a list of them: texts (compared "
                "ignoring surrounding space and, unless match_case, case) or numbers.",
                "oneOf": [
                    accepted,
                    {"type": "array", "items": accepted, "minItems": 1, "maxItems": 100},
                ],
            },
            "explanation": _text("Shown on the back."),
            "match_case": {
                "description": "Compare texts with their case (default false).",
                "type": "boolean",
            },
        },
        ["type", "question", "answer"],
    )
    note["properties"]["type"]["description"] = "Note type: 'typed' is required here."
    return note


def card_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a deckbuilder card file."""
    letter = {"type": "string", "pattern": "^[A-Za-z]$"}
    deck_name = {
        "type": "string",
        "minLength": 1,
        "pattern": r"^(?!.*::\s*::)(?!\s*::)(?!.*::\s*$).*\S.*$",
    }
    mcq = _note(
        "mcq",
        "A multiple-choice question: one card.",
        {
            "question": _text("The question."),
            "choices": {
                "description": "2 to 26 distinct answers; the first is A. Shuffled on the "
                "card unless shuffle is false.",
                "type": "array",
                "minItems": 2,
                "maxItems": 26,
                "items": {
                    "description": "One choice: its text, or a mapping of its text and "
                    "its feedback.",
                    "oneOf": [_text("One choice."), _choice_with_feedback()],
                },
            },
            "answer": {
                "description": "The right choice's letter (A = first), or a list of letters "
                'for "choose all that apply".',
                "oneOf": [
                    {"type": "string", "pattern": r"^\s*[A-Za-z](\s*[,\s]\s*[A-Za-z])*\s*$"},
                    {"type": "array", "items": letter, "minItems": 1, "uniqueItems": True},
                ],
            },
            "explanation": _text("Shown on the back."),
            "shuffle": {
                "description": "Shuffle the choices on each review (default true).",
                "type": "boolean",
            },
        },
        ["question", "choices", "answer"],
    )
    cloze = _note(
        "cloze",
        "A cloze deletion: one card per {{cN::...}} number.",
        {
            "text": _text(
                "The text with deletions: {{c1::answer}} or {{c1::answer::hint}}.",
                type="string",
                pattern=r"\{\{c[0-9]+::",
            ),
            "extra": _text("Shown on the back."),
        },
        ["text"],
    )
    basic = _note(
        "basic",
        "A plain question and answer: one card (two with reverse: true).",
        {
            "front": _text("The question side."),
            "back": _text("The answer side."),
            "reverse": {
                "description": "Also make a second card that shows the back and asks for "
                'the front (Anki\'s "Basic (and reversed card)"). Default false.',
                "type": "boolean",
            },
            "add_reverse": {
                "description": 'The "Add Reverse" field of Anki\'s "Basic (optional reversed '
                'card)", written by deckbuilder import: the reversed card exists when it is '
                "not empty. Not together with reverse.",
                "type": "string",
            },
        },
        ["front", "back"],
    )
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "deckbuilder card file",
        "description": "One Anki deck of quiz cards, built with `deckbuilder build`.",
        "type": "object",
        "properties": {
            "deck": {
                "description": 'Anki deck name; "::" nests decks, e.g. "ML Systems::Checkpointing". '
                "In a deck with 'languages', a map from language code to name, or one name "
                'that each language\'s deck gets with " (<code>)" appended.',
                "oneOf": [deck_name, _localized(deck_name)],
            },
            "id": {
                "description": "Stable deck key (the package is output/<id>.apkg). Default: "
                "the file name without .yaml.",
                "type": "string",
                "pattern": ID_PATTERN,
            },
            "languages": {
                "description": "The languages of a bilingual deck, default first, e.g. "
                "[ko, en]. Any text may then be a map from language code to text; each "
                "language builds its own package, <id>.<code>.apkg.",
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"type": "string", "pattern": LANG_PATTERN, "not": {"const": "all"}},
            },
            "label_language": {
                "description": "The language of the words multiple-choice cards add "
                "(Correct, Explanation) in a deck without 'languages': en or ko. Default: "
                "Korean when most notes are written in Korean, else English; every card "
                "of the deck uses the same.",
                "enum": ["en", "ko"],
            },
            "description": _text("Shown in Anki's deck overview."),
            "tags": _tags("Tags added to every note of the deck."),
            "study": _study(),
            "notes": {
                "description": "The notes of the deck, in order.",
                "type": "array",
                "minItems": 1,
                "items": {"oneOf": [mcq, cloze, basic, _typed_note()]},
            },
        },
        "required": ["deck", "notes"],
        "additionalProperties": False,
        "examples": EXAMPLES,
    }
