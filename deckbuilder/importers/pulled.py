"""A note as Anki has it now, read back into the card file's terms for ``pull``.

The card file says which note type a note is of; Anki's copy gives its fields and tags.
They are read as ``import`` reads them: deckbuilder's own note types as the inverse of
what the build wrote (:mod:`.own_types`: choices, answers, typed answers, the
``<div lang>`` of a language's deck, spoken texts), a note type kept from a collection and
a declared one field by field (:func:`.html_markdown.field_markdown`; a raw field keeps
its HTML). Its id, GUID, spoken texts and lint opt-outs stay the card file's; its tags are
Anki's less the deck's own.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from deckbuilder.anki.collection import AnkiNote
from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.errors import shown
from deckbuilder.importers.base import distinct_ids, id_text, note_id_for
from deckbuilder.importers.html_markdown import field_markdown, markup_losses, rendered_field
from deckbuilder.importers.own_types import OWN_TYPE_IDS, OwnLanguage, own_language, own_note
from deckbuilder.importers.own_types import spoken_texts as own_spoken_texts
from deckbuilder.model import BasicNote, ClozeNote, FieldsNote, McqNote, Note, NoteKind
from deckbuilder.note_types import NoteType, built_in
from deckbuilder.render.deck import RenderedDeck, strip_source_link


@dataclass(frozen=True)
class Reading:
    """A note read from Anki: the note, and what of Anki's copy the card file cannot hold,
    each in words for a warning (empty when it holds all)."""

    note: Note
    losses: tuple[str, ...] = ()


class PullReader:
    """Reads Anki's copies of one deck's notes (one language of a bilingual card file)."""

    def __init__(self, rd: RenderedDeck) -> None:
        self.deck = rd.deck
        self.language: OwnLanguage = own_language(
            [
                (rn.spec.kind, own_spoken_texts(rn.fields)[0])
                for rn in rd.notes
                if rn.spec.id in OWN_TYPE_IDS
            ]
        )
        if self.deck.lang:
            self.language = OwnLanguage(lang=self.deck.lang)
        self.declared: dict[str, NoteType] = {t.key: t for t in self.deck.note_types}
        # The fields each note's build gave Anki: a field Anki's copy still has as built
        # was not edited there.
        self.built: dict[str, tuple[str, ...]] = {rn.note.id: tuple(rn.fields) for rn in rd.notes}
        # How the card file spells each tag: a tag Anki gives a note is written so (Anki
        # spells a tag as its collection first did, which may differ).
        self.spellings: dict[str, str] = {}
        for note in self.deck.notes:
            for tag in note.tags:
                self.spellings.setdefault(tag.casefold(), tag)

    def read(self, anki: AnkiNote, spec: NoteTypeSpec, like: Note | None) -> Reading | str:
        """Anki's copy ``anki`` of a note of note type ``spec`` as a card-file note (with
        ``like``'s id, GUID, spoken texts and lint opt-outs, when it has one), or why it
        cannot be read."""
        fields = strip_source_link(anki.fields)
        if len(fields) != len(spec.fields):
            return (
                f"Anki's copy has {len(fields)} fields, its note type {len(spec.fields)}; "
                "its note type was changed in Anki"
            )
        own = OWN_TYPE_IDS.get(spec.id)
        if self.deck.lang and like is not None:
            fields = self.filled(like.id, spec, own, fields)
        losses: list[str] = []
        note: Note | str
        if spec.kind is NoteKind.IMAGE_OCCLUSION:
            # Its masks are fractions of the picture's size, not texts: read as texts, the
            # note would become a basic note of its Occlusion and Image fields.
            return _OCCLUSION
        if own is not None:
            read = own_note(own, anki.guid, fields, self.language)
            if read is None:
                built = self.built.get(like.id, ()) if like is not None else ()
                return _not_as_written(own, fields, built)
            note = read
            losses += self.own_losses(own, fields, like)
        elif spec.kind is NoteKind.DECLARED:
            declared = self.declared.get(spec.key)
            if declared is None:  # pragma: no cover - a rendered note's type is declared
                return f"its note type '{spec.key}' is not declared"
            note = self.fields_note(declared, fields, losses)
        else:
            note = self.carried_note(spec.kind, fields, losses)
        if isinstance(note, str):
            return note
        tags = pulled_tags(
            like.tags if like else (),
            self.deck.tags,
            [self.spellings.get(tag.casefold(), tag) for tag in anki.tags],
        )
        in_anki = {tag.casefold() for tag in anki.tags}
        losses += [
            f"Anki took the deck's tag '{tag}' off it; a card file gives every note the deck's tags"
            for tag in self.deck.tags
            if tag.casefold() not in in_anki
        ]
        if like is None:
            return Reading(replace(note, guid=anki.guid, tags=tags), tuple(losses))
        note = replace(
            note,
            id=like.id,
            line=like.line,
            guid=like.guid,
            tags=tags,
            speak=like.speak,
            lint_ignored=like.lint_ignored,
            field_lines=like.field_lines,
        )
        return Reading(same_texts_kept(like, note), tuple(losses))

    def filled(
        self, note_id: str, spec: NoteTypeSpec, own: NoteKind | None, fields: Sequence[str]
    ) -> tuple[str, ...]:
        """Anki's fields, a text one the last build left empty wrapped in the deck's
        language as the build wraps the others: the build wraps no empty field, so a text
        typed into one in Anki comes without it, and is the text of this deck's language."""
        built = self.built.get(note_id, ())
        if own is not None:
            wrapped = set(built_in(own).text_fields or range(len(fields)))
        elif spec.kind is NoteKind.DECLARED:
            declared = self.declared.get(spec.key)
            raw = declared.raw if declared is not None else ()
            wrapped = {i for i, name in enumerate(spec.fields) if name not in raw}
        else:
            wrapped = set(range(len(fields)))
        return tuple(
            f'<div lang="{self.deck.lang}">{html}</div>'
            if i in wrapped
            and i < len(built)
            and not built[i]
            and html.strip()
            and self.unwrapped(html) is None  # pasted with its wrapper, it has one
            else html
            for i, html in enumerate(fields)
        )

    def unwrapped(self, html: str) -> str | None:
        """A field of a language's deck without the ``<div lang>`` the build wraps it in
        (None: it is not wrapped so)."""
        lang = self.deck.lang
        if not lang or not html:
            return html
        opening = f'<div lang="{lang}">'
        if html.startswith(opening) and html.endswith("</div>"):
            return html[len(opening) : -len("</div>")]
        return None

    def markdown(self, html: str, what: str, losses: list[str], *, cloze: bool) -> str | None:
        inner = self.unwrapped(html)
        if inner is None:
            return None
        converted = field_markdown(inner, cloze=cloze)
        if not converted.exact:
            lost = "; ".join(markup_losses(inner)) or "markup"
            losses.append(
                f"Anki's copy of its {what} has markup the card file cannot hold ({lost}); "
                "the card file gets its text"
            )
        return converted.markdown

    def own_losses(self, kind: NoteKind, fields: Sequence[str], like: Note | None) -> list[str]:
        """What of the texts edited in Anki's copy of an own-type note the card file
        cannot hold, in words."""
        built = self.built.get(like.id, ()) if like is not None else ()
        texts, _ = own_spoken_texts(fields)
        losses: list[str] = []
        for index in built_in(kind).text_fields or range(len(fields)):
            if index < len(built) and fields[index] == built[index]:
                continue
            what = built_in(kind).fields[index].lower()
            self.markdown(texts[index], what, losses, cloze=kind is NoteKind.CLOZE)
        return losses

    def carried_note(self, kind: NoteKind, fields: Sequence[str], losses: list[str]) -> Note | str:
        cloze = kind is NoteKind.CLOZE
        texts = []
        for name, html in zip(
            ("text", "extra") if cloze else ("front", "back"), fields, strict=False
        ):
            text = self.markdown(html, name, losses, cloze=cloze)
            if text is None:
                return _NOT_WRAPPED
            texts.append(text)
        if cloze:
            return ClozeNote(id="", line=0, text=texts[0], extra=texts[1])
        optional = kind is NoteKind.BASIC_OPTIONAL_REVERSED
        add_reverse = fields[2] if optional else None
        return BasicNote(
            id="",
            line=0,
            front=texts[0],
            back=texts[1],
            reverse=kind is NoteKind.BASIC_REVERSED or bool(add_reverse and add_reverse.strip()),
            add_reverse=add_reverse,
        )

    def fields_note(
        self, declared: NoteType, fields: Sequence[str], losses: list[str]
    ) -> Note | str:
        texts = []
        for name, html in zip(declared.fields, fields, strict=True):
            if name in declared.raw:
                texts.append(html)
                continue
            text = self.markdown(html, f"field {name}", losses, cloze=declared.is_cloze)
            if text is None:
                return _NOT_WRAPPED
            texts.append(text)
        return FieldsNote(id="", line=0, note_type=declared, fields=tuple(texts))


