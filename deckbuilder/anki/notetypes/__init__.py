"""The Anki note types deckbuilder writes, read from the template files beside this module.

Note type ids are fixed forever: Anki matches note types by id on import, so a new id
would give every user a second copy of the note type. Changing a note type's *fields*
needs a new id and name (see docs/updating.md; a build whose lock file
records other fields for the same id fails); templates and CSS can change freely and
update in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from deckbuilder.anki.identity import note_type_anki_id
from deckbuilder.model import NoteKind
from deckbuilder.note_types import NoteType

__all__ = ["IO_FIELDS", "IO_STOCK_KIND", "OWN_KINDS", "NoteTypeSpec", "declared_spec", "note_type"]


@dataclass(frozen=True)
class NoteTypeSpec:
    kind: NoteKind
    id: int
    name: str
    fields: tuple[str, ...]
    template_name: str
    front: str
    back: str
    css: str
    # Templates after the first, as (name, front, back): Anki's "Basic (and reversed
    # card)" has a second one. Empty for a note type with one template.
    more_templates: tuple[tuple[str, str, str], ...] = ()
    # A note type kept from a collection whose scripts and remote resources the user
    # keeps, by name ("keep_scripts": true in its note types file); see active_content.
    keep_scripts: bool = False
    # A declared note type (kind DECLARED): its key, whether it is of Anki's cloze kind.
    key: str = ""
    cloze: bool = False
    sort_field: int = 0  # the index of the field Anki's browser sorts by
    # For a note type as Anki makes it (Image Occlusion): Anki's originalStockKind, by
    # which Anki knows the note type, and each field's tag and whether the note type
    # editor refuses to delete it (the fields' "tag" and "preventDeletion"). 0 and ():
    # none.
    stock_kind: int = 0
    field_tags: tuple[tuple[int, bool], ...] = ()

    @property
    def is_cloze(self) -> bool:
        return self.kind is NoteKind.CLOZE or self.cloze

    @property
    def type_key(self) -> str:
        """What the lock file knows the note type by: its kind, or a declared type's key."""
        return self.key or self.kind.value

    @property
    def templates(self) -> tuple[tuple[str, str, str], ...]:
        """Every template as (name, front, back), the first first."""
        return ((self.template_name, self.front, self.back), *self.more_templates)

    def sides(self, ordinal: int) -> tuple[str, str]:
        """The (front, back) templates of card ``ordinal``: a cloze note type's one
        template makes every card; another note type has a template per card."""
        if self.is_cloze:
            return self.front, self.back
        _, front, back = self.templates[ordinal]
        return front, back


# Anki's Image Occlusion note type as Anki makes it (rslib/src/image_occlusion/notetype.rs):
# its templates and CSS (image-occlusion/, read from a collection the backend made, as
# tests/anki/test_image_occlusion.py checks), its fields with their tags
# (ImageOcclusionField in proto/anki/notetypes.proto) and originalStockKind 6, by which
# Anki's mask editor and get_image_occlusion_note know it.
IO_FIELDS = ("Occlusion", "Image", "Header", "Back Extra", "Comments")
IO_STOCK_KIND = 6  # ORIGINAL_STOCK_KIND_IMAGE_OCCLUSION
_STOCK = {
    NoteKind.IMAGE_OCCLUSION: (
        IO_STOCK_KIND,
        ((0, True), (1, True), (2, True), (3, True), (4, False)),
    )
}

