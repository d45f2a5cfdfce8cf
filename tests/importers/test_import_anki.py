"""Round trip: import each format -> card file -> build -> the real Anki importer."""

from __future__ import annotations

from pathlib import Path

import pytest

from deckbuilder.anki.identity import note_guid
from deckbuilder.importers import ImportOptions, plan_import, read_source, write_import
from tests.app_calls import build_packages
from tests.conftest import DATA, import_package

pytestmark = pytest.mark.anki
IMPORT = DATA / "import"


def imported_notes(tmp_path: Path, collection: object, source: Path) -> dict[str, object]:
    """Import ``source``, build its card file, import the package; notes by question text."""
    plan = plan_import(read_source(source), ImportOptions(out=tmp_path / "cards" / "deck.yaml"))
    write_import(plan)
    (deck,) = plan.decks
    (result,) = build_packages([deck.out], tmp_path / "out", timestamp=1_700_000_000)
    col: object = collection
    log = import_package(col, result.path)
    assert len(log.new) == len(deck.notes)  # type: ignore[attr-defined]
    assert col.fix_integrity() == ("Database rebuilt and optimized.", True)  # type: ignore[attr-defined]
    assert deck.name in [d.name for d in col.decks.all_names_and_ids()]  # type: ignore[attr-defined]
    notes = [col.get_note(nid) for nid in col.find_notes("")]  # type: ignore[attr-defined]
    kinds = {"deckbuilder Multiple Choice", "deckbuilder Typed Answer"}
    assert all(n.note_type()["name"] in kinds for n in notes)  # type: ignore[attr-defined]
    guids = {note_guid("deck", note.id) for note in deck.notes}
    assert {n.guid for n in notes} == guids  # type: ignore[attr-defined]
    return {n["Question"]: n for n in notes}  # type: ignore[index]


def test_seed_quiz_in_anki(tmp_path: Path, collection: object) -> None:
    notes = imported_notes(tmp_path, collection, IMPORT / "gradient-checkpointing-quiz.txt")
    assert len(notes) == 8
    q5 = notes[
        "PyTorch에서 모듈에 그래디언트 체크포인트를 적용하는 데 일반적으로 사용되는 유틸리티는 무엇입니까?"
    ]
    assert q5["Answer"] == "A"  # type: ignore[index]
    assert (
        '<div class="db-choice" data-choice="A" data-db-lang="en">토치.utils.체크포인트</div>'
        in q5["Choices"]
    )  # type: ignore[index]
    assert (
        '<div class="db-choice" data-choice="D" data-db-lang="en">torch.cuda.empty_cache</div>'
        in q5["Choices"]
    )  # type: ignore[index]
    answers = sorted(n["Answer"] for n in notes.values())  # type: ignore[index]
    assert answers == ["A", "A", "B", "B", "C", "C", "D", "D"]


def test_marked_quiz_in_anki(tmp_path: Path, collection: object) -> None:
    notes = imported_notes(tmp_path, collection, IMPORT / "marked.txt")
    planet = notes["Which planet is closest\nto the Sun?"]
    assert planet["Answer"] == "B"  # type: ignore[index]
    assert planet["Explanation"] == (  # type: ignore[index]
        "Mercury orbits at about 0.39 AU.\nIt is also the smallest planet."
    )
    primes = notes["Which of these are prime?"]
    assert primes["Answer"] == "A, C" and primes["Explanation"] == "2와 5만 소수입니다."  # type: ignore[index]
    seoul = notes["서울은 어느 나라의 수도입니까?"]
    assert seoul["Answer"] == "A" and seoul["Explanation"] == "서울은 대한민국의 수도입니다."  # type: ignore[index]


def test_aiken_in_anki(tmp_path: Path, collection: object) -> None:
    notes = imported_notes(tmp_path, collection, IMPORT / "moodle.aiken")
    assert notes["What is the correct answer to this question?"]["Answer"] == "D"  # type: ignore[index]
    lms = notes["Which LMS has the most quiz import formats?"]
    assert lms["Answer"] == "A"  # type: ignore[index]
    assert '<div class="db-choice" data-choice="F" data-db-lang="en">Ilias</div>' in lms["Choices"]  # type: ignore[index]


def test_gift_in_anki(tmp_path: Path, collection: object) -> None:
    notes = imported_notes(tmp_path, collection, IMPORT / "moodle.gift")
    assert len(notes) == 16
    tomb = notes["Who's buried in Grant's tomb?"]
    assert tomb["Answer"] == "C"  # type: ignore[index]
    # General feedback is the explanation; each answer's feedback stays with its choice.
    assert tomb["Explanation"] == "A classic trick question."  # type: ignore[index]
    assert "No, he is in the tomb with his wife." in tomb["Choices"]  # type: ignore[index]
    assert "Right: both are entombed, not buried." in tomb["Choices"]  # type: ignore[index]
    assert notes["Which of these numbers are prime?"]["Answer"] == "A, B"  # type: ignore[index]
    sun = notes["The Sun orbits the Earth."]
    assert sun["Answer"] == "B" and sun["Shuffle"] == "no"  # type: ignore[index]
    assert '<div class="db-choice" data-choice="A" data-db-lang="en">True<div' in sun["Choices"]  # type: ignore[index]
    escapes = notes["Which symbol marks a right answer in GIFT: = or ~?"]
    assert "Escaped {braces} too" in escapes["Choices"]  # type: ignore[index]  # = (equals)'s
    assert (
        '<div class="db-choice" data-choice="A" data-db-lang="en">= (equals)<div'
        in escapes["Choices"]
    )  # type: ignore[index]
    assert sorted(escapes.tags) == ["Escapes"]  # type: ignore[attr-defined]
    html = notes["What does <strong>CPU</strong> stand for?"]
    assert (
        '<div class="db-choice" data-choice="A" data-db-lang="en"><em>Central</em> processing unit</div>'
        in html["Choices"]
    )  # type: ignore[index]
    assert (
        'data-choice="B" data-db-lang="en">Computer &amp; peripheral unit</div>' in html["Choices"]
    )  # type: ignore[index]
    plain = notes["Which is *literal* text?"]
    assert 'data-choice="B" data-db-lang="en">&lt;b&gt;bold&lt;/b&gt;</div>' in plain["Choices"]  # type: ignore[index]
    assert 'data-choice="A" data-db-lang="en">2 * 3 = 6</div>' in plain["Choices"]  # type: ignore[index]