# What each field of deckbuilder's own note types that is no text holds, for a message.
_WRITTEN_AS = {
    "Answer": "the right choices' letters, such as B or A, C",
    "Shuffle": "yes or no",
    "Match case": "yes or no",
}


def _not_as_written(kind: NoteKind, fields: Sequence[str], built: Sequence[str]) -> str:
    """Why Anki's copy of an own-type note cannot be read: the fields that hold a letter
    or a flag, edited to something else, by name (typed in Anki's editor, not as HTML)."""
    wrong = [
        f"its {name} field is {shown(html)}, where deckbuilder writes {_WRITTEN_AS[name]}"
        for name, html, was in zip(built_in(kind).fields, fields, built, strict=False)
        if name in _WRITTEN_AS and html != was
    ]
    if wrong:
        return (
            f"Anki's copy is not as deckbuilder writes it: {'; '.join(wrong)}; make the edit "
            "in the card file"
        )
    return (
        "Anki's copy of its fields is not as deckbuilder writes them (its choices, answers or "
        "language markup were edited as HTML); edit it in the card file"
    )


_OCCLUSION = (
    "pull does not read image occlusion notes yet: make Anki's edit (masks, header, back "
    "extra, comments, tags) in the card file"
)
_NOT_WRAPPED = (
    "Anki's copy of a field lost the language markup the build wraps it in "
    "(<div lang=...>); edit it in the card file"
)


