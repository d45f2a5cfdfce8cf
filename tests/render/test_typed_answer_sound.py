"""A sound in a typed answer (issue 45, a round 3 leftover): ``answer: 'bonjour
[sound:bonjour.mp3]'`` put ``[sound:bonjour.mp3]`` in the Answers field, which Anki plays
on the back, but the file was never packaged nor its path checked: learners heard nothing,
and a path out of the project went unnoticed. A typed answer's sound is now checked and
packaged as a sound anywhere else is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deckbuilder.errors import DeckError
from tests.app_calls import build_packages, check_decks
from tests.conftest import import_package

MP3 = b"ID3 not really an mp3"


def project(tmp_path: Path, answer: str, files: dict[str, bytes] | None = None) -> Path:
    """cards/deck.yaml with one typed note whose ``answer:`` line (line 7) is ``answer``."""
    for name, data in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    source = tmp_path / "cards" / "deck.yaml"
    source.parent.mkdir(exist_ok=True)
    source.write_text(
        "deck: French\nnotes:\n  - id: hello\n    type: typed\n"
        f"    question: Hello, in French?\n    explanation: greeting\n    answer: {answer}\n",
        encoding="utf-8",
    )
    return source


def problems(source: Path) -> list[str]:
    with pytest.raises(DeckError) as info:
        check_decks([source], media_dir=source.parent.parent / "media")
    return [str(p) for p in info.value.problems]


def test_a_sound_in_a_typed_answer_is_packaged(tmp_path: Path) -> None:
    source = project(
        tmp_path,
        "\n      - bonjour [sound:bonjour.mp3]\n      - 'salut [sound:dir/salut.mp3]'",
        {"media/bonjour.mp3": MP3, "media/dir/salut.mp3": MP3 + b"2"},
    )
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
    assert rd.media == {
        "bonjour.mp3": tmp_path / "media" / "bonjour.mp3",
        "salut.mp3": tmp_path / "media" / "dir" / "salut.mp3",
    }
    (note,) = rd.notes
    assert note.media == ("bonjour.mp3", "salut.mp3")
    answers = note.fields[1]
    assert "bonjour [sound:bonjour.mp3]</div>" in answers
    assert "salut [sound:salut.mp3]</div>" in answers  # the name it has in the package


@pytest.mark.parametrize(
    ("answer", "files", "expected"),
    [
        ("bonjour [sound:gone.mp3]", {}, ":7: note 'hello': media file 'gone.mp3' not found in "),
        (
            "[hi, 'bonjour [sound:../secret.mp3]']",
            {"secret.mp3": MP3},
            ":7: note 'hello': media path '../secret.mp3' leaves the project",
        ),
        (
            "bonjour [sound:con.mp3]",
            {"media/con.mp3": MP3},
            "media file name 'con.mp3' is reserved on Windows",
        ),
        (
            "'[sound:bonjour.mp3]'",
            {"media/bonjour.mp3": MP3},
            ":7: note 'hello': 'answer' is only a sound, so there is nothing to type",
        ),
        (
            "[sound:bonjour.mp3]",
            {"media/bonjour.mp3": MP3},
            ":7: note 'hello': 'answer' is a list to YAML ('[' without quotes), whose answer "
            "is the text 'sound:bonjour.mp3'; a sound alone leaves nothing to type",
        ),
    ],
)
def test_a_typed_answers_sound_is_checked(
    tmp_path: Path, answer: str, files: dict[str, bytes], expected: str
) -> None:
    found = problems(project(tmp_path, answer, files))
    assert len(found) == 1 and expected in found[0], found


@pytest.mark.anki
def test_anki_plays_the_answers_sound_on_the_back_and_has_the_file(
    tmp_path: Path, collection: Any
) -> None:
    source = project(tmp_path, "bonjour [sound:bonjour.mp3]", {"media/bonjour.mp3": MP3})
    (result,) = build_packages(
        [source], tmp_path / "out", timestamp=1_700_000_000, media_dir=tmp_path / "media"
    )
    import_package(collection, result.path)
    (card_id,) = collection.find_cards("")
    card = collection.get_card(card_id)
    assert [tag.filename for tag in card.question_av_tags()] == []
    assert [tag.filename for tag in card.answer_av_tags()] == ["bonjour.mp3"]
    media_check = collection.media.check()
    assert list(media_check.missing) == [] and list(media_check.unused) == []
