"""Hypothesis strategies for valid model decks: what a card file can say, as the loader
builds it (NFC text, stripped ids and tags, sorted answers, numbers with their shown
form), with every content rule of :func:`tests.cardfile.loading.deck_problems` kept."""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from deckbuilder.cardfile.checks import Spellings, tag_problem
from deckbuilder.cardfile.fields import UNSTORABLE, deck_id_problem
from deckbuilder.cardfile.keys import ID_PATTERN, LABEL_LANGUAGES, NOTE_LAST
from deckbuilder.invisible import is_blank, without_invisible
from deckbuilder.model import (
    BasicNote,
    ClozeNote,
    Deck,
    McqNote,
    Note,
    StudySettings,
    TypedAnswer,
    TypedNote,
)

LINT_CODES = next(key for key in NOTE_LAST if key.name == "lint").values

# Any character Anki can store, with the ones YAML writers trip on made likely.
_CHARACTERS = st.one_of(
    st.characters(codec="utf-8", exclude_categories=("Cs",)),
    st.sampled_from(list(" \t\n:#-?'\"{}[]|>!&*%@`,\\\x85\u2028\u2029\ufeff\xa0")),
).filter(lambda ch: not UNSTORABLE.match(ch))


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def texts(min_size: int = 0, alphabet: st.SearchStrategy[str] = _CHARACTERS) -> Any:
    """Text as a field holds it (NFC); with ``min_size``, not blank."""
    out = st.text(alphabet, min_size=min_size, max_size=30).map(_nfc)
    return out.filter(lambda t: not is_blank(t)) if min_size else out


def one_line(min_size: int = 1) -> Any:
    """Stripped text on one line, without tabs (a deck name, a typed answer)."""
    alphabet = _CHARACTERS.filter(lambda ch: ch not in "\t\n\r\x85\u2028\u2029")
    return texts(min_size, alphabet).map(str.strip).filter(lambda t: t.strip() == t and t)


ids = st.from_regex(f"{ID_PATTERN}", fullmatch=True).filter(
    lambda i: len(i) <= 30 and deck_id_problem(i) is None
)
tags = st.lists(
    st.text(_CHARACTERS.filter(lambda ch: not ch.isspace()), min_size=1, max_size=8)
    .map(_nfc)
    .filter(lambda tag: tag_problem(tag) is None),
    unique=True,
    max_size=3,
).map(tuple)
guids = st.from_regex(r"[!-~]{1,20}", fullmatch=True)
lint = st.lists(st.sampled_from(LINT_CODES), unique=True, max_size=2).map(tuple)


@st.composite
def _common(draw: Any) -> dict[str, Any]:
    return {
        "id": "",  # given by the deck, unique
        "line": 0,
        "tags": draw(tags),
        "lint_ignored": draw(lint),
        "guid": "",
    }


@st.composite
def mcq_notes(draw: Any) -> McqNote:
    count = draw(st.integers(2, 6))
    choices = draw(
        st.lists(
            texts(1),
            min_size=count,
            max_size=count,
            unique_by=as_it_looks,
        )
    )
    feedback = draw(st.lists(texts(), min_size=count, max_size=count))
    answer = draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=count, unique=True))
    pinned = draw(st.lists(st.integers(0, count - 1), max_size=2, unique=True))
    return McqNote(
        **draw(_common()),
        question=draw(texts(1)),
        choices=tuple(choices),
        answer=tuple(sorted(answer)),
        explanation=draw(texts()),
        shuffle=draw(st.booleans()),
        feedback=tuple(feedback) if any(feedback) else (),
        pinned=tuple(sorted(pinned)),
    )


_PLAIN = _CHARACTERS.filter(lambda ch: ch not in "{}:")


@st.composite
def cloze_notes(draw: Any) -> ClozeNote:
    parts = []
    for number in draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)):
        hint = draw(st.one_of(st.just(""), texts(1, _PLAIN).map(lambda h: f"::{h}")))
        parts.append(draw(texts(0, _PLAIN)))
        parts.append(f"{{{{c{number}::{draw(texts(1, _PLAIN))}{hint}}}}}")
    parts.append(draw(texts(0, _PLAIN)))
    return ClozeNote(**draw(_common()), text=_nfc("".join(parts)), extra=draw(texts(0, _PLAIN)))


