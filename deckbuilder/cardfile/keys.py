"""The card format, declared once: every key a card file may hold, where, of what shape,
with its range or pattern, default, one line of documentation and an example.

Everything else that knows the format is derived from this module: the loader's known
keys, the JSON Schema (:mod:`.schema`), the order in which the writer (:mod:`.writer`)
puts keys, and the keys table of the README and docs/card-format.md (made and checked by
tests/cardfile/keys_table.py).
What is said of a key's value by its shape (the words of "must be ..." messages and of
the docs, its JSON Schema, what reads it) is the shape's row in :mod:`.shapes`. A new key
is one entry here (and the code that puts its value into the model).

The note types are the core's (:data:`deckbuilder.note_types.BUILT_IN`: names, fields,
which texts speak); what this module adds to one is what its notes say in a card file
(:class:`NoteType`: its keys, their documentation, the names authors mistake for it),
attached to the record itself rather than to a list of kinds of its own. The core cannot
import the card format, so the attachment is made here, one way: a built-in type a card
file can write is one with an entry in :data:`NOTE_TYPES` (Anki's "Basic (and reversed
card)" has none: a basic note with ``reverse: true`` uses it), and every other question
about the type is asked of its record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from deckbuilder.cloze import HIGHEST_CARD_NUMBER
from deckbuilder.deck_options import (
    ANKI_MAX_INTERVAL,
    ANKI_PER_DAY_MAX,
    ANKI_RETENTION_RANGE,
    PARAMETER_COUNT,
)
from deckbuilder.model import LINT_RULES, MAX_CHOICES, NoteKind, StudySettings
from deckbuilder.note_types import BUILT_IN, BuiltinType, built_in
from deckbuilder.occlusion import DEFAULT_TEXT_SIZE, MaskShape, OcclusionMode

# Patterns, without anchors (the loader matches them whole, the schema anchors them).
ID_PATTERN = "[a-z0-9][a-z0-9_-]*"  # deck and note ids: they name packages and keep notes
LANG_PATTERN = "[a-z]{2,3}(-[A-Za-z0-9]{2,8})*"  # BCP 47 shape: ko, en, pt-BR, zh-Hant
# What Anki writes as a GUID (base-91 text, ten characters or so): printable, no spaces.
# Anki accepts longer ones from other tools; 100 characters leave room for those.
GUID_PATTERN = "[!-~]{1,100}"
# A web address a card may link to: http or https, printable ASCII without spaces, quotes
# or angle brackets (written into the card's HTML as it is).
URL_PATTERN = "https?://[!#-;=?-~]+"
STEP_PATTERN = r"[0-9]+(\.[0-9]+)?\s*[smhd]"  # Anki's notation: 30s, 10m, 1h, 1d
# A typed answer's number: YAML's own number forms, less hex and octal.
NUMBER_PATTERN = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
# The languages the multiple-choice template has labels in (LABELS in notetypes/mcq/mcq.js).
LABEL_LANGUAGES = {"en": "English", "ko": "Korean"}
MAX_ANSWERS = 100  # accepted answers of a typed-answer note
# Limit against absurd input (documented in README, "Limits").
MAX_NOTES = 100_000


class Shape(str, Enum):
    """What a key's value is. How messages and the docs say it, its JSON Schema and what
    reads it are its row of :data:`deckbuilder.cardfile.shapes.SHAPES`."""

    TEXT = "text"  # Markdown; a map from language code to text in a deck with 'languages'
    PLAIN = "plain"  # text as Anki has it, in no language map
    UNIT = "unit"  # a typed number's unit, one line
    DECK_NAME = "deck-name"
    ID = "id"
    GUID = "guid"
    NOTE_TYPE = "note-type"
    LABEL = "label"
    FLAG = "flag"
    WHOLE = "whole"
    NUMBER = "number"
    STEPS = "steps"
    PARAMS = "params"
    PATH = "path"
    TAGS = "tags"
    FILES = "files"
    LINT = "lint"
    LANGUAGES = "languages"
    LETTERS = "letters"
    CHOICES = "choices"
    ANSWERS = "answers"
    STUDY = "study"
    NOTES = "notes"
    NOTE_TYPES = "note-types"
    FIELD_TEXTS = "field-texts"
    FIELD_NAMES = "field-names"
    CARDS = "cards"
    TYPE_KIND = "type-kind"
    SPEAK = "speak"
    LOCALE = "locale"
    PICTURE = "picture"
    MODE = "mode"
    MASKS = "masks"
    BOX = "box"
    POINTS = "points"
    POINT = "point"
    URL = "url"


@dataclass(frozen=True)
class Key:
    """One key of the card format."""

    name: str
    shape: Shape
    doc: str  # one line, for authors
    example: str  # the value as written after 'name: '
    required: bool = False
    # The value a missing key takes, as the model holds it (None: none, or one the loader
    # works out, which ``default_doc`` then says).
    default: Any = None
    default_doc: str = ""
    low: float | None = None  # a number's range, or a list's length
    high: float | None = None
    pattern: str | None = None  # what a text must match (unanchored)
    values: tuple[str, ...] = ()  # the only texts allowed, when there is such a list
    # Written by 'deckbuilder import' to keep what the source had, rarely by hand: the
    # README's table leaves it to docs/card-format.md.
    by_import: bool = False

    @property
    def localized(self) -> bool:
        """Whether a deck with 'languages' may give the value per language."""
        return self.shape in (
            Shape.TEXT,
            Shape.DECK_NAME,
            Shape.CHOICES,
            Shape.FIELD_TEXTS,
            Shape.LOCALE,
        )

    @property
    def default_text(self) -> str:
        """The default as the card file would write it ('' when there is none)."""
        if self.default_doc:
            return self.default_doc
        if self.default is None:
            return ""
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if self.shape is Shape.STEPS:
            return "[" + ", ".join(step_text(s) for s in self.default) + "]"
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)


@dataclass(frozen=True)
class NoteType:
    """A built-in note type as the card format has it: its record (what 'type:' says is
    the record's key), and its notes' own keys."""

    record: BuiltinType
    doc: str
    keys: tuple[Key, ...]
    # Whether a note without 'type:' is taken to be of this type when it uses its keys
    # (a typed-answer note's keys are also a question's, so it needs 'type: typed').
    inferred: bool = True
    # What authors write when they mean this type, for "did you mean" (compared in
    # lowercase, with '_' and ' ' read as '-').
    aliases: tuple[str, ...] = ()

    @property
    def kind(self) -> NoteKind:
        return NoteKind(self.record.key)


def step_text(seconds: float) -> str:
    """A step in seconds as Anki's deck options write it: 60 -> '1m', 90 -> '90s'."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


_STUDY = StudySettings()
_RETENTION_LOW, _RETENTION_HIGH = ANKI_RETENTION_RANGE

DECK: tuple[Key, ...] = (
    Key(
        "deck",
        Shape.DECK_NAME,
        "The Anki deck name; \"::\" nests decks. In a deck with 'languages', one name per "
        'language, or one name that each language\'s deck gets with " (<code>)" appended.',
        "ML Systems::Gradient Checkpointing",
        default_doc="the card file's folders below cards/ and its name: "
        "cards/Biology/Cells.yaml is Biology::Cells",
    ),
    Key(
        "id",
        Shape.ID,
        "The stable deck key: the package is output/<id>.apkg. Never change it once shared.",
        "gradient-checkpointing",
        default_doc="the file name made an id: Cells.yaml is cells",
        pattern=ID_PATTERN,
    ),
    Key(
        "languages",
        Shape.LANGUAGES,
        "The languages of a bilingual deck, default first. Any text may then be a map from "
        "language code to text; each language builds its own package, <id>.<code>.apkg.",
        "[ko, en]",
        low=1,
        pattern=LANG_PATTERN,
    ),
    Key(
        "label_language",
        Shape.LABEL,
        "The language of the words multiple-choice cards add (Correct, Explanation) in a "
        "deck without 'languages'; every card of the deck uses the same.",
        "ko",
        default_doc="ko when most notes are written in Korean, else en",
        values=tuple(LABEL_LANGUAGES),
    ),
    Key("description", Shape.TEXT, "Shown in Anki's deck overview.", "Trading compute for memory."),
    Key("tags", Shape.TAGS, "Tags added to every note of the deck.", "[ml-systems]"),
    Key(
        "missing_media",
        Shape.FILES,
        "Media files the cards name that the source of an import did not have, written by "
        "'deckbuilder import': check and build warn about each until it is in media/ "
        "(Anki shows nothing in its place); then delete its name here.",
        "[diagram.png]",
        by_import=True,
    ),
    Key(
        "speak",
        Shape.SPEAK,
        "Texts every card of the deck speaks aloud (Anki's text to speech), by their key: "
        "question, front, back, explanation or extra; a note's own 'speak' wins.",
        "[question]",
    ),
    Key(
        "speak_language",
        Shape.LOCALE,
        "The language the cards speak in, as Anki's speech names it.",
        "ko_KR",
        default_doc="each language's (ko: ko_KR, en: en_US...), or the deck's label language",
    ),
    Key(
        "source_url",
        Shape.URL,
        "The web address of the card file's folder (its repository's, say): the back of "
        "each card then links to the card file, labelled with the note's id.",
        "https://github.com/me/decks/blob/main/cards",
        pattern=URL_PATTERN,
    ),
    Key(
        "study",
        Shape.STUDY,
        "The study preset that travels with the deck (Anki's deck options, applied when "
        '"Import deck presets" is ticked), and what the preview studies with.',
        "{new_per_day: 10, desired_retention: 0.9}",
        default_doc="Anki's default preset",
    ),
    Key(
        "note_types",
        Shape.NOTE_TYPES,
        "Note types of the author's own, by the key notes name in 'type:' (one used by "
        "several card files goes in note-types/<key>.yaml at the project root).",
        "{vocab: {fields: [Korean, English], cards: [{name: Recognition, front: "
        "'{{Korean}}', back: '{{FrontSide}}<hr id=answer>{{English}}'}]}}",
    ),
    Key(
        "notes",
        Shape.NOTES,
        "The notes of the deck, in order.",
        "[{id: term, front: Activation, back: A layer's output.}]",
        required=True,
        low=1,
        high=MAX_NOTES,
    ),
)

STUDY: tuple[Key, ...] = (
    Key(
        "new_per_day",
        Shape.WHOLE,
        "New cards a day.",
        "10",
        default=_STUDY.new_per_day,
        low=0,
        high=ANKI_PER_DAY_MAX,
    ),
    Key(
        "review_limit",
        Shape.WHOLE,
        "Reviews a day at most.",
        "100",
        default=_STUDY.review_limit,
        low=0,
        high=ANKI_PER_DAY_MAX,
    ),
    Key(
        "desired_retention",
        Shape.NUMBER,
        "FSRS desired retention: the chance of recalling a card when it is due.",
        "0.9",
        default=_STUDY.desired_retention,
        low=_RETENTION_LOW,
        high=_RETENTION_HIGH,
    ),
    Key(
        "learning_steps",
        Shape.STEPS,
        "Learning steps of new cards, in Anki's notation (30s, 10m, 1h, 1d).",
        "[1m, 10m]",
        default=_STUDY.learning_steps,
        pattern=STEP_PATTERN,
    ),
    Key(
        "relearning_steps",
        Shape.STEPS,
        "Relearning steps of forgotten cards.",
        "[10m]",
        default=_STUDY.relearning_steps,
        pattern=STEP_PATTERN,
    ),
    Key(
        "maximum_interval",
        Shape.WHOLE,
        "The longest interval, in days.",
        "36500",
        default=_STUDY.maximum_interval,
        low=1,
        high=ANKI_MAX_INTERVAL,
    ),
    Key(
        "params",
        Shape.PARAMS,
        "The 21 FSRS-6 parameters the preview studies with, as a list or as Anki's deck "
        "options show them (comma-separated). Preview only.",
        "[0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, "
        "0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, "
        "0.1542]",
        default_doc="FSRS-6's defaults",
        low=PARAMETER_COUNT,
        high=PARAMETER_COUNT,
    ),
    Key(
        "history",
        Shape.PATH,
        "A review history (collection.anki2, .colpkg, or .apkg with scheduling), relative "
        "to the card file, to fit the preview's FSRS parameters from; params wins over it. "
        "Preview only.",
        "../collection.anki2",
    ),
)

NOTE_FIRST: tuple[Key, ...] = (
    Key(
        "id",
        Shape.ID,
        "The note's stable key, unique in the file: Anki recognises the note by it, so "
        "never change it once the deck is shared.",
        "tradeoff",
        required=True,
        pattern=ID_PATTERN,
    ),
    Key(
        "guid",
        Shape.GUID,
        "The GUID Anki knows the note by, written by 'deckbuilder import' for a note from "
        "an Anki collection; keep it as imported.",
        "bX7q9kL2mz",
        default_doc="derived from the deck and note ids",
        pattern=GUID_PATTERN,
        by_import=True,
    ),
    Key(
        "type",
        Shape.NOTE_TYPE,
        "The note type; may be left out when the keys make it obvious (not for typed).",
        "mcq",
        default_doc="the type whose keys the note uses",
    ),
)
# The field texts of a note of a declared note type ('type: <key>').
FIELDS = Key(
    "fields",
    Shape.FIELD_TEXTS,
    "The texts of a note of a declared note type, by field name (Markdown, like every "
    "text; a field the note type declares raw keeps its HTML). Fields left out are empty.",
    "{Korean: 안녕하세요, English: hello}",
)

# One note type an author declares: under 'note_types:' by its key, or alone in
# note-types/<key>.yaml.
NOTE_TYPE_DECLARATION: tuple[Key, ...] = (
    Key(
        "name",
        Shape.PLAIN,
        "Anki's name for the note type.",
        "Korean vocabulary",
        default_doc="the key",
    ),
    Key(
        "fields",
        Shape.FIELD_NAMES,
        "The fields, in order.",
        "[Korean, Romanization, English, Example]",
        required=True,
        low=1,
    ),
    Key(
        "sort_field",
        Shape.PLAIN,
        "The field Anki's browser sorts by.",
        "English",
        default_doc="the first field",
    ),
    Key(
        "kind",
        Shape.TYPE_KIND,
        "standard: a card per template whose front shows a filled field; cloze: one "
        "template with {{cloze:Field}}, a card per deletion number.",
        "cloze",
        default="standard",
        values=("standard", "cloze"),
    ),
    Key(
        "cards",
        Shape.CARDS,
        "The card templates, in Anki's template language ({{Field}}, {{#Field}}...{{/Field}}, "
        "{{FrontSide}}, {{cloze:Field}}, {{type:Field}}, {{tts ko_KR:Field}}).",
        "[{name: Recognition, front: '{{Korean}}', back: '{{FrontSide}}<hr id=answer>{{English}}'}]",
        required=True,
        low=1,
    ),
    Key("css", Shape.PLAIN, "The note type's CSS.", ".card { font-size: 24px; }"),
    Key(
        "raw",
        Shape.FIELD_NAMES,
        "Fields whose text is HTML kept as written, not Markdown.",
        "[Audio]",
    ),
    Key(
        "anki_id",
        Shape.WHOLE,
        "Anki's id of the note type, kept by 'deckbuilder import' so that a build updates "
        "the same note type in the collection.",
        "1342697561419",
        default_doc="derived from the key",
        low=1,
        high=2**63 - 1,
    ),
    Key(
        "keep_scripts",
        Shape.FLAG,
        "For a note type from an imported package (with anki_id): keep what its templates "
        "and CSS run or fetch (scripts, remote pictures and style sheets), which import "
        "removes unless asked with --keep-scripts.",
        "true",
        default=False,
    ),
)
# One card of a declared note type.
CARD_TEMPLATE: tuple[Key, ...] = (
    Key("name", Shape.PLAIN, "The card's name.", "Recognition", default_doc="Card 1, Card 2..."),
    Key("front", Shape.PLAIN, "The front template.", "{{Korean}}", required=True),
    Key(
        "back",
        Shape.PLAIN,
        "The back template.",
        "{{FrontSide}}<hr id=answer>{{English}}",
        required=True,
    ),
)

NOTE_LAST: tuple[Key, ...] = (
    Key("tags", Shape.TAGS, "Tags of this note, besides the deck's.", "[basics]"),
    Key(
        "speak",
        Shape.SPEAK,
        "Texts this note's cards speak aloud, by their key (question, front, back, "
        "explanation, extra); [] for none. A note of a declared type speaks through "
        "{{tts}} in its templates.",
        "[front]",
        default_doc="the deck's 'speak'",
    ),
    Key(
        "lint",
        Shape.LINT,
        "Lint rules this note opts out of, for a flaw that is intended (docs/lint.md).",
        "[longest-correct]",
        values=tuple(LINT_RULES),
    ),
)


def _explanation(where: str = "the back") -> Key:
    return Key("explanation", Shape.TEXT, f"Shown on {where}.", "Activations are recomputed.")


def _question() -> Key:
    return Key("question", Shape.TEXT, "The question.", "What is traded for memory?", required=True)


_NOTE_TYPES = (
    NoteType(
        built_in("mcq"),
        "A multiple-choice question: one card.",
        (
            _question(),
            Key(
                "choices",
                Shape.CHOICES,
                "The answers to choose from, A first: each a text, or {text:, feedback:, "
                "pin:}. Shuffled on the card unless shuffle is false.",
                "[Extra computation, Accuracy, Disk space]",
                required=True,
                low=2,
                high=MAX_CHOICES,
            ),
            Key(
                "answer",
                Shape.LETTERS,
                'The right choice\'s letter, or a list of letters for "choose all that apply".',
                "A",
                required=True,
                low=1,
            ),
            _explanation(),
            Key(
                "shuffle",
                Shape.FLAG,
                "Shuffle the choices on each review.",
                "false",
                default=True,
            ),
        ),
        aliases=(
            "multiple-choice",
            "multiplechoice",
            "multi-choice",
            "choice",
            "choices",
            "quiz",
            "mc",
            "mcqs",
        ),
    ),
    NoteType(
        built_in("cloze"),
        "A cloze deletion: one card per {{cN::...}} number.",
        (
            Key(
                "text",
                Shape.TEXT,
                "The text with deletions: {{c1::answer}} or {{c1::answer::hint}}.",
                "Checkpoints every {{c1::√N}} layers.",
                required=True,
                pattern=r"\{\{c[0-9]+::",
            ),
            Key("extra", Shape.TEXT, "Shown on the back.", "From Chen et al., 2016."),
        ),
        aliases=("fill-in", "fill-in-the-blank", "blank", "blanks", "gap", "deletion"),
    ),
    NoteType(
        built_in("basic"),
        "A question and its answer: one card (two with reverse: true).",
        (
            Key("front", Shape.TEXT, "The question side.", "Activation", required=True),
            Key("back", Shape.TEXT, "The answer side.", "A layer's output.", required=True),
            Key(
                "reverse",
                Shape.FLAG,
                "Also make a card that shows the back and asks for the front, when the back "
                'is not empty (Anki\'s "Basic (and reversed card)").',
                "true",
                default=False,
            ),
            Key(
                "add_reverse",
                Shape.PLAIN,
                'The "Add Reverse" field of Anki\'s "Basic (optional reversed card)", '
                "written by 'deckbuilder import': the reversed card exists when it and the "
                "back are not empty. Not together with reverse.",
                "y",
                by_import=True,
            ),
        ),
        aliases=("flashcard", "card", "front-back", "qa", "simple", "reversed"),
    ),
    NoteType(
        built_in("typed"),
        "The learner types the answer and the card judges it: one card.",
        (
            _question(),
            Key(
                "answer",
                Shape.ANSWERS,
                "The accepted answer or a list of them: texts on one line, or numbers "
                "({number: 4, tolerance: 0.5} or {min: 3, max: 5}; unit: mg).",
                "[no one, nobody]",
                required=True,
                low=1,
                high=MAX_ANSWERS,
            ),
            _explanation(),
            Key(
                "match_case",
                Shape.FLAG,
                "Compare texts with their case (texts are always compared without the "
                "spaces around them).",
                "true",
                default=False,
            ),
        ),
        inferred=False,
        aliases=("type", "typing", "type-in", "input", "short-answer", "text-input", "answer"),
    ),
    NoteType(
        built_in("image-occlusion"),
        "A picture with masks over its parts, in Anki's own Image Occlusion note type: one "
        "card per card number, whose front hides that card's masks.",
        (
            Key(
                "image",
                Shape.PICTURE,
                "The picture, from media/ like any picture.",
                "heart.png",
                required=True,
            ),
            Key("header", Shape.TEXT, "Shown above the picture.", "Chambers of the heart"),
            Key("back_extra", Shape.TEXT, "Shown on the back.", "Blood enters through the atria."),
            Key("comments", Shape.TEXT, "Anki's Comments field: shown on no card.", "From Gray's."),
            Key(
                "mode",
                Shape.MODE,
                "hide-all: the front hides every mask, the card's own in Anki's active colour; "
                "hide-one: only the card's own.",
                "hide-one",
                default=OcclusionMode.HIDE_ALL.value,
                values=tuple(mode.value for mode in OcclusionMode),
            ),
            Key(
                "masks",
                Shape.MASKS,
                "The masks, each a card (1, 2, 3... in order unless 'card' says), and labels.",
                "[{rect: [120, 40, 80, 60]}, {text: RA, at: [200, 120]}]",
                required=True,
                low=1,
            ),
        ),
        aliases=("occlusion", "image", "io", "image-occlusion-enhanced", "picture"),
    ),
)

# The built-in note types a card file's 'type:' may say, in the registry's order.
NOTE_TYPES: tuple[NoteType, ...] = tuple(
    sorted(_NOTE_TYPES, key=lambda t: list(BUILT_IN).index(t.record.key))
)


# One entry of an image occlusion note's 'masks': a mask (one of rect, ellipse, polygon,
# maybe with card) or a label (text and at, maybe with size).
MASK: tuple[Key, ...] = (
    Key(
        MaskShape.RECT.value,
        Shape.BOX,
        "A rectangle: left, top, width, height, in the picture's pixels.",
        "[120, 40, 80, 60]",
    ),
    Key(
        MaskShape.ELLIPSE.value,
        Shape.BOX,
        "An ellipse, by the box around it: left, top, width, height.",
        "[300, 200, 40, 30]",
    ),
    Key(
        MaskShape.POLYGON.value,
        Shape.POINTS,
        "A polygon, by its corners.",
        "[[10, 10], [60, 10], [35, 50]]",
    ),
    Key(
        "card",
        Shape.WHOLE,
        "The card the mask is on: masks with one number hide together on one card.",
        "2",
        default_doc="one more than the highest card of the masks before it",
        low=1,
        high=HIGHEST_CARD_NUMBER,
    ),
    Key("text", Shape.PLAIN, "A label drawn on the picture, on every card; never a card.", "RA"),
    Key("at", Shape.POINT, "Where a label's top-left corner is.", "[200, 120]"),
    Key(
        "size",
        Shape.NUMBER,
        "A label's font size, in the picture's pixels.",
        "24",
        default=DEFAULT_TEXT_SIZE,
        low=1,
        high=10_000,
    ),
)

# A choice written as a mapping. Neither key can be a language code, so such a choice
# is never taken for a language map.
CHOICE: tuple[Key, ...] = (
    Key("text", Shape.TEXT, "The choice.", "Mars", required=True),
    Key(
        "feedback",
        Shape.TEXT,
        "Shown on the back under this choice when it was picked, and under the right ones.",
        "Mars is the fourth planet.",
    ),
    Key(
        "pin",
        Shape.FLAG,
        'Keep this choice in its place while the others shuffle (for "None of the above").',
        "true",
        default=False,
    ),
)

# A typed-answer note's number: 'number' (with 'tolerance'), or 'min' and 'max'.
NUMBER: tuple[Key, ...] = (
    Key("number", Shape.NUMBER, "The number.", "3.1416"),
    Key(
        "tolerance",
        Shape.NUMBER,
        "How far from the number an answer may be.",
        "0.0005",
        default=0.0,
        low=0,
    ),
    Key("min", Shape.NUMBER, "The smallest accepted number.", "3.141"),
    Key("max", Shape.NUMBER, "The largest accepted number.", "3.142"),
    Key(
        "unit",
        Shape.UNIT,
        "The number's unit: accepted typed after it or not (500 mg, 500mg, 500), and shown "
        "with it on the card.",
        "mg",
    ),
)


# Every key name of the card format: a line holding one and then text, with no colon
# between them ('front x'), is a key whose colon was left out.
KEY_NAMES = frozenset(
    key.name
    for keys in (
        DECK,
        STUDY,
        NOTE_FIRST,
        NOTE_LAST,
        NOTE_TYPE_DECLARATION,
        CARD_TEMPLATE,
        MASK,
        CHOICE,
        NUMBER,
        *(t.keys for t in NOTE_TYPES),
    )
    for key in keys
)

# The texts of each kind of note a card can speak (BuiltinType.spoken): spoken where the
# card shows them.
SPOKEN: dict[NoteKind, tuple[str, ...]] = {
    t.kind: tuple(key for key, _ in t.record.spoken) for t in NOTE_TYPES if t.record.spoken
}


def key_names(keys: tuple[Key, ...]) -> tuple[str, ...]:
    return tuple(key.name for key in keys)


def keyed(keys: tuple[Key, ...]) -> dict[str, Key]:
    """``keys`` by name, for the reader of a mapping of them."""
    return {key.name: key for key in keys}


def note_keys(kind: NoteKind) -> tuple[Key, ...]:
    """Every key a note of ``kind`` may have, in the order the writer puts them."""
    return NOTE_FIRST + note_type(kind).keys + NOTE_LAST


def note_type(kind: NoteKind) -> NoteType:
    return next(t for t in NOTE_TYPES if t.kind is kind)


def note_type_named(written: str) -> NoteType | None:
    """The note type an author most likely meant by ``written`` (``MCQ``, ``cloze``,
    ``multiple-choice``), or None; the caller tells "is" from "did you mean"."""
    loose = re.sub(r"[\s_]+", "-", written.strip().lower())
    for note in NOTE_TYPES:
        if loose == note.record.key or loose in note.aliases:
            return note
    return None
