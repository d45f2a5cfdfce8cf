"""Note types as data: each note type is one record, which every layer asks instead of
knowing the note type.

A note type is what Anki's is: fields, card templates, CSS, a sort field and a kind
(standard, or cloze: one card per deletion number). Which cards a note of it makes
follows Anki's own rule (:func:`deckbuilder.templates.cards_made`; for cloze,
:func:`deckbuilder.cloze.card_ordinals`), so the counts, the package and the preview
agree with what Anki creates.

Two records, one for each place a note type comes from:

- :class:`NoteType`, a note type an author declares (``note_types:`` in a card file, or
  ``note-types/<key>.yaml``) or an import brings from a collection: its templates and CSS
  are text it holds.
- :class:`BuiltinType`, one of deckbuilder's own (:data:`BUILT_IN`, keyed like a note's
  ``type:``): its Anki id and name are fixed forever (Anki matches note types by id, so
  tests/test_stability.py pins them), its templates and CSS are files under
  ``deckbuilder/anki/notetypes/<folder>/``, which the core, doing no I/O, names but does
  not read. ``deckbuilder.anki.notetypes`` reads them into a :class:`NoteType` and gives
  Anki's note type of both records by one path.

What a built-in type's notes say in a card file (their keys, the documentation of each,
the aliases of its name) is the card format's, declared in ``deckbuilder.cardfile.keys``.
The core cannot import the card format, and the record should not hold a second copy of
it, so the attachment points the other way: each entry there is made from the record,
looked up by its key (``NoteType(built_in("mcq"), doc, keys)``), and takes the record's
place in the registry's order. There is no list of kinds of its own to keep in step: a
key naming no record fails at import, and a record without an entry (Basic and
reversed, used by ``reverse: true``) is simply one a card file cannot name.

Behaviour that differs by the shape of a note (how an MCQ's choices render, what lint
looks for in a cloze) stays with each layer, as one table per layer keyed by the note's
kind; everything a layer asks of the note *type* (its label, its ``list`` column, how its
cards are counted, which of its fields speak or carry the source link) is here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from deckbuilder import cloze
from deckbuilder.templates import cards_made


class TypeKind(str, Enum):
    """Anki's two kinds of note type."""

    STANDARD = "standard"  # a card per template whose front shows a field that is not empty
    CLOZE = "cloze"  # one template, a card per deletion number

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class CardTemplate:
    """One card of a note type: its name, and its front and back in Anki's template
    language."""

    name: str
    front: str
    back: str


@dataclass(frozen=True)
class NoteType:
    """A note type declared in a card file (``note_types:``) or in
    ``note-types/<key>.yaml``, or brought by an import from a collection."""

    key: str  # what a note's ``type:`` says
    name: str  # Anki's name for it
    fields: tuple[str, ...]
    templates: tuple[CardTemplate, ...]
    css: str = ""
    sort_field: int = 0  # the index of the field Anki's browser sorts by
    kind: TypeKind = TypeKind.STANDARD
    raw: frozenset[str] = frozenset()  # fields whose text is HTML as written, not Markdown
    # The Anki note type id: kept from a collection (an import writes it), else 0 and
    # derived from the key where the package is written (deckbuilder.anki.identity).
    anki_id: int = 0
    # Kept from a collection with what its templates run or fetch, as the user asked
    # (``keep_scripts: true``); such parts of an imported note type are refused otherwise.
    keep_scripts: bool = False
    # Whose it is: the id of the deck whose card file declares it, '' for one of the
    # project's note-types/ folder, which every deck shares.
    scope: str = ""
    # Where it is declared, for messages: the file and the line of its key.
    source: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)

    @property
    def is_cloze(self) -> bool:
        return self.kind is TypeKind.CLOZE

    def card_ordinals(self, texts: Sequence[str], *, tags: bool = False) -> tuple[int, ...]:
        """The cards Anki makes for a note with these field texts (in field order), as
        0-based card ordinals. A field's text is read as its HTML; Markdown source is as
        good here, since a field is empty in both or in neither."""
        if self.is_cloze:
            return cloze.card_ordinals(*texts)
        fields = dict(zip(self.fields, texts, strict=True))
        return cards_made([t.front for t in self.templates], fields, tags=tags)

    def field_texts(self, given: Mapping[str, str]) -> tuple[str, ...]:
        """The note's texts in field order, '' for a field it does not give."""
        return tuple(given.get(name, "") for name in self.fields)