@st.composite
def basic_notes(draw: Any) -> BasicNote:
    add_reverse = draw(st.one_of(st.none(), st.sampled_from(["", "y", " ", "<br>", "yes please"])))
    reverse = (
        draw(st.booleans()) if add_reverse is None else add_reverse.strip() not in ("", "<br>")
    )
    return BasicNote(
        **draw(_common()),
        front=draw(texts(1)),
        back=draw(texts(1)),
        reverse=reverse,
        add_reverse=add_reverse,
    )


_NUMBERS = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.decimals(-1000, 1000, places=4, allow_nan=False, allow_infinity=False).map(str),
)


@st.composite
def typed_answers(draw: Any) -> TypedAnswer:
    kind = draw(st.sampled_from(["text", "number", "tolerance", "range"]))
    if kind == "text":
        text = draw(one_line())
        return TypedAnswer(text=text, shown=text)
    raw = draw(_NUMBERS)
    if kind == "number":
        return TypedAnswer(low=float(raw), high=float(raw), shown=raw)
    if kind == "tolerance":
        tolerance = draw(st.sampled_from(["0.5", "1", "0.0005", "2e-3"]))
        low, high = float(raw) - float(tolerance), float(raw) + float(tolerance)
        return TypedAnswer(low=low, high=high, shown=f"{raw} ± {tolerance}")
    top = draw(_NUMBERS.filter(lambda other: float(other) >= float(raw)))
    return TypedAnswer(low=float(raw), high=float(top), shown=f"{raw} \u2013 {top}")


def as_it_looks(text: str) -> str:
    """Texts the checks take for the same: case, white space and invisible characters
    aside."""
    return " ".join(without_invisible(text).split()).casefold()


def _answer_key(answer: TypedAnswer) -> str:
    return answer.shown if answer.is_number else as_it_looks(answer.text)


@st.composite
def typed_notes(draw: Any) -> TypedNote:
    answers = draw(st.lists(typed_answers(), min_size=1, max_size=3, unique_by=_answer_key))
    return TypedNote(
        **draw(_common()),
        question=draw(texts(1)),
        answers=tuple(answers),
        explanation=draw(texts()),
        match_case=draw(st.booleans()),
    )


notes = st.one_of(mcq_notes(), cloze_notes(), basic_notes(), typed_notes())


@st.composite
def study_settings(draw: Any) -> StudySettings | None:
    if draw(st.booleans()):
        return None
    steps = st.lists(st.sampled_from([1.0, 30.0, 60.0, 90.0, 600.0, 3600.0, 86400.0]), max_size=3)
    return StudySettings(
        new_per_day=draw(st.integers(0, 9999)),
        review_limit=draw(st.integers(0, 9999)),
        desired_retention=draw(st.sampled_from([0.7, 0.85, 0.9, 0.925, 0.99])),
        learning_steps=tuple(draw(steps)),
        relearning_steps=tuple(draw(steps)),
        maximum_interval=draw(st.integers(1, 36500)),
    )


@st.composite
def decks(draw: Any, source: Path) -> Deck:
    """A valid deck of one language, as loading ``source`` would give it."""
    parts = draw(
        st.lists(
            one_line().filter(lambda t: "::" not in t and t[-1] != ":" and t[0] != ":"),
            min_size=1,
            max_size=3,
        )
    )
    drawn: list[Note] = draw(st.lists(notes, min_size=1, max_size=5))
    note_ids = draw(st.lists(ids, min_size=len(drawn), max_size=len(drawn), unique=True))
    guid_list = draw(st.lists(guids, min_size=len(drawn), max_size=len(drawn), unique=True))
    with_guid = draw(st.booleans())
    drawn = [
        replace(note, id=nid, guid=guid if with_guid else "")
        for note, nid, guid in zip(drawn, note_ids, guid_list, strict=True)
    ]
    spellings = Spellings("tag")
    deck_tags = draw(tags)
    every_tag = [*deck_tags, *(tag for note in drawn for tag in note.tags)]
    assume(all(spellings.problem(tag, None) is None for tag in every_tag))
    lang = draw(st.sampled_from(["", "", "en", "pt-BR"]))
    key = draw(ids)
    return Deck(
        key=f"{key}.{lang}" if lang else key,
        name="::".join(parts),
        source=source,
        notes=tuple(drawn),
        description=draw(texts()),
        tags=deck_tags,
        study=draw(study_settings()),
        lang=lang,
        languages=(lang,) if lang else (),
        label_language="" if lang else draw(st.sampled_from(list(LABEL_LANGUAGES))),
    )


def without_lines(deck: Deck) -> Deck:
    """``deck`` with every note's line 0, to compare what was written with what was read."""
    return replace(deck, notes=tuple(replace(note, line=0) for note in deck.notes))
