"""The JSON Schema and the loader accept the same card files (issue 31, item 5).

Documents are drawn from the declaration of the card format (:mod:`deckbuilder.cardfile.keys`):
each key absent, with a value of its shape, or with a value of a wrong shape or out of
its range, and now and then a key that does not exist. (hypothesis-jsonschema would draw
from the schema itself, but its 0.23 does not run with this Hypothesis.)
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deckbuilder.cardfile.keys import (
    CHOICE,
    DECK,
    LABEL_LANGUAGES,
    NOTE_FIRST,
    NOTE_LAST,
    NOTE_TYPES,
    STUDY,
    Key,
    NoteType,
    Shape,
)
from deckbuilder.cardfile.reader import load_deck_languages
from deckbuilder.cardfile.schema import card_schema
from deckbuilder.deck_options import LOWER_BOUNDS, UPPER_BOUNDS
from deckbuilder.errors import DeckError

SCHEMA = card_schema()
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
# A folder of this process's own: a fixed name was shared by every run on the machine,
# and one run's document overwrote another's mid-read.
FOLDER = Path(tempfile.mkdtemp(prefix="deckbuilder-schema-test-"))
atexit.register(shutil.rmtree, FOLDER, True)

# What JSON Schema cannot say, each as the loader says it: the problems a document the
# schema accepts may still get.
SEMANTIC = [
    r"answer '[A-Z]' is not one of the choices",  # a letter beyond the choices
    r"answer '[A-Z]' is given twice",  # 'A, a' or [A, a]
    r"choice [A-Z0-9]+ repeats choice",  # compared without case and extra spaces
    r"answer\[\d+\] repeats answer\[\d+\]",
    r"duplicate note id",
    r"guid '.*' is also the guid of note",
    r"a language the deck does not declare",  # language maps against 'languages'
    r"has no '[\w-]+' text",
    r"is a language map; declare the deck's languages first",
    r"cloze text has no deletion|malformed cloze|number their deletions differently",
    r"'min' \(.*\) is above 'max'",
    r"differ only in case",
    r"would be renamed '.*' by Anki",  # 'a :: b': Anki's deck name rules (rslib decks/name.rs)
    r"'speak' names '[^']*', not a text",  # which texts each kind of note can speak
    r"ha(s|ve) no mask: the masks are on cards",  # image occlusion: a card number skipped
    r"has no area: the mask would hide nothing",  # a polygon whose corners are on a line
]


def text(required: bool = False) -> Any:
    words = st.sampled_from(["Mars", "a b", "2", "1.5", "yes", "여보세요", "x: y"])
    plain = st.one_of(words, st.integers(0, 9), st.booleans())
    return plain if required else st.one_of(plain, st.none())


def wrong_shape() -> Any:
    return st.sampled_from([[], ["x", ["y"]], {"ab": "x", "a b": 1}, None, "", "Bad Id", 1.5])


@st.composite
def value(draw: Any, key: Key, languages: list[str], mistakes: float) -> Any:
    """A value of ``key``'s shape, or with the chance ``mistakes`` a wrong one."""
    if draw(st.floats(0, 1)) < mistakes:
        return draw(wrong(key))
    return draw(right(key, languages, mistakes))