class CardCount(str, Enum):
    """How the cards of a built-in note type's notes are counted (what ``Note.card_ordinals``
    gives): the preview page labels cards by it, and the docs say it."""

    # Every template makes a card: each template's front shows a field every note of the
    # type must fill (a question, a front), so no template is ever left without a card.
    EVERY_TEMPLATE = "every template"
    # Anki's cloze rule: a card per deletion number in the note's texts.
    DELETIONS = "deletion numbers"
    # A card per card number of the note's masks (Image Occlusion).
    MASKS = "mask card numbers"


@dataclass(frozen=True)
class TemplateFiles:
    """One card template of a built-in note type: its name in Anki, and the files of its
    front and back in the note type's folder."""

    name: str
    front: str = "front.html"
    back: str = "back.html"


@dataclass(frozen=True)
class BuiltinType:
    """One of deckbuilder's own note types. Its id, name and fields never change (a change
    of fields needs a new id and name: docs/updating.md); its templates and CSS may, and
    update in place."""

    key: str  # what a note's ``type:`` says, and what the lock file knows it by
    name: str  # Anki's name
    anki_id: int  # fixed forever: Anki matches note types by id on import
    fields: tuple[str, ...]
    label: str  # what the preview page calls it
    templates: tuple[TemplateFiles, ...]
    folder: str  # under deckbuilder/anki/notetypes/, with style.css and the templates
    cards: CardCount = CardCount.EVERY_TEMPLATE
    kind: TypeKind = TypeKind.STANDARD
    sort_field: int = 0
    # Its column of ``deckbuilder list`` ('': counted under OTHER).
    column: str = ""
    # The card's back depends on what the learner did on its front (picked, typed): the
    # preview page can flip it after an answer.
    played: bool = False
    # The note's texts, by the key the note gives them (``Note.texts()``, a card file's
    # key), that a card may speak (``speak:``), with the index of the field each renders
    # into. A cloze note's text is not among them: spoken on the front, it would say
    # the answer.
    spoken: tuple[tuple[str, int], ...] = ()
    # The field that shows on the back only, where ``source_url:``'s link goes (None:
    # the type takes no link).
    source_field: int | None = None
    # The fields holding the note's texts, which a deck of one language of a bilingual
    # card file wraps in ``<div lang=..>``; the others are markup of deckbuilder's own
    # (choices, answers, flags). () for every field.
    text_fields: tuple[int, ...] = ()
    # A collection's note type of this shape (Anki's own Basic, Basic (and reversed
    # card), Cloze, Image Occlusion) may be kept in its place by an import.
    carried: bool = False
    # Anki's originalStockKind, for a note type as Anki itself makes it (Image
    # Occlusion), and each field's (tag, whether the note type editor refuses to delete
    # it). 0 and (): none. A stock note type's CSS is Anki's alone (no base.css).
    stock_kind: int = 0
    field_tags: tuple[tuple[int, bool], ...] = ()

    @property
    def is_cloze(self) -> bool:
        return self.kind is TypeKind.CLOZE

    @cached_property
    def template_ordinals(self) -> tuple[int, ...]:
        """A card per template (CardCount.EVERY_TEMPLATE): the cards of every note."""
        return tuple(range(len(self.templates)))

    def spoken_field(self, key: str) -> int:
        """The index of the field the spoken text ``key`` renders into."""
        return dict(self.spoken)[key]


# Anki's Image Occlusion note type as Anki makes it (rslib/src/image_occlusion/notetype.rs):
# its fields with their tags (ImageOcclusionField in proto/anki/notetypes.proto) and
# originalStockKind 6 (ORIGINAL_STOCK_KIND_IMAGE_OCCLUSION), by which Anki's mask editor
# and get_image_occlusion_note know it. Its templates and CSS are Anki's, read from a
# collection the backend made (tests/anki/test_image_occlusion.py checks them).
IO_FIELDS = ("Occlusion", "Image", "Header", "Back Extra", "Comments")
IO_STOCK_KIND = 6

