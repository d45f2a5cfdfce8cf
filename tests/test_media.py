"""Images and sounds: where they are found, what is packaged, every error with its line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.errors import DeckError
from deckbuilder.pipeline import check
from deckbuilder.render import media_name_problem

from .conftest import Run

PNG = (Path(__file__).parent / "data" / "media" / "square.png").read_bytes()


def project(tmp_path: Path, notes: str, files: dict[str, bytes] | None = None) -> Path:
    """cards/deck.yaml with ``notes`` (YAML list items), plus files under the project."""
    for name, data in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    source = tmp_path / "cards" / "deck.yaml"
    source.parent.mkdir(exist_ok=True)
    source.write_text(f"deck: D\nnotes:\n{notes}", encoding="utf-8")
    return source


def problems(source: Path) -> list[str]:
    with pytest.raises(DeckError) as info:
        check([source], media_dir=source.parent.parent / "media")
    return [str(p) for p in info.value.problems]


def test_images_and_sounds_are_packaged_from_both_roots(tmp_path: Path) -> None:
    source = project(
        tmp_path,
        "  - id: a\n    front: '![x](pic.png) ![y](diagrams/chain.png)'\n"
        "    back: 'listen [sound:beep.mp3] and ![z](beside.png)'\n",
        {
            "media/pic.png": PNG,
            "media/diagrams/chain.png": PNG + b"chain",
            "media/beep.mp3": b"mp3",
            "cards/beside.png": PNG + b"beside",
        },
    )
    (rd,) = check([source], media_dir=tmp_path / "media")
    assert rd.media == {
        "beep.mp3": tmp_path / "media" / "beep.mp3",
        "beside.png": tmp_path / "cards" / "beside.png",
        "chain.png": tmp_path / "media" / "diagrams" / "chain.png",
        "pic.png": tmp_path / "media" / "pic.png",
    }
    front, back = rd.notes[0].fields
    assert front == '<img src="pic.png" alt="x"> <img src="chain.png" alt="y">'
    assert back == 'listen [sound:beep.mp3] and <img src="beside.png" alt="z">'
    assert rd.warnings == ()


def test_media_dir_wins_over_the_card_folder(tmp_path: Path) -> None:
    source = project(
        tmp_path,
        "  - {id: a, front: '![x](same.png)', back: b}\n",
        {"media/same.png": PNG, "cards/same.png": PNG + b"other"},
    )
    (rd,) = check([source], media_dir=tmp_path / "media")
    assert rd.media == {"same.png": tmp_path / "media" / "same.png"}


@pytest.mark.parametrize(
    ("notes", "files", "expected"),
    [
        (
            "  - id: a\n    front: f\n    back: '![x](gone.png)'\n",
            {},
            ":5: note 'a': media file 'gone.png' not found in ",
        ),
        (
            "  - id: a\n    front: f\n    back: '[sound:gone.mp3]'\n",
            {},
            ":5: note 'a': media file 'gone.mp3' not found in ",
        ),
        (
            "  - id: a\n    front: '![x](https://example.org/x.png)'\n    back: b\n",
            {},
            ":4: note 'a': 'https://example.org/x.png' is not a local file",
        ),
        (
            "  - id: a\n    front: '[sound:http://example.org/x.mp3]'\n    back: b\n",
            {},
            "'http://example.org/x.mp3' is not a local file",
        ),
        (
            "  - id: a\n    front: '![x](data:image/png;base64,AAAA)'\n    back: b\n",
            {},
            "is not a local file",
        ),
        (
            "  - id: a\n    front: '![x](../secret.png)'\n    back: b\n",
            {"secret.png": PNG},
            ":4: note 'a': media path '../secret.png' leaves the project",
        ),
        (
            "  - id: a\n    front: '![x](/etc/x.png)'\n    back: b\n",
            {},
            "media path '/etc/x.png' leaves the project",
        ),
        (
            "  - id: a\n    front: '[sound:..\\x.mp3]'\n    back: b\n",
            {},
            "leaves the project",
        ),
        (
            "  - id: a\n    front: '![x](C:/x.png)'\n    back: b\n",
            {},
            "media path 'C:/x.png' leaves the project",
        ),
        (
            "  - id: a\n    front: '![x](<a^b.png>)'\n    back: b\n",
            {"media/a^b.png": PNG},
            ":4: note 'a': media file name 'a^b.png' has characters Anki removes",
        ),
        (
            "  - id: a\n    front: '[sound:con.mp3]'\n    back: b\n",
            {"media/con.mp3": b"x"},
            "media file name 'con.mp3' is reserved on Windows",
        ),
        (
            "  - id: a\n    front: '![x](<a#b.png>)'\n    back: b\n",
            {"media/a#b.png": PNG},
            "image file name 'a#b.png' has '#' or '%'",
        ),
        (
            "  - id: a\n    front: '![x](.hidden.png)'\n    back: b\n",
            {"media/.hidden.png": PNG},
            "is a hidden file name",
        ),
        (
            "  - id: a\n    front: '![x](<trail .png>)'\n    back: b\n",
            {"media/trail .png": PNG},
            "",  # a trailing space before the extension is fine...
        ),
        (
            "  - id: a\n    question: q\n    choices: ['![x](one.png)', '![y](sub/one.png)']\n    answer: A\n",
            {"media/one.png": PNG, "media/sub/one.png": PNG + b"different"},
            ":5: note 'a': media files ",
        ),
        (
            "  - id: a\n    front: '![x](Pic.png)'\n    back: '![y](pic.png)'\n",
            {"media/Pic.png": PNG, "media/pic.png": PNG + b"different"},
            "would both be stored as 'pic.png' (names are compared ignoring case",
        ),
        (
            "  - id: a\n    text: '{{c1::x}}'\n    extra: |\n      line one\n      ![x](none.png)\n",
            {},
            ":5: note 'a': media file 'none.png' not found",
        ),
    ],
)
def test_media_errors_name_the_note_and_line(
    tmp_path: Path, notes: str, files: dict[str, bytes], expected: str
) -> None:
    source = project(tmp_path, notes, files)
    if not expected:
        check([source], media_dir=tmp_path / "media")
        return
    found = problems(source)
    assert any(expected in p for p in found), found
    assert all(p.startswith(str(source)) for p in found)


@pytest.mark.parametrize(
    ("name", "image", "ok"),
    [
        ("diagram.png", True, True),
        ("한글 이름.png", True, True),
        ("a b&c.mp3", False, True),
        ("a#b.mp3", False, True),
        ("a#b.png", True, False),
        ("50%.png", True, False),
        ("a[1].png", True, False),
        ('a"b.png', True, False),
        ("a:b.png", True, False),
        ("tab\there.png", True, False),
        ("NUL.txt", False, False),
        ("lpt1", False, False),
        ("name.", False, False),
        ("name ", False, False),
        ("x" * 117 + ".png", True, False),
        ("x" * 116 + ".png", True, True),
    ],
)
def test_media_names_anki_can_store(name: str, image: bool, ok: bool) -> None:
    assert (media_name_problem(name, image) is None) is ok


def test_identical_copies_in_two_folders_are_not_a_collision(tmp_path: Path) -> None:
    source = project(
        tmp_path,
        "  - {id: a, front: '![x](one.png)', back: '![y](copy/one.png)'}\n",
        {"media/one.png": PNG, "media/copy/one.png": PNG},
    )
    (rd,) = check([source], media_dir=tmp_path / "media")
    assert list(rd.media) == ["one.png"]


def test_every_media_problem_is_reported_at_once(tmp_path: Path) -> None:
    source = project(
        tmp_path,
        "  - id: a\n    front: '![x](a.png) ![y](a.png)'\n    back: '[sound:b.mp3]'\n"
        "  - id: b\n    front: '![z](../c.png)'\n    back: ok\n",
    )
    found = problems(source)
    assert len(found) == 3, found  # the same missing file twice in a field is one problem
    assert [p.split(": note")[0].rsplit(":", 1)[1] for p in found] == ["4", "5", "7"]


def test_unused_media_is_a_warning_not_an_error(tmp_path: Path) -> None:
    source = project(
        tmp_path,
        "  - {id: a, front: '![x](used.png)', back: b}\n",
        {
            "media/used.png": PNG,
            "media/old.png": PNG,
            "media/sub/older.mp3": b"x",
            "media/.DS_Store": b"x",
            "media/notes.yaml": b"deck: not media",
        },
    )
    (rd,) = check([source], media_dir=tmp_path / "media")
    assert list(rd.media) == ["used.png"]
    assert [str(w) for w in rd.warnings] == [
        f"{tmp_path / 'media' / 'old.png'}: warning: no card uses this file; it is not packaged",
        f"{tmp_path / 'media' / 'sub' / 'older.mp3'}: warning: no card uses this file; it is not packaged",
    ]


def test_a_file_used_by_another_deck_is_not_unused(tmp_path: Path) -> None:
    project(tmp_path, "  - {id: a, front: '![x](one.png)', back: b}\n", {"media/one.png": PNG})
    other = tmp_path / "cards" / "other.yaml"
    other.write_text("deck: E\nnotes:\n  - {id: a, front: '![x](two.png)', back: b}\n")
    (tmp_path / "media" / "two.png").write_bytes(PNG + b"2")
    rendered = check([tmp_path / "cards"], media_dir=tmp_path / "media")
    assert [w for rd in rendered for w in rd.warnings] == []


def test_cli_prints_warnings_on_stderr_and_still_builds(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(
        tmp_path,
        "  - id: a\n    front: f\n    back: |\n      ```pyhton\n      x\n      ```\n",
        {"media/old.png": PNG},
    )
    monkeypatch.chdir(tmp_path)
    for command in (["check"], ["build"]):
        result = cli(*command)
        assert result.code == 0, result.err
        assert result.err.splitlines() == [
            "cards/deck.yaml:5: note 'a': warning: code block language 'pyhton' is not known "
            "to Pygments; not highlighted",
            "media/old.png: warning: no card uses this file; it is not packaged",
        ]
    assert (tmp_path / "output" / "d.apkg").is_file() is False  # deck id is the file stem
    assert (tmp_path / "output" / "deck.apkg").is_file()
