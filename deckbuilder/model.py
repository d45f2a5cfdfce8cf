"""The deck model: frozen dataclasses, no I/O.

Text fields hold the author's Markdown source (already NFC-normalised); turning it into
HTML is the job of :mod:`deckbuilder.render.markdown`, at packaging or preview time.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import ClassVar

from deckbuilder import cloze
from deckbuilder.errors import Problem
from deckbuilder.note_types import NoteType, built_in
from deckbuilder.occlusion import Label, Mask, OcclusionMode
from deckbuilder.templates import field_is_empty


class NoteKind(str, Enum):
    """The note types deckbuilder writes."""

    MCQ = "mcq"
    CLOZE = "cloze"
    BASIC = "basic"
    TYPED = "typed"
    # A picture with masks over its parts, in Anki's own Image Occlusion note type.
    IMAGE_OCCLUSION = "image-occlusion"
    # The note type of basic notes with ``reverse: true`` (two templates); such notes are
    # still of kind BASIC, and no card file says ``type: basic-reversed``.
    BASIC_REVERSED = "basic-reversed"
    # Anki's "Basic (optional reversed card)", kept from the collection a deck was imported
    # from: basic notes with ``add_reverse:`` (its third field). No card file says
    # ``type: basic-optional-reversed``; deckbuilder has no note type of its own for it.
    BASIC_OPTIONAL_REVERSED = "basic-optional-reversed"
    # A note of a note type the author declares (or an import brings): its fields and
    # cards are the note type's (FieldsNote.note_type).
    DECLARED = "declared"

    def __str__(self) -> str:
        return self.value


# The lint rules' codes, each with the one line ``deckbuilder lint`` and the docs give it
# (docs/lint.md gives each rule's reason). A note's ``lint: [code, ...]`` opts it out of
# some (Note.lint_ignored): the card loader checks those codes here, without loading the
# rules (deckbuilder.lint).
LINT_RULES: dict[str, str] = {
    "above-choice": '"all/none of the above" among choices that move',
    "choice-reference": "a choice names other choices by letter or position while they move",
    "longest-correct": "the right choice is clearly longer than every other choice",
    "negative-stem": "a negative question (NOT, EXCEPT, 아닌, 틀린...) without emphasis",
    "duplicate-question": "the same question (or nearly) in another note",
    "cloze-hides-all": "a cloze deletion hides nearly all of its text",
    "front-equals-back": "a basic card's back repeats its front",
    "answer-position": "with shuffling off, the right answers pile up on one letter",
    "number-unit": "a typed number is accepted alone while the note writes it with a unit",
}


MAX_CHOICES = 26  # one letter each


def letter(index: int) -> str:
    """0 -> 'A', 25 -> 'Z'."""
    return chr(ord("A") + index)


def choice_letters(count: int) -> str:
    """The letters of ``count`` choices, as a message names them: 'A-C', 'only A'."""
    if count < 1:
        return "a choice letter"
    return "only A" if count == 1 else f"A-{letter(min(count, MAX_CHOICES) - 1)}"


@dataclass(frozen=True)
class Note:
    """Fields every note has. ``id`` is the author's stable key, unique within its deck."""

    kind: ClassVar[NoteKind]
    id: str
    line: int
    tags: tuple[str, ...] = ()
    # Line of each text field in the card file, keyed like texts() (for precise messages).
    field_lines: Mapping[str, int] = field(default_factory=dict, compare=False)
    # Where the lines of a text field written over several lines start, keyed like
    # field_lines: (offset in the text, line in the card file) pairs, by offset. A field
    # on one line has none: its line is its field line.
    text_lines: Mapping[str, tuple[tuple[int, int], ...]] = field(
        default_factory=dict, compare=False
    )
    # Lint rules this note opts out of (``lint: [code, ...]``): flaws the author intends.
    # They change nothing on the card.
    lint_ignored: tuple[str, ...] = field(default=(), compare=False)
    # The GUID Anki knows the note by when it came from a collection (``guid:``, written
    # by ``deckbuilder import``); '' for a note whose GUID is derived from its ids.
    guid: str = ""
    # The keys of the texts its cards speak aloud (``speak:``, its own or the deck's), in
    # the deck's speak_language.
    speak: tuple[str, ...] = ()

    def field_line(self, key: str) -> int:
        return self.field_lines.get(key, self.line)

    def line_in(self, key: str, offset: int) -> int:
        """The line of the card file holding character ``offset`` of the text of ``key``
        (its field line when the text is on one line, or ``offset`` is negative)."""
        starts = self.text_lines.get(key)
        if not starts or offset < 0:
            return self.field_line(key)
        index = bisect_right(starts, (offset, float("inf"))) - 1
        return starts[max(index, 0)][1]

    def line_of(self, key: str, part: str) -> int:
        """The line of the card file where ``part`` first stands in the text of ``key``."""
        return self.line_in(key, self.texts().get(key, "").find(part) if part else -1)

    @property
    def card_ordinals(self) -> tuple[int, ...]:
        """The cards Anki makes for this note, as 0-based card ordinals: the one rule the
        counts, the package writer and the preview page share (tests/test_card_rule.py
        checks it against Anki). As its note type's record counts them
        (BuiltinType.cards): here a card per template, since each template's front shows
        a field every note fills (one for multiple choice and typed); the kinds counted
        otherwise say how."""
        return built_in(self.kind).template_ordinals

    @property
    def card_count(self) -> int:
        return len(self.card_ordinals)

    @property
    def type_key(self) -> str:
        """What the note's ``type:`` says: its kind, or the key of its declared note type."""
        return self.kind.value

    def texts(self) -> dict[str, str]:
        """Every text field by its YAML key, in field order."""
        raise NotImplementedError


