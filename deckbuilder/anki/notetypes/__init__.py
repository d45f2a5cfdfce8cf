"""The Anki note types deckbuilder writes: its own (:data:`deckbuilder.note_types.BUILT_IN`),
their templates and CSS read from the files beside this module, and those declared in card
files; both are made by one path (:func:`_spec`).

Note type ids are fixed forever: Anki matches note types by id on import, so a new id
would give every user a second copy of the note type. Changing a note type's *fields*
needs a new id and name (see docs/updating.md; a build whose lock file
records other fields for the same id fails); templates and CSS can change freely and
update in place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from html import escape
from importlib import resources

from deckbuilder.anki.identity import note_type_anki_id
from deckbuilder.model import NoteKind, TypedAnswer
from deckbuilder.note_types import (
    BUILT_IN,
    BuiltinType,
    CardTemplate,
    NoteType,
    built_in,
)


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

    @property
    def media(self) -> tuple[str, ...]:
        """The files its styling and templates name with a leading underscore (a font, a
        script, a picture), which Anki's export packages with the note type
        (rslib notetype/mod.rs ``gather_media_names``): in the CSS an ``@import`` of a
        ``.css`` file or a ``url(...)``; in a template a ``[sound:...]``, a quoted string or
        an unquoted ``src=``/``data=`` value. Names Anki would not store as a file (a
        folder in them) are left out, as its export leaves them out."""
        names = [_first_group(m) for m in _UNDERSCORED_CSS.finditer(self.css)]
        for _, front, back in self.templates:
            for side in (front, back):
                names += [_first_group(m) for m in _UNDERSCORED_REFERENCES.finditer(side)]
        return tuple(name for name in dict.fromkeys(names) if "/" not in name and "\\" not in name)

    def sides(self, ordinal: int) -> tuple[str, str]:
        """The (front, back) templates of card ``ordinal``: a cloze note type's one
        template makes every card; another note type has a template per card."""
        if self.is_cloze:
            return self.front, self.back
        _, front, back = self.templates[ordinal]
        return front, back


# Anki's patterns for the files a note type names (rslib/src/text.rs at 26.9:
# UNDERSCORED_CSS_IMPORTS, UNDERSCORED_REFERENCES); each match has one group set.
_UNDERSCORED_CSS = re.compile(
    r"""@import\s+(?:"(_[^"]*.css)"|'(_[^']*.css)')"""
    r"""|url\(\s*(?:"(_[^"]+)"|'(_[^']+)'|(_.+?))\s*\)""",
    re.IGNORECASE,
)
_UNDERSCORED_REFERENCES = re.compile(
    r"""\[sound:(_[^\]]+)\]|"(_[^"]+)"|'(_[^']+)'|\b(?:src|data)=(_[^ >]+)"""
)


def _first_group(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group is not None)


# The built-in note types' keys, as kinds (Anki's "Basic (optional reversed card)" is
# only ever carried from a collection).
OWN_KINDS: tuple[NoteKind, ...] = tuple(NoteKind(key) for key in BUILT_IN)


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
    """The Anki note type of the built-in note type ``kind``: its record
    (:data:`deckbuilder.note_types.BUILT_IN`) with its templates and CSS read from its
    folder, by the path a declared note type takes."""
    own = built_in(kind.value)
    return _spec(
        _with_texts(own),
        kind,
        own.anki_id,
        stock_kind=own.stock_kind,
        field_tags=own.field_tags,
    )


def _with_texts(own: BuiltinType) -> NoteType:
    """A built-in note type as a declared one would be: its templates and CSS as text."""
    folder = own.folder
    templates = tuple(
        CardTemplate(
            t.name,
            _inline_includes(_read(folder, t.front), folder),
            _inline_includes(_read(folder, t.back), folder),
        )
        for t in own.templates
    )
    # A stock note type's CSS is Anki's alone.
    css = (_read("base.css") + "\n" if not own.stock_kind else "") + _read(folder, "style.css")
    return NoteType(
        key=own.key,
        name=own.name,
        fields=own.fields,
        templates=templates,
        css=css,
        sort_field=own.sort_field,
        kind=own.kind,
        anki_id=own.anki_id,
    )


