"""Typed-answer notes (``type: typed``): the card format, the schema, and what Anki receives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from deckbuilder.anki.notetypes import OWN_KINDS, note_type
from deckbuilder.cardfile.reader import load_decks
from deckbuilder.cardfile.schema import card_schema
from deckbuilder.errors import DeckError
from deckbuilder.model import NoteKind, TypedAnswer, TypedNote
from deckbuilder.render.deck import render_deck
from tests.app_calls import build_packages
from tests.cardfile.loading import load_deck
from tests.conftest import DATA, copied, import_package

SOURCE = DATA / "typed"


def deck_file(tmp_path: Path, note: str) -> Path:
    path = tmp_path / "deck.yaml"
    path.write_text(f"deck: D\nid: d\nnotes:\n  - id: n\n    type: typed\n{note}", encoding="utf-8")
    return path


def test_the_test_decks_load_with_every_answer_form() -> None:
    notes = {f"{d.key}/{n.id}": n for d in load_decks([SOURCE]) for n in d.notes}
    assert all(isinstance(n, TypedNote) for n in notes.values())
    tomb = notes["typed-english/tomb"]
    assert isinstance(tomb, TypedNote)
    assert [a.text for a in tomb.answers] == ["no one", "nobody"] and not tomb.match_case
    case = notes["typed-english/case"]
    assert isinstance(case, TypedNote) and case.match_case
    pi = notes["typed-english/pi-range"]
    assert isinstance(pi, TypedNote)
    assert pi.answers == (TypedAnswer(low=3.141, high=3.142, shown="3.141 \u2013 3.142"),)
    born = notes["typed-english/grant-born"]
    assert isinstance(born, TypedNote)
    assert [(a.is_number, a.shown) for a in born.answers] == [(True, "1822"), (False, "twenty-two")]
    dose = notes["typed-english/dose"]
    assert isinstance(dose, TypedNote)
    assert dose.answers == (TypedAnswer(low=500, high=500, shown="500", unit="mg"),)
    assert dose.answers[0].shown_with_unit == "500 mg"


@pytest.mark.parametrize("path", sorted(SOURCE.glob("*.yaml")), ids=lambda p: p.name)
def test_test_decks_validate_against_the_schema(path: Path) -> None:
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), card_schema())


@pytest.mark.parametrize(
    ("note", "message"),
    [
        ("    question: Q?\n", "'answer' is required"),
        ("    question: Q?\n    answer: []\n", "'answer' is empty"),
        ("    question: Q?\n    answer: [a, A]\n", "answer[1] repeats answer[0]"),
        ("    question: Q?\n    answer: {number: x}\n", "'answer.number' must be a number, not x"),
        ("    question: Q?\n    answer: {number: .inf}\n", "must be a number"),
        (
            "    question: Q?\n    answer: {number: 1e400}\n",
            "'answer.number' is too large a number",
        ),
        (
            "    question: Q?\n    answer: {min: -1e999, max: 1}\n",
            "'answer.min' is too large a number",
        ),
        ("    question: Q?\n    answer: {number: 1, tolerance: -1}\n", "must not be negative"),
        ("    question: Q?\n    answer: {min: 5, max: 3}\n", "'min' (5) is above 'max' (3)"),
        ("    question: Q?\n    answer: {min: 5}\n", "must give 'number'"),
        ("    question: Q?\n    answer: {number: 1, min: 0, max: 2}\n", "one or the other"),
        ("    question: Q?\n    answer: {numbr: 1}\n", "unknown key 'numbr'"),
        ("    question: Q?\n    answer: {number: 1, unit: 5}\n", "must be a unit written after"),
        ("    question: Q?\n    answer: {number: 1, unit: [mg]}\n", "'answer.unit' must be text"),
        ("    question: Q?\n    answer: {number: 1, unit: ''}\n", "must be a unit written after"),
        ("    question: Q?\n    answer: [[a]]\n", "must be text or a number mapping"),
        ('    question: Q?\n    answer: "a\\nb"\n', "must be one line"),
        ("    question: Q?\n    answer: a\n    match_case: maybe\n", "'match_case' must be true"),
        ("    question: Q?\n    answer: a\n    choices: [a, b]\n", "unknown key 'choices'"),
    ],
)
def test_bad_typed_notes_are_located(tmp_path: Path, note: str, message: str) -> None:
    with pytest.raises(DeckError) as info:
        load_deck(deck_file(tmp_path, note))
    assert any(message in str(p) for p in info.value.problems), info.value.problems
    assert all(p.line for p in info.value.problems)


def test_answers_field_carries_texts_and_ranges() -> None:
    (deck,) = [d for d in load_decks([SOURCE]) if d.key == "typed-english"]
    fields = {rn.note.id: rn.fields for rn in render_deck(deck).notes}
    assert fields["symbols"][1] == '<div class="db-accept" data-db-lang="en">&lt; &amp;</div>'
    assert fields["pi-range"][1] == (
        '<div class="db-accept" data-min="3.141" data-max="3.142" data-db-lang="en">'
        "3.141 \u2013 3.142</div>"
    )
    assert fields["case"][3] == "yes" and fields["tomb"][3] == "no"
    assert fields["dose"][1] == (
        '<div class="db-accept" data-min="500.0" data-max="500.0" data-unit="mg" '
        'data-db-lang="en">500 mg</div>'
    )


@pytest.mark.anki
def test_anki_receives_the_typed_note_type(tmp_path: Path) -> None:
    from anki.collection import Collection

    spec = note_type(NoteKind.TYPED)
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        for result in build_packages(
            [copied(SOURCE, tmp_path)], tmp_path / "out", timestamp=1_700_000_000
        ):
            import_package(col, result.path)
        model = col.models.get(spec.id)  # type: ignore[arg-type]
        assert model is not None and model["name"] == spec.name
        assert [f["name"] for f in model["flds"]] == list(spec.fields)
        cids = col.find_cards(f'"note:{spec.name}"')
        assert len(cids) == 10  # one card per note
        card = col.get_card(cids[0])
        question: Any = card.question()
        assert "[[type:Answers]]" in question and 'class="db-accept"' not in question
        assert 'class="db-accept"' in card.answer()
        assert col.fix_integrity()[1]
    finally:
        col.close()


def test_note_type_id_is_new_and_in_range() -> None:
    ids = {note_type(kind).id for kind in OWN_KINDS}
    assert len(ids) == len(OWN_KINDS)
    assert 2**50 <= note_type(NoteKind.TYPED).id < 2**51