@dataclass(frozen=True)
class McqNote(Note):
    kind: ClassVar[NoteKind] = NoteKind.MCQ
    question: str = ""
    choices: tuple[str, ...] = ()
    answer: tuple[int, ...] = ()  # 0-based indexes into choices, sorted
    explanation: str = ""
    shuffle: bool = True
    # What the back of the card says beside a choice (GIFT's per-answer feedback): one
    # text per choice, '' where a choice has none; () when no choice has any.
    feedback: tuple[str, ...] = ()
    # 0-based indexes of the choices that keep their place while the others shuffle
    # (``pin: true``, for "None of the above"), sorted; () when none does.
    pinned: tuple[int, ...] = ()

    @property
    def multi(self) -> bool:
        return len(self.answer) > 1

    def choice_feedback(self, index: int) -> str:
        """The feedback of choice ``index`` ('' for none)."""
        return self.feedback[index] if index < len(self.feedback) else ""

    @property
    def answer_letters(self) -> tuple[str, ...]:
        return tuple(letter(i) for i in self.answer)

    def texts(self) -> dict[str, str]:
        out = {"question": self.question}
        for i, choice in enumerate(self.choices):
            out[f"choices[{i}]"] = choice
            if self.choice_feedback(i):
                out[f"choices[{i}].feedback"] = self.choice_feedback(i)
        out["explanation"] = self.explanation
        return out


@dataclass(frozen=True)
class ClozeNote(Note):
    kind: ClassVar[NoteKind] = NoteKind.CLOZE
    text: str = ""
    extra: str = ""

    @cached_property
    def card_ordinals(self) -> tuple[int, ...]:
        # Parsed once per note: the counts, the package and the page all ask.
        # Anki reads the deletions of every field, the extra one too.
        return cloze.card_ordinals(self.text, self.extra)

    def texts(self) -> dict[str, str]:
        return {"text": self.text, "extra": self.extra}


@dataclass(frozen=True)
class BasicNote(Note):
    kind: ClassVar[NoteKind] = NoteKind.BASIC
    front: str = ""
    back: str = ""
    # ``reverse: true``: a second card asks the back for the front, as Anki's
    # "Basic (and reversed card)" does (note type BASIC_REVERSED).
    reverse: bool = False
    # ``add_reverse:``, the "Add Reverse" field of a note of Anki's "Basic (optional
    # reversed card)" (HTML, as Anki has it; None for other notes): Anki makes the second
    # card only when it is not empty, so ``reverse`` is then whether it is.
    add_reverse: str | None = None

    @property
    def card_ordinals(self) -> tuple[int, ...]:
        # A card per template of the note type it is written in, but the reversed card's
        # front shows the back alone (as Anki's "Card 2" does), and Anki makes no card of
        # a front that shows only empty fields.
        if self.reverse and not field_is_empty(self.back):
            return built_in("basic-reversed").template_ordinals
        return built_in("basic").template_ordinals

    def texts(self) -> dict[str, str]:
        return {"front": self.front, "back": self.back}


