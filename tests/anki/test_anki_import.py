"""The oracle: build packages, import them with the real Anki backend, assert what Anki sees."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.anki.identity import note_guid
from tests.app_calls import build_packages
from tests.conftest import DATA, ROOT, copied, import_package

pytestmark = pytest.mark.anki


def notes_by_guid(col: object) -> dict[str, object]:
    return {col.get_note(nid).guid: col.get_note(nid) for nid in col.find_notes("")}  # type: ignore[attr-defined]


def test_mixed_deck_in_anki(tmp_path: Path, collection: object) -> None:
    col: object = collection
    (result,) = build_packages(
        [copied(DATA / "mixed.yaml", tmp_path)],
        tmp_path / "out",
        timestamp=1_700_000_000,
        media_dir=DATA / "media",
    )
    log = import_package(col, result.path)
    assert len(log.new) == 4 and not log.duplicate and not log.conflicting  # type: ignore[attr-defined]

    assert col.note_count() == 4  # type: ignore[attr-defined]
    assert col.card_count() == 5  # type: ignore[attr-defined]  # mcq 1 + 1, cloze c1/c2 2, basic 1
    assert "Test::Mixed" in [d.name for d in col.decks.all_names_and_ids()]  # type: ignore[attr-defined]

    notes = notes_by_guid(col)
    single = notes[note_guid("mixed", "single")]
    assert single.note_type()["name"] == "deckbuilder Multiple Choice"  # type: ignore[attr-defined]
    assert single["Question"] == "Which planet is closest to the Sun?"  # type: ignore[index]
    assert single["Answer"] == "B" and single["Shuffle"] == "yes"  # type: ignore[index]
    assert 'data-choice="B" data-db-lang="en">Mercury</div>' in single["Choices"]  # type: ignore[index]
    assert sorted(single.tags) == ["astronomy", "test-deck"]  # type: ignore[attr-defined]
    multi = notes[note_guid("mixed", "multi")]
    assert multi["Answer"] == "A, C" and multi["Shuffle"] == "no"  # type: ignore[index]

    cloze = notes[note_guid("mixed", "two-gaps")]
    assert cloze.note_type()["type"] == 1  # type: ignore[attr-defined]  # a real cloze note type
    cards = sorted(cloze.cards(), key=lambda c: c.ord)  # type: ignore[attr-defined]
    assert [c.ord for c in cards] == [0, 1]
    q1, a1 = cards[0].question(), cards[0].answer()
    assert re.search(r'<span class="cloze"[^>]*>\[\.\.\.\]</span> is the capital', q1)
    assert '<span class="cloze" data-ordinal="1">Seoul</span>' in a1
    assert "서울은 대한민국의 수도입니다." in a1 and "서울은" not in q1
    q2 = cards[1].question()
    assert re.search(r'<span class="cloze"[^>]*>\[country\]</span>', q2)

    picture = notes[note_guid("mixed", "picture")]
    card = picture.cards()[0]  # type: ignore[attr-defined]
    assert '<img src="square.png" alt="a square">' in card.question()
    assert "Red" in card.answer() and "Red" not in card.question()
    assert (Path(col.media.dir()) / "square.png").read_bytes() == (
        DATA / "media" / "square.png"
    ).read_bytes()  # type: ignore[attr-defined]
    check = col.media.check()  # type: ignore[attr-defined]
    assert list(check.missing) == [] and list(check.unused) == []
    assert col.fix_integrity() == ("Database rebuilt and optimized.", True)  # type: ignore[attr-defined]


def test_bundled_deck_in_anki(tmp_path: Path, collection: object) -> None:
    """Both languages of the bundled deck live side by side in one collection."""
    col: object = collection
    results = build_packages(
        [copied(ROOT / "cards", tmp_path)],
        tmp_path / "out",
        timestamp=1_700_000_000,
        media_dir=ROOT / "media",
        lang="all",
    )
    assert [r.path.name for r in results] == [
        "gradient-checkpointing.ko.apkg",
        "gradient-checkpointing.en.apkg",
    ]
    for result in results:
        log = import_package(col, result.path)
        assert len(log.new) == 14 and not log.updated and not log.duplicate  # type: ignore[attr-defined]
    assert col.note_count() == 28 and col.card_count() == 42  # type: ignore[attr-defined]
    names = {"ko": "ML 시스템::그래디언트 체크포인팅", "en": "ML Systems::Gradient Checkpointing"}
    guids: dict[str, set[str]] = {}
    for lang, name in names.items():
        did = col.decks.id_for_name(name)  # type: ignore[attr-defined]
        assert did
        assert len(col.find_cards(f"did:{did}")) == 21  # type: ignore[attr-defined]
        nids = col.find_notes(f"did:{did}")  # type: ignore[attr-defined]
        guids[lang] = {col.get_note(nid).guid for nid in nids}  # type: ignore[attr-defined]
    assert len(guids["ko"]) == len(guids["en"]) == 14 and not guids["ko"] & guids["en"]

    notes = notes_by_guid(col)
    tradeoff = notes[note_guid("gradient-checkpointing.ko", "tradeoff")]
    assert tradeoff["Question"] == (  # type: ignore[index]
        '<div lang="ko" data-db-lang="ko">'
        "그래디언트 체크포인팅은 메모리를 아끼는 대가로 주로 무엇을 치릅니까?</div>"
    )
    back = tradeoff.cards()[0].answer()  # type: ignore[attr-defined]
    assert "역전파에서 필요할 때 다시" in back and 'data-verdict="unanswered"' in back
    english = notes[note_guid("gradient-checkpointing.en", "tradeoff")]
    assert english["Question"] == (  # type: ignore[index]
        '<div lang="en" data-db-lang="en">'
        "What does gradient checkpointing mainly trade for lower memory use?</div>"
    )
    assert '<div class="db-choice" data-choice="A" lang="en">' in english["Choices"]  # type: ignore[index]
    assert "recomputes them when it needs them" in english.cards()[0].answer()  # type: ignore[attr-defined]

    for lang in names:
        pytorch = notes[note_guid(f"gradient-checkpointing.{lang}", "pytorch-utility")]
        assert "<code>torch.utils.checkpoint</code>" in pytorch["Choices"]  # type: ignore[index]
        sqrt = notes[note_guid(f"gradient-checkpointing.{lang}", "cloze-sqrt")]
        assert len(sqrt.cards()) == 3  # type: ignore[attr-defined]
        answer = sqrt.cards()[0].answer()  # type: ignore[attr-defined]
        assert '<img src="checkpoint-chain.svg"' in answer and f'<div lang="{lang}">' in answer
    assert (Path(col.media.dir()) / "checkpoint-chain.svg").is_file()  # type: ignore[attr-defined]
    check = col.media.check()  # type: ignore[attr-defined]
    assert list(check.missing) == [] and list(check.unused) == []
    assert col.fix_integrity() == ("Database rebuilt and optimized.", True)  # type: ignore[attr-defined]


def test_edited_text_updates_the_note_instead_of_duplicating(
    tmp_path: Path, collection: object
) -> None:
    """GUIDs come from deck id + note id, never from field text."""
    col: object = collection
    src = tmp_path / "deck.yaml"
    src.write_text("deck: D\nnotes:\n  - {id: a, front: old text, back: b}\n", encoding="utf-8")
    (first,) = build_packages([src], tmp_path / "out", timestamp=1_700_000_000)
    import_package(col, first.path)
    src.write_text("deck: D\nnotes:\n  - {id: a, front: new text, back: b}\n", encoding="utf-8")
    (second,) = build_packages([src], tmp_path / "out", timestamp=1_700_000_100)
    log = import_package(col, second.path)
    assert len(log.updated) == 1 and not log.new  # type: ignore[attr-defined]
    assert col.note_count() == 1  # type: ignore[attr-defined]
    (nid,) = col.find_notes("")  # type: ignore[attr-defined]
    assert col.get_note(nid)["Front"] == "new text"  # type: ignore[attr-defined]


def test_note_types_have_the_expected_templates(tmp_path: Path, collection: object) -> None:
    col: object = collection
    (result,) = build_packages(
        [copied(DATA / "mixed.yaml", tmp_path)],
        tmp_path / "out",
        timestamp=1_700_000_000,
        media_dir=DATA / "media",
    )
    import_package(col, result.path)
    names = sorted(m["name"] for m in col.models.all())  # type: ignore[attr-defined]
    assert {"deckbuilder Multiple Choice", "deckbuilder Cloze", "deckbuilder Basic"} <= set(names)
    mcq = col.models.by_name("deckbuilder Multiple Choice")  # type: ignore[attr-defined]
    assert [f["name"] for f in mcq["flds"]] == [
        "Question",
        "Choices",
        "Answer",
        "Explanation",
        "Shuffle",
    ]
    assert "<script>" in mcq["tmpls"][0]["qfmt"] and "/*@include" not in mcq["tmpls"][0]["qfmt"]


_: Callable[..., object] | None = None