# deckbuilder's own note types. The ids are in [2**50, 2**51); those after the first three
# are 2**50 plus the SHA-256 digest (deckbuilder.anki.identity._digest) of "deckbuilder",
# "note type", <key> modulo 2**50, computed once and fixed here. The order is the order of
# the counts, the docs and the README key table.
_BUILT_IN = (
    BuiltinType(
        key="mcq",
        name="deckbuilder Multiple Choice",
        anki_id=1468248778730576,
        fields=("Question", "Choices", "Answer", "Explanation", "Shuffle"),
        label="multiple choice",
        templates=(TemplateFiles("Multiple choice"),),
        folder="mcq",
        column="MCQ",
        played=True,
        spoken=(("question", 0), ("explanation", 3)),
        source_field=3,
        text_fields=(0, 3),
    ),
    BuiltinType(
        key="cloze",
        name="deckbuilder Cloze",
        anki_id=1649248644858304,
        fields=("Text", "Extra"),
        label="cloze",
        templates=(TemplateFiles("Cloze"),),
        folder="cloze",
        cards=CardCount.DELETIONS,
        kind=TypeKind.CLOZE,
        column="CLOZE",
        spoken=(("extra", 1),),
        source_field=1,
        carried=True,
    ),
    BuiltinType(
        key="basic",
        name="deckbuilder Basic",
        anki_id=2152878658763882,
        fields=("Front", "Back"),
        label="basic",
        templates=(TemplateFiles("Card 1"),),
        folder="basic",
        column="BASIC",
        spoken=(("front", 0), ("back", 1)),
        source_field=1,  # a reversed card's front hides it: basic/reverse-front.html
        carried=True,
    ),
    BuiltinType(
        key="typed",
        name="deckbuilder Typed Answer",
        anki_id=1567040389656066,
        fields=("Question", "Answers", "Explanation", "Match case"),
        label="typed answer",
        templates=(TemplateFiles("Typed answer"),),
        folder="typed",
        column="TYPED",
        played=True,
        spoken=(("question", 0), ("explanation", 2)),
        source_field=2,
        text_fields=(0, 2),
    ),
    # The note type of basic notes with ``reverse: true``; such notes are still basic
    # notes, and no card file says ``type: basic-reversed``.
    BuiltinType(
        key="basic-reversed",
        name="deckbuilder Basic (and reversed card)",
        anki_id=2101222362487115,
        fields=("Front", "Back"),
        label="basic",
        templates=(
            TemplateFiles("Card 1"),
            TemplateFiles("Card 2", "reverse-front.html", "reverse-back.html"),
        ),
        folder="basic",
        spoken=(("front", 0), ("back", 1)),
        source_field=1,
        carried=True,
    ),
    # Every collection has Anki's own "Image Occlusion" (with another id): a package's
    # note type of that name would come in as "Image Occlusion+". The template keeps
    # Anki's name.
    BuiltinType(
        key="image-occlusion",
        name="deckbuilder Image Occlusion",
        anki_id=1379929385129766,
        fields=IO_FIELDS,
        label="image occlusion",
        templates=(TemplateFiles("Image Occlusion"),),
        folder="image-occlusion",
        cards=CardCount.MASKS,
        kind=TypeKind.CLOZE,
        text_fields=(2, 3, 4),
        carried=True,
        stock_kind=IO_STOCK_KIND,
        field_tags=((0, True), (1, True), (2, True), (3, True), (4, False)),
    ),
)
BUILT_IN: Mapping[str, BuiltinType] = {t.key: t for t in _BUILT_IN}


def built_in(key: str) -> BuiltinType:
    """The built-in note type ``key`` (a ``NoteKind``'s value)."""
    return BUILT_IN[key]


@dataclass(frozen=True)
class KeptShape:
    """What Anki's own note type must look like to carry the notes of one of
    deckbuilder's built-in kinds: its fields in Anki's stock order, its card templates,
    its kind. A deck imported from Anki keeps the collection's note type of that shape
    (``note_types:`` under the built-in key, with ``anki_id``), so that a build updates
    the notes Anki has in place instead of adding copies."""

    fields: int
    templates: int
    kind: TypeKind = TypeKind.STANDARD


# By the built-in key the kept note type is declared under (and the notes' kind): the
# built-in note types a collection's own may stand in for (BuiltinType.carried), and
# Anki's "Basic (optional reversed card)", which deckbuilder has no note type of its own
# for (its notes are basic notes with 'add_reverse:').
KEPT_SHAPES: Mapping[str, KeptShape] = {
    **{t.key: KeptShape(len(t.fields), len(t.templates), t.kind) for t in _BUILT_IN if t.carried},
    "basic-optional-reversed": KeptShape(3, 2),  # Front, Back and Add Reverse
}