def right(key: Key, languages: list[str], mistakes: float) -> Any:
    shape = key.shape
    if shape in (Shape.TEXT, Shape.DECK_NAME):
        plain = text(key.required)
        if shape is Shape.DECK_NAME:
            plain = st.sampled_from(["D", "A::B", " Space :: Planets "])
        if key.name == "text" and key.pattern:
            plain = st.sampled_from(["{{c1::Seoul}} is a city.", "{{c2::x::hint}} {{c1::y}}"])
        if languages:
            return st.one_of(plain, st.fixed_dictionaries({code: plain for code in languages}))
        return plain
    if shape is Shape.PLAIN:
        return st.sampled_from(["", "y", None])
    if shape is Shape.SPEAK:
        spoken = st.sampled_from(["front", "question", "extra"])
        return st.one_of(st.none(), spoken, st.lists(spoken, max_size=2, unique=True))
    if shape is Shape.LOCALE:
        locale = st.sampled_from(["ko_KR", "en_US", "ja"])
        if languages:
            return st.one_of(locale, st.fixed_dictionaries({code: locale for code in languages}))
        return locale
    if shape is Shape.ID:
        return st.sampled_from(["a", "deck-1", "n_2", "7"])
    if shape is Shape.GUID:
        return st.sampled_from(["abc!#1", "Fx_9", "42"])
    if shape is Shape.LABEL:
        return st.sampled_from([*LABEL_LANGUAGES, None])
    if shape is Shape.FLAG:
        return st.booleans()
    if shape is Shape.WHOLE:
        return st.integers(int(key.low or 0), int(key.high or 0))
    if shape is Shape.NUMBER:
        return st.floats(key.low, key.high) if key.high is not None else st.integers(0, 5)
    if shape is Shape.STEPS:
        step = st.sampled_from(["1m", "10m", "1d", "30s", "1.5h"])
        return st.one_of(step, st.lists(step, max_size=3))
    if shape is Shape.PARAMS:
        middle = [
            round((low + high) / 2, 3) for low, high in zip(LOWER_BOUNDS, UPPER_BOUNDS, strict=True)
        ]
        return st.sampled_from([None, middle])
    if shape is Shape.URL:
        return st.sampled_from(
            [None, "https://example.org/cards", "http://x.test/a?b=1&c", "ftp://x", "https://a b"]
        )
    if shape is Shape.PATH:
        return st.none()  # a real path must name a file: not the schema's business
    if shape is Shape.TAGS:
        tag = st.sampled_from(["a", "topic::sub", "x-1", "7"])
        return st.one_of(st.none(), tag, st.lists(tag, max_size=3))
    if shape is Shape.FILES:
        name = st.sampled_from(["a.png", "내 그림.png", "sub/b.mp3"])
        return st.one_of(st.none(), name, st.lists(name, max_size=2))
    if shape is Shape.LINT:
        code = st.sampled_from(key.values)
        return st.one_of(st.none(), code, st.lists(code, max_size=2))
    if shape is Shape.LANGUAGES:
        return st.just(languages)
    if shape is Shape.LETTERS:
        return st.one_of(
            st.sampled_from(["A", "b", "A, B", " C "]), st.lists(st.sampled_from("ABC"), min_size=1)
        )
    if shape is Shape.CHOICES:
        choice = st.one_of(
            text(True),
            st.fixed_dictionaries(
                {"text": text(True)},
                optional={"feedback": text(), "pin": st.booleans()},
            ),
        )
        return st.lists(choice, min_size=2, max_size=4)
    if shape is Shape.ANSWERS:
        number = st.one_of(
            st.fixed_dictionaries(
                {"number": st.integers(-5, 5)}, optional={"tolerance": st.integers(0, 2)}
            ),
            st.fixed_dictionaries({"min": st.integers(-5, 0), "max": st.integers(0, 5)}),
        )
        one = st.one_of(st.sampled_from(["Mars", "no one", "4"]), number)
        return st.one_of(one, st.lists(one, min_size=1, max_size=3))
    if shape is Shape.STUDY:
        return st.one_of(st.none(), mapping(STUDY, languages, mistakes))
    if shape is Shape.PICTURE:
        return st.sampled_from(["heart.png", "내 그림.jpg"])
    if shape is Shape.MODE:
        return st.sampled_from([*key.values, None])
    if shape is Shape.MASKS:
        return st.tuples(mask(), st.lists(st.one_of(mask(), label()), max_size=3)).map(
            lambda drawn: [drawn[0], *drawn[1]]
        )
    raise AssertionError(shape)