@cache
def declared_spec(declared: NoteType) -> NoteTypeSpec:
    """The Anki note type of a note type the author declares (or an import brought): its
    own id when it has one, else one derived from its key (and, for a card file's own,
    from the deck's id), so that every build gives it the same."""
    return _spec(
        declared,
        NoteKind.DECLARED,
        declared.anki_id or note_type_anki_id(declared.scope, declared.key),
        key=declared.key,
    )


def kept_spec(kept: NoteType) -> NoteTypeSpec:
    """The Anki note type a declaration under a built-in kind's key describes, a
    collection's own kept in a card file (the loader has checked its shape:
    :data:`deckbuilder.note_types.KEPT_SHAPES`); Anki knows its Image Occlusion by the
    built-in record's stock kind and field tags."""
    stock = BUILT_IN.get(kept.key)
    return _spec(
        kept,
        NoteKind(kept.key),
        kept.anki_id,
        stock_kind=stock.stock_kind if stock else 0,
        field_tags=stock.field_tags if stock else (),
    )


def _spec(
    record: NoteType,
    kind: NoteKind,
    anki_id: int,
    *,
    key: str = "",
    stock_kind: int = 0,
    field_tags: tuple[tuple[int, bool], ...] = (),
) -> NoteTypeSpec:
    first, *more = record.templates
    return NoteTypeSpec(
        kind=kind,
        id=anki_id,
        name=record.name,
        fields=record.fields,
        template_name=first.name,
        front=first.front,
        back=first.back,
        css=record.css,
        more_templates=tuple((t.name, t.front, t.back) for t in more),
        keep_scripts=record.keep_scripts,
        key=key,
        # A built-in cloze note type is known by its kind (NoteTypeSpec.is_cloze).
        cloze=record.is_cloze and kind is not NoteKind.CLOZE,
        sort_field=record.sort_field,
        stock_kind=stock_kind,
        field_tags=field_tags,
    )


# How a typed-answer note's accepted answers travel to the card: the Answers field.
#
# Each accepted answer is one element of the field, which only the back of the card holds
# (the front's HTML is the question Anki's browser lists, so it must not give the answers
# away); typed.js on the back reads them there and judges what the learner typed into the
# field's `{{type:Answers}}` box:
#
# <div class="db-accept">no one</div>
# <div class="db-accept" data-min="3.141" data-max="3.142">3.141 to 3.142</div>
# <div class="db-accept" data-min="500.0" data-max="500.0" data-unit="mg">500 mg</div>
#
# A text answer is the element's text (escaped HTML, read back with textContent, so no
# character needs a second escaping in an attribute); a number is the closed range in
# `data-min`/`data-max` (Python's shortest round-trip form, which JavaScript's
# `Number()` reads back to the same double), its unit in `data-unit` (typed after the
# number or not), and its text is only what the back shows.
def typed_answers_html(answers: Sequence[TypedAnswer], attributes: str = "") -> str:
    """The Answers field; ``attributes`` go on every element (the deck's language)."""
    out = []
    for answer in answers:
        if answer.is_number:
            assert answer.low is not None and answer.high is not None
            unit = f' data-unit="{escape(answer.unit)}"' if answer.unit else ""
            out.append(
                f'<div class="db-accept" data-min="{answer.low!r}" data-max="{answer.high!r}"'
                f"{unit}{attributes}>{escape(answer.shown_with_unit, quote=False)}</div>"
            )
        else:
            out.append(
                f'<div class="db-accept"{attributes}>{escape(answer.text, quote=False)}</div>'
            )
    return "\n".join(out)
