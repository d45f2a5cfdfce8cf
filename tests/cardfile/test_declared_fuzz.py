"""Any declaration of a note type, however wrong, is refused with located problems or
builds (issue 41: bad input gets one clear line with file and line, never exit 3)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder import app
from deckbuilder.errors import DeckError

NAMES = st.sampled_from(["Front", "Back", "A b", "한국어", "", " x", "a:b", "{{", "Tags", "c1"])
PIECES = st.sampled_from(
    ["{{Front}}", "{{Back}}", "{{#Front}}", "{{/Front}}", "{{^Back}}", "{{/Back}}", "text",
     "{{FrontSide}}", "{{cloze:Front}}", "{{type:Back}}", "{{tts ko_KR:Front}}", "{{tts :x}}",
     "{{", "}}", "{{>x}}", "{{=<% %>=}}", "<!--", "{{hint:Nope}}", "{{text:한국어}}"]
)  # fmt: skip
TEMPLATE = st.lists(PIECES, max_size=5).map("".join)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**64), st.text(max_size=5))


def declaration() -> Any:
    """A note type that builds (now and then), or one with random parts and keys."""
    return st.one_of(_sound(), _random())


def _sound() -> Any:
    card = st.fixed_dictionaries(
        {"front": st.sampled_from(["{{Front}}", "{{Front}}{{tts ko_KR:Front}}", "{{cloze:Front}}"]),
         "back": st.sampled_from(["{{FrontSide}}<hr id=answer>{{Back}}", "{{cloze:Front}}{{Back}}"])},
        optional={"name": st.sampled_from(["One", "Two"])},
    )  # fmt: skip
    return st.fixed_dictionaries(
        {"fields": st.just(["Front", "Back"]), "cards": st.lists(card, min_size=1, max_size=2)},
        optional={"kind": st.sampled_from(["standard", "cloze"]), "raw": st.just(["Back"])},
    )


def _random() -> Any:
    card = st.fixed_dictionaries(
        {},
        optional={"name": st.one_of(NAMES, SCALAR), "front": TEMPLATE, "back": TEMPLATE},
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "name": st.one_of(NAMES, SCALAR),
            "fields": st.one_of(st.lists(NAMES, max_size=4), SCALAR),
            "cards": st.one_of(st.lists(card, max_size=3), SCALAR),
            "kind": st.sampled_from(["standard", "cloze", "basic", 1]),
            "sort_field": st.one_of(NAMES, SCALAR),
            "css": st.one_of(st.text(max_size=10), SCALAR),
            "raw": st.one_of(st.lists(NAMES, max_size=2), SCALAR),
            "anki_id": SCALAR,
            "colour": SCALAR,
        },
    )


def note() -> Any:
    texts = st.one_of(st.sampled_from(["x", "{{c1::y}}", "<b>z</b>", ""]), st.text(max_size=8))
    fields = st.dictionaries(
        st.one_of(NAMES, st.just("Front")), st.one_of(texts, SCALAR), max_size=3
    )
    return st.fixed_dictionaries(
        {
            "id": st.sampled_from(["a", "b", "A"]),
            "type": st.sampled_from(["vocab", "nope", "cloze"]),
        },
        optional={"fields": st.one_of(fields, SCALAR), "speak": st.sampled_from(["front", []])},
    )


def documents() -> Any:
    """A card file with one sound note type and notes that fill it, or one of random
    declarations and notes."""
    sound = st.fixed_dictionaries(
        {
            "deck": st.just("D"),
            "id": st.just("d"),
            "note_types": st.fixed_dictionaries({"vocab": _sound()}),
            "notes": st.just([{"id": "a", "type": "vocab", "fields": {"Front": "{{c1::x}}"}}]),
        }
    )
    names = st.sampled_from(["vocab", "Bad Key", "mcq", "x"])
    random = st.fixed_dictionaries(
        {
            "deck": st.just("D"),
            "id": st.just("d"),
            "note_types": st.dictionaries(names, declaration(), max_size=2),
            "notes": st.lists(note(), min_size=1, max_size=3),
        }
    )
    return st.one_of(sound, random)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(document=documents())
def test_a_declaration_is_built_or_refused_with_lines(document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cards = Path(folder) / "cards"
        cards.mkdir()
        (cards / "d.yaml").write_text(yaml.safe_dump(document, allow_unicode=True), "utf-8")
        request = app.CheckRequest(app.Selection(sources=(cards,), media_dir=None), lint=False)
        try:
            result = app.check(request)
        except DeckError as exc:
            assert exc.problems
            assert all(p.line is not None for p in exc.problems), exc.problems
            return
        out = Path(folder) / "out"
        selection = app.Selection(sources=(cards,), media_dir=None)
        app.build(app.BuildRequest(1_800_000_000, selection, out_dir=out, preview=False))
        assert result.decks