def mask() -> Any:
    """A mask of an image occlusion note: its own card, or card 1."""
    box = st.tuples(
        st.integers(0, 50), st.integers(0, 50), st.integers(1, 50), st.floats(0.5, 50)
    ).map(list)
    triangle = st.just([[10, 10], [60, 10], [35, 50.5]])
    shape = st.one_of(
        st.fixed_dictionaries({"rect": box}),
        st.fixed_dictionaries({"ellipse": box}),
        st.fixed_dictionaries({"polygon": triangle}),
    )
    card = st.one_of(st.just({}), st.just({"card": 1}))
    return st.tuples(shape, card).map(lambda drawn: {**drawn[0], **drawn[1]})


def label() -> Any:
    return st.fixed_dictionaries(
        {"text": st.sampled_from(["RA", "왼쪽", "7"]), "at": st.just([200, 120])},
        optional={"size": st.sampled_from([1, 24, 40.5])},
    )


def wrong(key: Key) -> Any:
    shape = key.shape
    out = [wrong_shape()]
    if shape in (Shape.WHOLE, Shape.NUMBER) and key.high is not None:
        out.append(st.sampled_from([key.high + 1, (key.low or 0) - 1, "20"]))
    if shape is Shape.LANGUAGES:
        out.append(st.sampled_from([["Korean"], ["all"], ["ko", "ko"], "ko"]))
    if shape is Shape.ANSWERS:
        out.append(
            st.sampled_from(
                [{"number": "x"}, {"number": 1, "min": 0}, {"number": 1, "tolerance": -1}, "a\nb"]
            )
        )
    if shape is Shape.CHOICES:
        out.append(
            st.sampled_from([["only"], [{"feedback": "f"}, "x"], ["x", {"text": "y", "pin": "no"}]])
        )
    if shape is Shape.LETTERS:
        out.append(st.sampled_from(["xy", "A1", ["AB"]]))
    if shape is Shape.STEPS:
        out.append(st.sampled_from(["1x", 60, ["10"]]))
    if shape is Shape.DECK_NAME:
        out.append(st.sampled_from(["A::::B", "a\tb", "  "]))
    if shape is Shape.MODE:
        out.append(st.sampled_from(["hide", "Hide-All", 1]))
    if shape is Shape.MASKS:
        out.append(
            st.sampled_from(
                [
                    [{"rect": [0, 0, 0, 10]}],  # zero-sized
                    [{"rect": [-1, 0, 5, 5]}],  # left of the picture
                    [{"rect": [0, 0, 5]}],
                    [{"polygon": [[0, 0], [1, 1]]}],
                    [{"rect": [0, 0, 5, 5], "ellipse": [0, 0, 5, 5]}],
                    [{"rect": [0, 0, 5, 5], "card": 0}],
                    [{"text": "RA"}],  # no 'at'
                    [{"text": "RA", "at": [1, 1], "card": 1}],
                    [{"text": "RA", "at": [1, 1]}],  # no mask
                    [{"rect": [0, 0, 5, 5], "at": [1, 1]}],
                    [{"card": 2}],
                ]
            )
        )
    return st.one_of(*out)