def same_texts_kept(card: Note, anki: Note) -> Note:
    """``anki`` with each text that shows as the card file's text (the same HTML) written
    as the card file writes it: Anki's copy of an unchanged text may read back otherwise
    (a line break at its end, an escape), and the card file keeps its bytes."""
    if type(card) is not type(anki):
        return anki
    before, after = card.texts(), anki.texts()
    cloze = isinstance(card, ClozeNote) or (
        isinstance(card, FieldsNote) and card.note_type.is_cloze
    )
    kept = {
        key: text
        for key, text in before.items()
        if key in after
        and after[key] != text
        and not key.startswith("answer[")  # a typed answer is compared as written
        and rendered_field(text, cloze) == rendered_field(after[key], cloze)
    }
    return _with_texts(anki, kept) if kept else anki


def _with_texts(note: Note, texts: dict[str, str]) -> Note:
    """``note`` with the texts of :meth:`Note.texts` keys ``texts`` replaced."""
    simple = {key: text for key, text in texts.items() if "[" not in key and "." not in key}
    note = replace(note, **simple)  # type: ignore[arg-type]
    if isinstance(note, McqNote):
        choices, feedback = list(note.choices), list(note.feedback)
        for key, text in texts.items():
            if key.startswith("choices["):
                index = int(key[len("choices[") : key.index("]")])
                if key.endswith(".feedback"):
                    feedback[index] = text
                else:
                    choices[index] = text
        note = replace(note, choices=tuple(choices), feedback=tuple(feedback))
    if isinstance(note, FieldsNote):
        names = note.note_type.fields
        fields = list(note.fields)
        for key, text in texts.items():
            if key.startswith("fields."):
                fields[names.index(key[len("fields.") :])] = text
        note = replace(note, fields=tuple(fields))
    return note


def pulled_tags(card: Sequence[str], deck: Sequence[str], anki: Collection[str]) -> tuple[str, ...]:
    """A note's own tags after a pull: those of the card file Anki still has (spelled as
    the card file spells them, since Anki spells a tag as its collection first did), then
    Anki's new ones, less the deck's tags, which every note of the deck gets anyway."""
    in_anki = {tag.casefold() for tag in anki}
    known = {tag.casefold() for tag in (*card, *deck)}
    kept = [tag for tag in card if tag.casefold() in in_anki]
    added = sorted(
        {tag.casefold(): tag for tag in anki if tag.casefold() not in known}.values(),
        key=str.casefold,
    )
    return tuple(kept + added)


def new_note_id(note: Note, taken: Collection[str]) -> str:
    """An id for a note added in Anki, from its text, not one of ``taken``."""
    base = note_id_for(id_text(note))
    ids = distinct_ids([*sorted(taken), base])
    return ids[-1]