_IDS = {
    NoteKind.MCQ: 1468248778730576,
    NoteKind.CLOZE: 1649248644858304,
    NoteKind.BASIC: 2152878658763882,
    # In [2**50, 2**51) like the others: 2**50 plus the SHA-256 digest (identity._digest)
    # of "deckbuilder", "note type", "typed" modulo 2**50, computed once and fixed here.
    NoteKind.TYPED: 1567040389656066,
    # As TYPED's, from "deckbuilder", "note type", "basic-reversed".
    NoteKind.BASIC_REVERSED: 2101222362487115,
    # As TYPED's, from "deckbuilder", "note type", "image-occlusion".
    NoteKind.IMAGE_OCCLUSION: 1379929385129766,
}
# The kinds with a note type of deckbuilder's own (Anki's "Basic (optional reversed card)"
# is only ever carried from a collection).
OWN_KINDS: tuple[NoteKind, ...] = tuple(_IDS)
_NAMES = {
    NoteKind.MCQ: ("deckbuilder Multiple Choice", "Multiple choice"),
    NoteKind.CLOZE: ("deckbuilder Cloze", "Cloze"),
    NoteKind.BASIC: ("deckbuilder Basic", "Card 1"),
    NoteKind.TYPED: ("deckbuilder Typed Answer", "Typed answer"),
    NoteKind.BASIC_REVERSED: ("deckbuilder Basic (and reversed card)", "Card 1"),
    # Every collection has Anki's own "Image Occlusion" (with another id): a package's
    # note type of that name would come in as "Image Occlusion+". The template keeps
    # Anki's name.
    NoteKind.IMAGE_OCCLUSION: ("deckbuilder Image Occlusion", "Image Occlusion"),
}
_FIELDS = {
    NoteKind.MCQ: ("Question", "Choices", "Answer", "Explanation", "Shuffle"),
    NoteKind.CLOZE: ("Text", "Extra"),
    NoteKind.BASIC: ("Front", "Back"),
    NoteKind.TYPED: ("Question", "Answers", "Explanation", "Match case"),
    NoteKind.BASIC_REVERSED: ("Front", "Back"),
    NoteKind.IMAGE_OCCLUSION: IO_FIELDS,
}
# Note types that share another's folder, with the templates after the first.
_FOLDERS = {NoteKind.BASIC_REVERSED: "basic"}
_MORE_TEMPLATES = {
    NoteKind.BASIC_REVERSED: (("Card 2", "reverse-front.html", "reverse-back.html"),)
}


def _read(*parts: str) -> str:
    return resources.files(__package__).joinpath(*parts).read_text(encoding="utf-8")


def _inline_includes(html: str, folder: str) -> str:
    """Replace ``/*@include FILE*/`` with that file's text, so scripts live in real .js files."""
    out = html
    while "/*@include " in out:
        start = out.index("/*@include ")
        end = out.index("*/", start)
        name = out[start + len("/*@include ") : end].strip()
        out = out[:start] + _read(folder, name).rstrip("\n") + out[end + 2 :]
    return out


@cache
def note_type(kind: NoteKind) -> NoteTypeSpec:
    folder = _FOLDERS.get(kind, kind.value)
    name, template_name = _NAMES[kind]
    stock_kind, field_tags = _STOCK.get(kind, (0, ()))
    more = tuple(
        (title, _inline_includes(_read(folder, front), folder), _read(folder, back))
        for title, front, back in _MORE_TEMPLATES.get(kind, ())
    )
    return NoteTypeSpec(
        kind=kind,
        id=_IDS[kind],
        name=name,
        fields=_FIELDS[kind],
        template_name=template_name,
        front=_inline_includes(_read(folder, "front.html"), folder),
        back=_inline_includes(_read(folder, "back.html"), folder),
        # A stock note type's CSS is Anki's alone.
        css=(_read("base.css") + "\n" if not stock_kind else "") + _read(folder, "style.css"),
        more_templates=more,
        cloze=kind is NoteKind.IMAGE_OCCLUSION,
        stock_kind=stock_kind,
        field_tags=field_tags,
    )


@cache
def declared_spec(declared: NoteType) -> NoteTypeSpec:
    """The Anki note type of a note type the author declares (or an import brought): its
    own id when it has one, else one derived from its key (and, for a card file's own,
    from the deck's id), so that every build gives it the same."""
    first, *more = declared.templates
    return NoteTypeSpec(
        kind=NoteKind.DECLARED,
        id=declared.anki_id or note_type_anki_id(declared.scope, declared.key),
        name=declared.name,
        fields=declared.fields,
        template_name=first.name,
        front=first.front,
        back=first.back,
        css=declared.css,
        more_templates=tuple((t.name, t.front, t.back) for t in more),
        keep_scripts=declared.keep_scripts,
        key=declared.key,
        cloze=declared.is_cloze,
        sort_field=declared.sort_field,
    )