@st.composite
def mapping(
    draw: Any, keys: tuple[Key, ...], languages: list[str], mistakes: float
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in keys:
        if key.required or draw(st.booleans()):
            out[key.name] = draw(value(key, languages, mistakes))
    if draw(st.floats(0, 1)) < mistakes:
        out[draw(st.sampled_from(["nots", "Question", "colour"]))] = "x"
    return out


@st.composite
def notes(draw: Any, note_type: NoteType, languages: list[str], mistakes: float) -> dict[str, Any]:
    keys = NOTE_FIRST + note_type.keys + NOTE_LAST
    note = draw(mapping(tuple(k for k in keys if k.name != "type"), languages, mistakes))
    if not note_type.inferred or draw(st.booleans()):
        wrong = draw(st.floats(0, 1)) < mistakes
        note = {"type": "multiple-choice" if wrong else note_type.kind.value, **note}
    return note


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    """A card file's document, with no mistake (about half of them) or a few."""
    mistakes = draw(st.sampled_from([0.0, 0.0, 0.01, 0.03, 0.1]))
    languages = draw(st.sampled_from([[], [], ["ko", "en"], ["en"]]))
    # Note types of the author's own are drawn by tests/cardfile/test_declared_types.py.
    header = tuple(k for k in DECK if k.name not in ("languages", "notes", "note_types"))
    document = draw(mapping(header, languages, mistakes))
    if languages:
        document["languages"] = languages
    kinds = st.sampled_from(NOTE_TYPES)
    listed = st.lists(
        kinds.flatmap(lambda t: notes(t, languages, mistakes)), min_size=1, max_size=3
    )
    document["notes"] = draw(wrong_shape() if draw(st.floats(0, 1)) < mistakes else listed)
    return document


def problems(document: dict[str, Any]) -> list[str]:
    """The loader's problems with ``document`` in every language it declares ([] when
    it loads)."""
    FOLDER.mkdir(exist_ok=True)
    path = FOLDER / "deck.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    try:
        load_deck_languages(path, lang="all")
    except DeckError as exc:
        return [p.message for p in exc.problems]
    return []


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(document=documents())
# Disagreements the search once found: labels with no mask and a speech language that is
# none (the loader refuses them), a file name YAML reads as a number (the loader takes it).
@example({"notes": [{"id": "a", "image": "heart.png", "masks": [{"text": "RA", "at": [1, 1]}]}]})
@example({"missing_media": 1.5, "notes": [{"id": "a", "front": "Mars", "back": "Mars"}]})
@example({"speak_language": "Bad Id", "notes": [{"id": "a", "text": "{{c1::Seoul}} is a city."}]})
def test_the_schema_and_the_loader_accept_the_same_documents(document: dict[str, Any]) -> None:
    """Every document the schema accepts loads, and every document that loads is one the
    schema accepts.

    "Loads": ``load_deck_languages(path, lang="all")`` of the document written as YAML
    gives its decks without a DeckError, or with only problems JSON Schema cannot state
    (:data:`SEMANTIC`: an answer letter beyond the choices or given twice, choices or
    typed answers that repeat each other without regard to case, two notes with one id
    or GUID, a language map's codes against the deck's 'languages', cloze deletions
    beyond their opening '{{cN::', a range whose min is above its max, language codes
    equal but for case, a deck name Anki would rename). Never a structural problem: an unknown key, a value of the
    wrong type or out of its range, a required key missing.
    """
    found = problems(document)
    accepted = VALIDATOR.is_valid(document)
    if accepted:
        structural = [p for p in found if not any(re.search(s, p) for s in SEMANTIC)]
        assert not structural, (structural, document)
    if not found:
        assert accepted, (list(VALIDATOR.iter_errors(document))[:1], document)


@pytest.mark.parametrize("kind", [t.kind.value for t in NOTE_TYPES])
def test_every_declared_key_is_in_the_schema(kind: str) -> None:
    """The schema is built from the declaration: each note type's keys, and no other."""
    by_kind = {
        n["properties"]["type"]["const"]: n
        for n in SCHEMA["properties"]["notes"]["items"]["oneOf"]
        if "const" in n["properties"]["type"]
    }
    (note_type,) = [t for t in NOTE_TYPES if t.kind.value == kind]
    names = [k.name for k in NOTE_FIRST + note_type.keys + NOTE_LAST]
    assert list(by_kind[kind]["properties"]) == names
    choice = SCHEMA["properties"]["notes"]["items"]["oneOf"][0]["properties"]["choices"]
    assert [k.name for k in CHOICE] == list(choice["items"]["oneOf"][-1]["properties"])
