"""Notes of deckbuilder's own note types, read back from a package into card-file notes.

Their fields are the HTML :mod:`deckbuilder.render.deck` wrote, so each is read as the inverse
of what wrote it: the Choices field's choice elements (letter, pin, feedback), the Answer
letters, the Shuffle and Match case flags, a typed note's accepted answers
(:func:`deckbuilder.anki.notetypes.typed_answers_html`), and in a deck built for one
language of a bilingual card file, the ``<div lang="..">`` each field is wrapped in. A package holds
one language, so such a deck comes back as a card file with that one language
(``languages: [en]``): built again, every field is as it was. Whether it is, note by
note, is checked once the card file is planned (:mod:`.plan`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from html import unescape

from deckbuilder.importers.html_markdown import field_markdown
from deckbuilder.model import (
    BasicNote,
    ClozeNote,
    McqNote,
    Note,
    NoteKind,
    TypedAnswer,
    TypedNote,
    letter,
)
from deckbuilder.note_types import BUILT_IN, built_in
from deckbuilder.render.deck import SPEECH_CLASS

# The built-in note types whose notes an import reads back (image occlusion notes come
# in through Anki's own note type: .image_occlusion).
OWN_KINDS = tuple(NoteKind(t.key) for t in BUILT_IN.values() if not t.stock_kind)
OWN_TYPE_IDS = {built_in(kind).anki_id: kind for kind in OWN_KINDS}

_LANG_OPEN = re.compile(r'<div lang="([A-Za-z][A-Za-z0-9-]{0,34})"( data-db-lang="\1")?>')
_CHOICE_ATTRS = re.compile(r'<div class="db-(?:choice|accept)"[^>]*? (lang|data-db-lang)="([^"]*)"')
_FEEDBACK_OPEN = '<div class="db-choice-feedback">'
_PIN = ' data-db-pin="true"'
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\Z")
_ACCEPT = re.compile(
    r'<div class="db-accept"(?: data-min="([^"]*)" data-max="([^"]*)")?([^>]*)>([^<]*)</div>\Z'
)


@dataclass(frozen=True)
class OwnLanguage:
    """How the package's deck was built: for one language of a bilingual card file
    (``lang``: each field wrapped in ``<div lang=..>``), or without languages, its
    multiple-choice labels in ``label`` ('' when no choice says)."""

    lang: str = ""
    label: str = ""

    @property
    def choice_attributes(self) -> str:
        if self.lang:
            return f' lang="{self.lang}"'
        return f' data-db-lang="{self.label}"' if self.label else ""


def _unwrap(html: str, lang: str) -> str | None:
    """The field inside its language wrapper (None: it has none for ``lang``)."""
    if not html:
        return html
    found = _LANG_OPEN.match(html)
    if found is None or found.group(1) != lang or not html.endswith("</div>"):
        return None
    return html[found.end() : -len("</div>")]


def _wrapped(kind: NoteKind, count: int) -> Sequence[int]:
    """The fields render.deck wraps in the deck's language, by index (the type's text
    fields; the others are markup of their own, letters, or yes/no)."""
    return built_in(kind).text_fields or range(count)


def _wrapped_fields(kind: NoteKind, fields: Sequence[str]) -> list[str]:
    return [fields[i] for i in _wrapped(kind, len(fields)) if i < len(fields)]


def own_language(notes: Sequence[tuple[NoteKind, Sequence[str]]]) -> OwnLanguage:
    """The language the own-type notes ``(kind, fields)`` were built for: one every field
    is wrapped in, or none."""
    langs = {
        found.group(1)
        for kind, fields in notes
        for html in _wrapped_fields(kind, fields)
        if (found := _LANG_OPEN.match(html))
    }
    if len(langs) == 1:
        (lang,) = langs
        if all(
            _unwrap(html, lang) is not None
            for kind, fields in notes
            for html in _wrapped_fields(kind, fields)
        ):
            return OwnLanguage(lang=lang)
    labels = [
        found.group(2)
        for kind, fields in notes
        if kind in (NoteKind.MCQ, NoteKind.TYPED) and len(fields) > 1
        if (found := _CHOICE_ATTRS.search(fields[1])) and found.group(1) == "data-db-lang"
    ]
    return OwnLanguage(label=max(sorted(set(labels)), key=labels.count, default=""))


def _choices(html: str, attributes: str) -> list[tuple[str, str, bool]] | None:
    """Each choice's (text HTML, feedback HTML, pinned), or None when the field is not
    one render.py writes."""
    out: list[tuple[str, str, bool]] = []
    rest = html
    while rest:
        opening = f'<div class="db-choice" data-choice="{letter(len(out))}"{attributes}'
        if len(out) >= 26 or not rest.startswith(opening):
            return None
        rest = rest[len(opening) :]
        pinned = rest.startswith(_PIN + ">")
        rest = rest[len(_PIN) + 1 :] if pinned else rest.removeprefix(">")
        # The next choice's opening ends this one (a choice is one or more lines).
        following = f'</div>\n<div class="db-choice" data-choice="{letter(len(out) + 1)}"'
        end = rest.find(following)
        body, rest = (rest[:end], rest[end + len("</div>\n") :]) if end >= 0 else (rest, "")
        if end < 0:
            if not body.endswith("</div>"):
                return None
            body = body[: -len("</div>")]
        text, feedback = body, ""
        at = body.rfind(_FEEDBACK_OPEN)
        if at >= 0 and body.endswith("</div>"):
            text, feedback = body[:at], body[at + len(_FEEDBACK_OPEN) : -len("</div>")]
        out.append((text, feedback, pinned))
    return out if len(out) >= 2 else None


def _answer_letters(text: str, count: int) -> list[int] | None:
    letters = [part.strip() for part in text.split(",")]
    picked = [ord(part) - ord("A") for part in letters if len(part) == 1 and "A" <= part <= "Z"]
    if len(picked) != len(letters) or len(set(picked)) != len(picked):
        return None
    return sorted(picked) if all(i < count for i in picked) else None


def _typed_answer(low: str | None, high: str | None, shown: str) -> TypedAnswer | None:
    """One accepted answer as the card file writes it: the text, or the number form whose
    shown text and range are the element's."""
    if low is None or high is None:
        return TypedAnswer(text=shown.strip(), shown=shown.strip()) if shown.strip() else None
    try:
        low_value, high_value = float(low), float(high)
    except ValueError:
        return None
    parts = shown.split(" ± ")
    if len(parts) == 2 and all(_NUMBER.match(p) for p in parts):
        number, tolerance = float(parts[0]), float(parts[1])
        if (number - tolerance, number + tolerance) == (low_value, high_value):
            return TypedAnswer.around(parts[0], parts[1])
    parts = shown.split(" \u2013 ")
    if (
        len(parts) == 2
        and all(_NUMBER.match(p) for p in parts)
        and (float(parts[0]), float(parts[1])) == (low_value, high_value)
    ):
        return TypedAnswer.between(parts[0], parts[1])
    if _NUMBER.match(shown) and float(shown) == low_value == high_value:
        return TypedAnswer.around(shown)
    return TypedAnswer.between(low, high)  # built again, the back shows the range as numbers