@dataclass(frozen=True)
class TypedAnswer:
    """One accepted answer of a typed-answer note: a text, or a number in a closed range
    (a number with a tolerance is the range around it). ``shown`` is how the back of the
    card writes it."""

    text: str = ""
    low: float | None = None  # both set for a number, both None for a text
    high: float | None = None
    shown: str = ""
    # A number's unit ('mg'): accepted typed after the number or not, shown after it.
    unit: str = ""

    @classmethod
    def around(cls, number: str, tolerance: str = "0", unit: str = "") -> TypedAnswer:
        """``number`` give or take ``tolerance``, as the source writes them (numbers both):
        shown '1822 \u00b1 2', or '1822' when the tolerance is zero."""
        value, within = float(number), float(tolerance)
        shown = number if within == 0 else f"{number} \u00b1 {tolerance}"
        return cls(low=value - within, high=value + within, shown=shown, unit=unit)

    @classmethod
    def between(cls, low: str, high: str, unit: str = "") -> TypedAnswer:
        """From ``low`` to ``high``, as the source writes them: shown '3 \u2013 5'."""
        return cls(low=float(low), high=float(high), shown=f"{low} \u2013 {high}", unit=unit)

    @property
    def is_number(self) -> bool:
        return self.low is not None

    @property
    def shown_with_unit(self) -> str:
        """How the back of the card writes the answer: '500 mg', '3 \u2013 5 mg'."""
        return f"{self.shown} {self.unit}" if self.unit else self.shown


@dataclass(frozen=True)
class TypedNote(Note):
    """The learner types the answer; the card's script judges it against ``answers``."""

    kind: ClassVar[NoteKind] = NoteKind.TYPED
    question: str = ""
    answers: tuple[TypedAnswer, ...] = ()
    explanation: str = ""
    match_case: bool = False

    def texts(self) -> dict[str, str]:
        out = {"question": self.question}
        for i, answer in enumerate(self.answers):
            if not answer.is_number:
                out[f"answer[{i}]"] = answer.text
        out["explanation"] = self.explanation
        return out


@dataclass(frozen=True)
class ImageOcclusionNote(Note):
    """A picture with masks over its parts (:mod:`deckbuilder.occlusion`): one card per
    card number, whose front hides that number's masks."""

    kind: ClassVar[NoteKind] = NoteKind.IMAGE_OCCLUSION
    image: str = ""  # the picture, as the card file names it (media/)
    header: str = ""
    back_extra: str = ""
    comments: str = ""  # Anki's Comments field: on no card
    mode: OcclusionMode = OcclusionMode.HIDE_ALL
    # The masks and labels in the order they are written, which is the order Anki draws
    # them in (a later one over an earlier one).
    shapes: tuple[Mask | Label, ...] = ()

    @property
    def masks(self) -> tuple[Mask, ...]:
        return tuple(shape for shape in self.shapes if isinstance(shape, Mask))

    @cached_property
    def card_ordinals(self) -> tuple[int, ...]:
        return tuple(sorted({mask.card - 1 for mask in self.masks}))

    def texts(self) -> dict[str, str]:
        out = {"header": self.header, "back_extra": self.back_extra, "comments": self.comments}
        for i, shape in enumerate(self.shapes):
            if isinstance(shape, Label):
                out[f"masks[{i}]"] = shape.text
        return out


@dataclass(frozen=True)
class FieldsNote(Note):
    """A note of a declared note type: its fields' texts, in the note type's field order
    ('' for a field the note leaves out)."""

    kind: ClassVar[NoteKind] = NoteKind.DECLARED
    note_type: NoteType = field(default_factory=lambda: NoteType("", "", (), ()))
    fields: tuple[str, ...] = ()

    @cached_property
    def card_ordinals(self) -> tuple[int, ...]:
        return self.note_type.card_ordinals(self.fields, tags=bool(self.tags))

    @property
    def type_key(self) -> str:
        return self.note_type.key

    def texts(self) -> dict[str, str]:
        names = self.note_type.fields
        return {f"fields.{name}": text for name, text in zip(names, self.fields, strict=True)}


