"""Cards that speak (issue 41, item 7): `{{tts LANG:Field}}` in declared templates, and
`speak:` for deckbuilder's own note types, checked through Anki's backend
(`card.question_av_tags()`); in a bilingual deck each language's package speaks in that
language."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deckbuilder import app
from deckbuilder.errors import DeckError
from tests.conftest import Run, import_package

pytestmark = pytest.mark.anki

BILINGUAL = """\
deck: {ko: 과일, en: Fruit}
id: fruit
languages: [ko, en]
speak: [front]
notes:
  - id: apple
    front: {ko: 사과, en: apple}
    back: {ko: 빨간 과일, en: a red fruit}
  - id: pear
    front: {ko: 배, en: pear}
    back: {ko: 노란 과일, en: a yellow fruit}
    speak: [front, back]
  - id: quiet
    front: {ko: 물, en: water}
    back: {ko: 마셔요, en: to drink}
    speak: []
"""


def _build(cards: Path, out: Path) -> app.BuildResult:
    selection = app.Selection(sources=(cards,), media_dir=None)
    return app.build(app.BuildRequest(1_800_000_000, selection, out_dir=out, preview=False))


_SPEECH_OR_TAG = re.compile(r"\[anki:tts[^\]]*\][^\[]*\[/anki:tts\]|<[^>]*>")


def _speech(col: Any) -> dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]]:
    """Each note's first field's text -> what its card's front and back speak."""
    out = {}
    for nid in col.find_notes(""):
        note = col.get_note(nid)
        card = note.cards()[0]
        sides = [
            [(tag.lang, tag.field_text) for tag in tags]
            for tags in (card.question_av_tags(), card.answer_av_tags())
        ]
        out[_SPEECH_OR_TAG.sub("", note.fields[0])] = (sides[0], sides[1])
    return out


def test_each_language_speaks_its_own(tmp_path: Path, collection: Any) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "fruit.yaml").write_text(BILINGUAL, encoding="utf-8")
    result = _build(cards, tmp_path / "out")
    for package in result.packages:
        import_package(collection, package.path)
    # The fields of a bilingual deck's language are wrapped in <div lang="..">.
    by_text = _speech(collection)
    # The back shows the front again, and Anki speaks it there too.
    assert by_text["사과"] == ([("ko_KR", "사과")], [("ko_KR", "사과")])
    assert by_text["apple"] == ([("en_US", "apple")], [("en_US", "apple")])
    assert by_text["배"] == ([("ko_KR", "배")], [("ko_KR", "배"), ("ko_KR", "노란 과일")])
    assert by_text["water"] == ([], [])


def test_declared_templates_speak_with_their_options(tmp_path: Path, collection: Any) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "words.yaml").write_text(
        """\
deck: Words
id: words
note_types:
  word:
    fields: [Word, Meaning]
    cards:
      - front: "{{Word}}{{tts ja_JP voices=Apple_Kyoko,Microsoft_Haruka speed=0.8:Word}}"
        back: "{{FrontSide}}<hr id=answer>{{Meaning}}"
notes:
  - {id: cat, type: word, fields: {Word: 猫, Meaning: cat}}
""",
        encoding="utf-8",
    )
    (package,) = _build(cards, tmp_path / "out").packages
    import_package(collection, package.path)
    (nid,) = collection.find_notes("")
    (tag,) = collection.get_note(nid).cards()[0].question_av_tags()
    assert (tag.lang, tag.field_text) == ("ja_JP", "猫") and tag.speed == pytest.approx(0.8)
    assert list(tag.voices) == ["Apple_Kyoko", "Microsoft_Haruka"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("speak: [front]", "'speak' names 'frnt', not a text a card can speak"),
        ("speak: []", "not a text a basic note can speak (front, back)"),
        ("speak: [front]", "'speak_language' must be a speech language like ko_KR"),
    ],
)
def test_check_refuses_what_cannot_be_spoken(tmp_path: Path, change: str, expected: str) -> None:
    text = BILINGUAL
    if "frnt" in expected:
        text = text.replace(change, "speak: [frnt]", 1)
    elif "basic note" in expected:
        text = text.replace(change, "speak: [question]", 1)
    else:
        text = text.replace(
            "languages: [ko, en]\n", "languages: [ko, en]\nspeak_language: Korean\n"
        )
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "fruit.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        app.check(app.CheckRequest(app.Selection(sources=(cards,), media_dir=None)))
    assert any(expected in str(p) for p in caught.value.problems), caught.value.problems


def test_a_cloze_text_is_never_spoken(tmp_path: Path, cli: Callable[..., Run]) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "c.yaml").write_text(
        "deck: C\nid: c\nnotes:\n  - id: n\n    text: '{{c1::Seoul}}'\n    speak: text\n",
        encoding="utf-8",
    )
    result = cli("check", cards)
    assert result.code == 1
    assert "c.yaml:6: note 'n': a cloze note's 'text' cannot be spoken" in result.err


def test_spoken_notes_come_back_from_their_package(
    tmp_path: Path, cli: Callable[..., Run], collection: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "fruit.yaml").write_text(BILINGUAL, encoding="utf-8")
    result = _build(cards, tmp_path / "out")
    korean = next(p for p in result.packages if p.rendered.deck.lang == "ko")
    import_package(collection, korean.path)
    project = tmp_path / "again"
    (project / "cards").mkdir(parents=True)
    monkeypatch.chdir(project)
    assert cli("import", korean.path).code == 0
    text = next((project / "cards").glob("*.yaml")).read_text(encoding="utf-8")
    assert "speak: [front, back]" in text and "speak_language:\n  ko: ko_KR\n" in text
    assert cli("build", "--no-preview").code == 0
    log = import_package(collection, next((project / "output").glob("*.apkg")))
    assert not log.new and not log.updated and not log.conflicting  # type: ignore[attr-defined]