def _typed_answers(html: str, attributes: str) -> list[TypedAnswer] | None:
    out = []
    for line in html.split("\n") if html else []:
        found = _ACCEPT.match(line)
        if found is None or found.group(3) != attributes:
            return None
        answer = _typed_answer(found.group(1), found.group(2), unescape(found.group(4)))
        if answer is None:
            return None
        out.append(answer)
    return out or None


def own_note(
    kind: NoteKind, guid: str, fields: Sequence[str], language: OwnLanguage
) -> Note | None:
    """The model note for an own-type note's ``fields`` (None: they are not as
    deckbuilder writes them). Its fields are Markdown where that renders back exactly."""
    if len(fields) != len(built_in(kind).fields):
        return None
    texts, spoken = spoken_texts(fields)
    note = _own_note(kind, guid, texts, language)
    if note is None or not spoken:
        return note
    keys = {index: key for key, index in built_in(kind).spoken}
    if not all(index in keys for index in spoken):
        return None  # speech where deckbuilder writes none
    return replace(note, speak=tuple(keys[index] for index in sorted(spoken)))


# The speech a build appends to a spoken field (render.deck._spoken), and its language.
_SPEECH = re.compile(
    rf'<span class="{SPEECH_CLASS}">\[anki:tts lang=([^\]\s]+)\][^\[]*\[/anki:tts\]</span>\Z'
)


