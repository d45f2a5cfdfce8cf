"""Note types as data: a note type an author declares (or an import brings from an Anki
collection) is one record, which every layer asks instead of knowing the note type.

A note type is what Anki's is: fields, card templates, CSS, a sort field and a kind
(standard, or cloze: one card per deletion number). Which cards a note of it makes
follows Anki's own rule (:func:`deckbuilder.templates.cards_made`; for cloze,
:func:`deckbuilder.cloze.card_ordinals`), so the counts, the package and the preview
agree with what Anki creates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from deckbuilder import cloze
from deckbuilder.templates import cards_made

__all__ = ["KEPT_SHAPES", "CardTemplate", "KeptShape", "NoteType", "TypeKind"]


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


# By the built-in key the kept note type is declared under (and the notes' kind).
KEPT_SHAPES: dict[str, KeptShape] = {
    "basic": KeptShape(2, 1),
    "basic-reversed": KeptShape(2, 2),
    "basic-optional-reversed": KeptShape(3, 2),  # Front, Back and Add Reverse
    "cloze": KeptShape(2, 1, TypeKind.CLOZE),
    # Anki's own Image Occlusion: Occlusion, Image, Header, Back Extra, Comments.
    "image-occlusion": KeptShape(5, 1, TypeKind.CLOZE),
}