@dataclass(frozen=True)
class StudySettings:
    """The deck's study preset (Anki's deck options). Defaults are Anki's defaults.

    These are the one set of study defaults: a key the study block leaves out takes its
    default here, and a deck with no study block is previewed with all of them, since
    Anki gives such a deck its default preset. Steps are in seconds; Anki's notation
    ("1m", "10m", "1d") is parsed by the loader.
    """

    new_per_day: int = 20
    review_limit: int | None = 200  # None: no limit (a forecast's what-if, never a block's)
    desired_retention: float = 0.9
    learning_steps: tuple[float, ...] = (60.0, 600.0)
    relearning_steps: tuple[float, ...] = (600.0,)
    maximum_interval: int = 36500
    line: int = field(default=0, compare=False)  # where the study block starts, 0 if absent
    # What the preview (not the package) studies with: FSRS parameters (None: the
    # defaults), or a review history to fit them from (``params`` wins over it).
    parameters: tuple[float, ...] | None = None
    history: Path | None = None  # resolved against the card file's folder
    history_line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class StudyOverrides:
    """Study settings a preview asks for over the deck's own (None: the deck's own)."""

    desired_retention: float | None = None
    new_per_day: int | None = None
    review_limit: int | None = None

    def given(self) -> tuple[str, ...]:
        """The names of the values given (StudySettings' names), in field order."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) is not None)

    def over(self, study: StudySettings) -> StudySettings:
        """``study`` with the values given here in place of its own."""
        return replace(study, **{name: getattr(self, name) for name in self.given()})


@dataclass(frozen=True)
class Deck:
    """One card file: an Anki deck and its notes."""

    key: str  # the stable deck id from the file (``id:``), e.g. "gradient-checkpointing"
    name: str  # the Anki deck name; "::" nests
    source: Path
    notes: tuple[Note, ...] = ()
    description: str = ""
    tags: tuple[str, ...] = ()
    # Media files the cards name that the deck does not have yet (an import whose source
    # lacked them): a warning each, not a problem, until they are in media/.
    missing_media: tuple[str, ...] = ()
    media_dirs: tuple[Path, ...] = field(default=(), compare=False)
    study: StudySettings | None = None  # None: the file has no study block
    # A bilingual file gives one Deck per language (key "<id>.<lang>"); "" for a file
    # without ``languages:``. ``languages`` is what the file declares, default first.
    lang: str = ""
    languages: tuple[str, ...] = ()
    # The language of the multiple-choice template's own words (Correct, Explanation) in
    # a deck without ``languages:``, chosen once for the whole deck so that every card
    # says them alike; '' lets each card's template decide (a deck with ``languages:``
    # uses ``lang``).
    label_language: str = ""
    # The note types of the author's own that the notes use (see FieldsNote).
    note_types: tuple[NoteType, ...] = ()
    # Anki's own note types that the notes of a built-in kind are built with, kept from
    # the collection the deck was imported from, each under that kind's key ('basic',
    # 'cloze', ...; see deckbuilder.note_types.KEPT_SHAPES).
    kept_types: tuple[NoteType, ...] = ()
    # The language the notes' spoken texts (Note.speak) are spoken in, as Anki's text to
    # speech names it ("ko_KR"); '' when no note speaks.
    speak_language: str = ""
    # The web address of the card file's folder (``source_url:``): each card's back links
    # to the card file, labelled with the note's id; '' for none.
    source_url: str = ""
    # Worth telling the author, found while loading (e.g. a --fallback to the default
    # language); the renderer passes them on in RenderedDeck.warnings.
    warnings: tuple[Problem, ...] = field(default=(), compare=False)
    # What tells the card file's bytes, as they were read, from any other version of it
    # ('' for a deck made in memory): a build checks that the file is still that before
    # it writes, since an editor that saves in place can be caught halfway.
    source_digest: str = field(default="", compare=False)

    @property
    def card_count(self) -> int:
        return sum(cards for _, cards in self._counts.values())

    def counts(self) -> dict[str, tuple[int, int]]:
        """(notes, cards) per note type (:attr:`Note.type_key`): the built-in kinds in
        NoteKind order, then declared note types in order of first use; kinds with no
        notes left out."""
        return dict(self._counts)

    @cached_property
    def _counts(self) -> dict[str, tuple[int, int]]:
        # Counted once per deck: a cloze note's cards are found by parsing its text, and a
        # build asks for the counts several times (preview, summary, JSON).
        order = {kind.value: number for number, kind in enumerate(NoteKind)}
        counts: dict[str, list[int]] = {}
        for note in self.notes:
            entry = counts.setdefault(note.type_key, [0, 0])
            entry[0] += 1
            entry[1] += note.card_count
        keys = sorted(counts, key=lambda key: order.get(key, len(order)))
        return {key: (counts[key][0], counts[key][1]) for key in keys}