def spoken_texts(fields: Sequence[str]) -> tuple[list[str], dict[int, str]]:
    """Own-type fields without the speech a build appends to the ones a note speaks, and
    the language each of those is spoken in, by field index."""
    texts = list(fields)
    spoken: dict[int, str] = {}
    for index, text in enumerate(fields):
        found = _SPEECH.search(text) if SPEECH_CLASS in text else None
        if found is not None:
            texts[index] = text[: found.start()]
            spoken[index] = found.group(1)
    return texts, spoken


def _own_note(
    kind: NoteKind, guid: str, fields: Sequence[str], language: OwnLanguage
) -> Note | None:
    texts = list(fields)
    for i in _wrapped(kind, len(fields)) if language.lang else ():
        unwrapped = _unwrap(fields[i], language.lang)
        if unwrapped is None:
            return None
        texts[i] = unwrapped
    return _READERS[kind](kind, guid, texts, language)


def _basic(kind: NoteKind, guid: str, texts: Sequence[str], _: OwnLanguage) -> Note | None:
    front, back = texts
    return BasicNote(
        id="",
        line=0,
        guid=guid,
        front=_md(front),
        back=_md(back),
        reverse=len(built_in(kind).templates) == 2,
    )


def _cloze(_kind: NoteKind, guid: str, texts: Sequence[str], _: OwnLanguage) -> Note | None:
    text, extra = texts
    return ClozeNote(
        id="", line=0, guid=guid, text=_md(text, cloze=True), extra=_md(extra, cloze=True)
    )


def _mcq(_: NoteKind, guid: str, texts: Sequence[str], language: OwnLanguage) -> Note | None:
    question, choices_html, answer, explanation, shuffle = texts
    choices = _choices(choices_html, language.choice_attributes)
    if choices is None or shuffle not in ("yes", "no"):
        return None
    picked = _answer_letters(answer, len(choices))
    if picked is None:
        return None
    feedback = tuple(_md(said) for _, said, _ in choices)
    return McqNote(
        id="",
        line=0,
        guid=guid,
        question=_md(question),
        choices=tuple(_md(text) for text, _, _ in choices),
        answer=tuple(picked),
        explanation=_md(explanation),
        shuffle=shuffle == "yes",
        feedback=feedback if any(feedback) else (),
        pinned=tuple(i for i, (_, _, pinned) in enumerate(choices) if pinned),
    )


def _typed(_: NoteKind, guid: str, texts: Sequence[str], language: OwnLanguage) -> Note | None:
    question, answers_html, explanation, match_case = texts
    typed = _typed_answers(answers_html, language.choice_attributes)
    if typed is None or match_case not in ("yes", "no"):
        return None
    return TypedNote(
        id="",
        line=0,
        guid=guid,
        question=_md(question),
        answers=tuple(typed),
        explanation=_md(explanation),
        match_case=match_case == "yes",
    )


# How the fields of each own note type read back into a note: the inverse of what
# render.deck wrote for its shape.
_READERS: dict[NoteKind, Callable[[NoteKind, str, Sequence[str], OwnLanguage], Note | None]] = {
    NoteKind.MCQ: _mcq,
    NoteKind.CLOZE: _cloze,
    NoteKind.BASIC: _basic,
    NoteKind.TYPED: _typed,
    NoteKind.BASIC_REVERSED: _basic,
}


def _md(html: str, *, cloze: bool = False) -> str:
    # Whether the whole note builds back as it was is checked once it is planned.
    return field_markdown(html, cloze=cloze).markdown
