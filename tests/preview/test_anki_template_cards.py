"""cards_made (deckbuilder.templates, the card rule every layer uses): the cards a
standard note type makes for a note, against the real backend.

The oracle: a note type with these front templates in a fresh collection, a note with
these fields and tags added with ``col.add_note``, and the ordinals of ``note.cards()``.
Hypothesis picks the templates from shapes of the language (sections, negations, special
fields, filters, comments, ``{{FrontSide}}``, ``{{#c1}}``) and which fields are empty
(white space, ``<br>`` and ``<div>`` count as empty; a no-break space does not).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from deckbuilder.templates import cards_made, template_problems

pytestmark = pytest.mark.anki


class Cards:
    """A collection that adds notes of note types made for their front templates."""

    def __init__(self, col: Any) -> None:
        self.col = col
        self.types: dict[tuple[tuple[str, ...], tuple[str, ...]], Any] = {}

    def note_type(self, fields: Sequence[str], fronts: Sequence[str]) -> Any:
        """The note type; CardTypeError when Anki refuses its templates."""
        key = (tuple(fields), tuple(fronts))
        if key not in self.types:
            models = self.col.models
            note_type = models.new(f"Shapes {len(self.types) + 1}")
            for name in fields:
                models.add_field(note_type, models.new_field(name))
            for ordinal, front in enumerate(fronts):
                template = models.new_template(f"Card {ordinal + 1}")
                template["qfmt"], template["afmt"] = front, "{{FrontSide}}"
                models.add_template(note_type, template)
            models.add(note_type)
            self.types[key] = models.by_name(note_type["name"])
        return self.types[key]

    def made(
        self, fronts: Sequence[str], values: dict[str, str], tags: Sequence[str] = ()
    ) -> tuple[int, ...]:
        note = self.col.new_note(self.note_type(list(values), fronts))
        for name, text in values.items():
            note[name] = text
        note.tags = list(tags)
        self.col.add_note(note, 1)
        return tuple(sorted(card.ord for card in note.cards()))


@pytest.fixture(scope="module")
def anki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cards]:
    from anki.collection import Collection

    col = Collection(str(tmp_path_factory.mktemp("anki") / "collection.anki2"))
    yield Cards(col)
    col.close()


def _ours(
    fronts: Sequence[str], values: dict[str, str], tags: Sequence[str] = ()
) -> tuple[int, ...]:
    # Anki adds card 0 to a note none of whose fronts show anything; check refuses such a
    # note in a card file ("this note makes no card").
    return cards_made(fronts, values, tags=bool(tags)) or (0,)


# A vocabulary type: Recognition, Production, and a card only for notes with an example.
VOCABULARY = [
    "{{Korean}}{{tts ko_KR:Korean}}",
    "{{English}}",
    "{{#Example}}{{Korean}}: {{cloze-only:Example}}{{/Example}}",
]
CASES = {
    "all fields": (VOCABULARY, {"Korean": "가다", "English": "to go", "Example": "x"}, (0, 1, 2)),
    # A field's replacement counts when the field is not empty, whatever its filters show
    # (cloze-only: of a field without deletions shows nothing).
    "no Korean": (VOCABULARY, {"Korean": "", "English": "to go", "Example": "x"}, (1, 2)),
    "no example": (VOCABULARY, {"Korean": "가다", "English": "to go", "Example": "<br>"}, (0, 1)),
    "a no-break space is something": (
        VOCABULARY,
        {"Korean": "\xa0", "English": "", "Example": ""},
        (0,),
    ),
    "nothing: card 0 all the same": (
        VOCABULARY,
        {"Korean": " ", "English": "", "Example": ""},
        (0,),
    ),
    "text counts for nothing": (["x{{#A}}text{{/A}}", "{{B}}"], {"A": "a", "B": "b"}, (1,)),
    "FrontSide counts for nothing": (["{{FrontSide}}{{B}}", "{{A}}"], {"A": "a", "B": ""}, (1,)),
    "a special field always shows": (["{{Deck}}", "{{A}}"], {"A": "", "B": ""}, (0,)),
    "a field named like it does not": (["{{Deck}}", "{{A}}"], {"A": "a", "Deck": ""}, (1,)),
    "a negated section": (["{{^A}}{{B}}{{/A}}", "{{A}}"], {"A": "a", "B": "b"}, (1,)),
    "a card number shows nothing": (["{{#c1}}{{A}}{{/c1}}", "{{B}}"], {"A": "a", "B": "b"}, (1,)),
    "a comment shows nothing": (["<!--{{A}}-->{{B}}", "{{A}}"], {"A": "a", "B": ""}, (1,)),
}


@pytest.mark.parametrize(("fronts", "values", "made"), CASES.values(), ids=CASES.keys())
def test_cards_made_as_anki_makes_them(
    anki: Cards, fronts: list[str], values: dict[str, str], made: tuple[int, ...]
) -> None:
    assert _ours(fronts, values) == made == anki.made(fronts, values)


@pytest.mark.parametrize("tags", [(), ("verb",)])
def test_tags_show_when_the_note_has_some(anki: Cards, tags: tuple[str, ...]) -> None:
    fronts, values = ["{{Tags}}", "{{A}}"], {"A": "a", "B": ""}
    assert (
        _ours(fronts, values, tags) == anki.made(fronts, values, tags) == ((0, 1) if tags else (1,))
    )


@pytest.mark.parametrize("front", ["{{#A}}never closed", "{{/A}}", "{{=<% %>=}}<%A%>"])
def test_malformed_fronts_make_no_card_and_are_refused(front: str) -> None:
    """Anki refuses to save a malformed template; a declaration holding one is refused."""
    assert cards_made(["{{A}}", front], {"A": "a"}) == (0,)
    problems = template_problems(
        ["A"], [("1", "{{A}}", "{{A}}"), ("2", front, "{{A}}")], cloze=False
    )
    assert any("the front of card 2" in problem for problem in problems)


SHAPES = [
    "{{A}}", "{{B}}", "{{A}}{{B}}", "{{#A}}{{B}}{{/A}}", "{{^A}}{{B}}{{/A}}", "{{^A}}{{C}}{{/A}}",
    "{{#A}}{{^B}}{{C}}{{/B}}{{/A}}", "{{^A}}{{^B}}{{C}}{{/B}}{{/A}}", "x{{#A}}text{{/A}}{{#B}}{{/B}}",
    "{{text:A}}", "{{hint:B}}", "{{tts en_US:C}}", "{{kana:nosuch:A}}", "{{type:B}}", "{{Deck}}",
    "{{Tags}}", "{{Type}}{{A}}", "{{FrontSide}}{{B}}", "{{#c1}}{{A}}{{/c1}}", "{{^c1}}{{B}}{{/c1}}",
    "<!--{{A}}-->{{C}}", "{{#Tags}}{{C}}{{/Tags}}", "{{^Tags}}{{A}}{{/Tags}}", "{{#Deck}}{{B}}{{/Deck}}",
    "{{#A}}{{#B}}{{#C}}{{A}}{{/C}}{{/B}}{{/A}}",
]  # fmt: skip
VALUES = ["", "x", " ", "<br>", "<div> </div>", "\xa0", "a b", "<b></b>"]


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    st.lists(st.sampled_from(SHAPES), min_size=1, max_size=4, unique=True),
    st.lists(st.sampled_from(VALUES), min_size=4, max_size=4),
    st.sampled_from([(), ("t",)]),
    st.sampled_from(["", "Deck", "Tags"]),
)
def test_random_templates_and_fields_make_the_cards_anki_makes(
    anki: Cards, fronts: list[str], texts: list[str], tags: tuple[str, ...], extra: str
) -> None:
    """A fourth field named like a special field, or none."""
    names = ["A", "B", "C", extra] if extra else ["A", "B", "C"]
    values = dict(zip(names, texts[: len(names)], strict=True))
    from anki.errors import CardTypeError

    try:
        made = anki.made(fronts, values, tags)
    except CardTypeError:  # Anki refuses a front that names no field ({{Deck}} in some sets)
        reject()
    assert _ours(fronts, values, tags) == made
