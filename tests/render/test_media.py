"""Images and sounds: where they are found, what is packaged, every error with its line."""

from __future__ import annotations

import json
import os
import tempfile
import tracemalloc
import unicodedata
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.cli.output import problem_line
from deckbuilder.errors import DeckError
from deckbuilder.render.deck import MAX_MEDIA_BYTES, media_name_problem
from tests.app_calls import build_packages, check_decks
from tests.conftest import DATA, Run, import_package

PNG = (DATA / "media" / "square.png").read_bytes()


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
        check_decks([source], media_dir=source.parent.parent / "media")
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
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
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
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
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
            # Issue 44: the picture's own line, not the field's first.
            ":7: note 'a': media file 'none.png' not found",
        ),
    ],
)
def test_media_errors_name_the_note_and_line(
    tmp_path: Path, notes: str, files: dict[str, bytes], expected: str
) -> None:
    source = project(tmp_path, notes, files)
    if not expected:
        check_decks([source], media_dir=tmp_path / "media")
        return
    found = problems(source)
    assert any(expected in p for p in found), found
    assert all(p.startswith(str(source)) for p in found)


@pytest.mark.parametrize(
    ("written", "files", "suggested"),
    [
        ("diagram.png", {"media/Diagram.png": PNG}, "Diagram.png"),
        ("DIAGRAM.PNG", {"media/diagram.png": PNG}, "diagram.png"),
        # Every part of a path may differ, and the card folder is searched too.
        ("sub/a.png", {"cards/Sub/A.png": PNG}, "Sub/A.png"),
        # Case and Unicode form at once: a Mac's NFD name, written in NFC upper case.
        ("\u00c9T\u00c9.png", {"media/e\u0301te\u0301.png": PNG}, "e\u0301te\u0301.png"),
        # Of names that differ only in case, the first in sorted order.
        ("diagram.png", {"media/Diagram.png": PNG, "media/DIAGRAM.png": PNG}, "DIAGRAM.png"),
        ("other.png", {"media/Diagram.png": PNG}, None),
        # A folder of that name is not a file.
        ("pics", {"media/Pics/a.png": PNG}, None),
    ],
)
def test_a_media_name_that_differs_only_in_case_gets_a_suggestion(
    tmp_path: Path, written: str, files: dict[str, bytes], suggested: str | None
) -> None:
    source = project(tmp_path, f"  - id: a\n    front: f\n    back: '![x]({written})'\n", files)
    (found,) = problems(source)
    media, cards = tmp_path / "media", tmp_path / "cards"
    expected = f"{source}:5: note 'a': media file '{written}' not found in {media}/ or {cards}/"
    if suggested is not None:
        expected += f"; did you mean '{suggested}'?"
    assert found == expected


def test_the_suggested_name_builds(tmp_path: Path) -> None:
    """The suggestion is what the card must say: written in, the deck builds."""
    files = {"media/Diagrams/Chain.png": PNG}
    source = project(tmp_path, "  - {id: a, front: f, back: '![x](diagrams/chain.png)'}\n", files)
    (found,) = problems(source)
    suggested = found.split("did you mean '")[1].removesuffix("'?")
    source.write_text(source.read_text().replace("diagrams/chain.png", suggested))
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
    assert list(rd.media) == ["Chain.png"]


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
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
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
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
    assert list(rd.media) == ["used.png"]
    assert [problem_line(w) for w in rd.warnings] == [
        f"{tmp_path / 'media' / 'old.png'}: warning [unused-media]: no card uses this file; it is not packaged",
        f"{tmp_path / 'media' / 'sub' / 'older.mp3'}: warning [unused-media]: no card uses this file; it is not packaged",
    ]


def test_a_file_used_by_another_deck_is_not_unused(tmp_path: Path) -> None:
    project(tmp_path, "  - {id: a, front: '![x](one.png)', back: b}\n", {"media/one.png": PNG})
    other = tmp_path / "cards" / "other.yaml"
    other.write_text("deck: E\nnotes:\n  - {id: a, front: '![x](two.png)', back: b}\n")
    (tmp_path / "media" / "two.png").write_bytes(PNG + b"2")
    rendered = check_decks([tmp_path / "cards"], media_dir=tmp_path / "media")
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
            "cards/deck.yaml:5: note 'a': warning [fidelity]: code block language 'pyhton' is not known "
            "to Pygments; not highlighted",
            "media/old.png: warning [unused-media]: no card uses this file; it is not packaged",
        ]
    assert (tmp_path / "output" / "d.apkg").is_file() is False  # deck id is the file stem
    assert (tmp_path / "output" / "deck.apkg").is_file()


def sparse_file(path: Path, size: int) -> None:
    """A file of ``size`` bytes that takes no room on disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        stream.truncate(size)


def test_a_media_file_over_ankis_sync_limit_is_refused_without_reading_it(
    tmp_path: Path,
) -> None:
    source = project(tmp_path, "  - {id: a, front: '[sound:big.mp3]', back: b}\n")
    sparse_file(tmp_path / "media" / "big.mp3", MAX_MEDIA_BYTES + 1)
    tracemalloc.start()
    try:
        found = problems(source)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == [
        f"{source}:3: note 'a': media file 'big.mp3' is 104,857,601 bytes; Anki syncs media"
        " files of up to 104,857,600 bytes (100 MiB)"
    ]
    assert peak < 10 * 1024 * 1024  # the size came from the file system, not from its bytes


def test_a_media_file_at_the_limit_is_accepted(tmp_path: Path) -> None:
    source = project(tmp_path, "  - {id: a, front: '[sound:big.mp3]', back: b}\n")
    sparse_file(tmp_path / "media" / "big.mp3", MAX_MEDIA_BYTES)
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
    assert list(rd.media) == ["big.mp3"]


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


NAME = "café-한글.png"  # NFC, as typed on most systems


@pytest.mark.parametrize(
    ("on_disk", "in_text"),
    [(nfd(NAME), NAME), (NAME, nfd(NAME)), (nfd(NAME), nfd(NAME)), (NAME, NAME)],
    ids=["disk-nfd", "text-nfd", "both-nfd", "both-nfc"],
)
def test_media_names_match_whether_written_in_nfc_or_nfd(
    tmp_path: Path, on_disk: str, in_text: str
) -> None:
    """macOS writes file names in NFD; card text is NFC. Either way the file is found, and
    the package stores it under the NFC name its field shows (Anki's media folder is NFC)."""
    disk = nfd if on_disk != NAME else nfc  # the form of every name on disk
    text = nfd if in_text != NAME else nfc  # the form of every name in the card file
    source = project(
        tmp_path,
        f"  - {{id: a, front: '![x]({text(NAME)}) [sound:{text('소리')}.mp3]',"
        f" back: '![y]({text('그림/도표.png')})'}}\n",
        {
            f"media/{disk(NAME)}": PNG,
            f"media/{disk('소리')}.mp3": b"mp3",
            f"media/{disk('그림/도표.png')}": PNG + b"chart",
        },
    )
    assert disk(NAME) in os.listdir(tmp_path / "media")  # the file system kept the form
    (rd,) = check_decks([source], media_dir=tmp_path / "media")
    assert rd.media == {
        "도표.png": tmp_path / "media" / disk("그림") / disk("도표.png"),
        NAME: tmp_path / "media" / disk(NAME),
        "소리.mp3": tmp_path / "media" / disk("소리.mp3"),
    }
    assert all(name == nfc(name) for name in rd.media)
    front, back = rd.notes[0].fields
    assert front == f'<img src="{NAME}" alt="x"> [sound:소리.mp3]'
    assert back == '<img src="도표.png" alt="y">'
    assert rd.warnings == ()  # no file is taken for unused


# The alphabet also spells names Anki renames ("con", "nul"): those are refused on their
# own account, tested above, so they are left out here.
@settings(max_examples=25, deadline=None)
@given(
    name=st.text(
        alphabet=st.sampled_from("aeoucnAEOU\u0301\u0308\u0303\u0327한글가나다ÅÇñ"),
        min_size=1,
        max_size=12,
    ).filter(lambda name: media_name_problem(name + ".mp3", image=False) is None),
    disk_form=st.sampled_from(["NFC", "NFD"]),
)
def test_any_name_is_found_in_either_form_and_stored_in_nfc(name: str, disk_form: str) -> None:
    file_name = unicodedata.normalize(disk_form, name) + ".mp3"
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        source = project(
            root,
            f"  - {{id: a, front: '[sound:{name}.mp3]', back: b}}\n",
            {f"media/{file_name}": b"x"},
        )
        (rd,) = check_decks([source], media_dir=root / "media")
        assert rd.media == {nfc(name) + ".mp3": root / "media" / file_name}
        assert rd.notes[0].fields[0] == f"[sound:{nfc(name)}.mp3]"


@pytest.mark.anki
def test_an_nfd_file_reaches_anki_under_the_name_its_field_shows(
    tmp_path: Path, collection: Any
) -> None:
    source = project(
        tmp_path,
        f"  - {{id: a, front: '![x]({NAME})', back: b}}\n",
        {f"media/{nfd(NAME)}": PNG},
    )
    (result,) = build_packages(
        [source], tmp_path / "out", timestamp=1_700_000_000, media_dir=tmp_path / "media"
    )
    with zipfile.ZipFile(result.path) as zf:
        assert json.loads(zf.read("media")) == {"0": NAME}
    import_package(collection, result.path)
    (note_id,) = collection.find_notes("")
    assert f'<img src="{NAME}"' in collection.get_note(note_id).fields[0]
    assert os.listdir(collection.media.dir()) == [NAME]
    media_check = collection.media.check()
    assert list(media_check.missing) == [] and list(media_check.unused) == []


@pytest.mark.parametrize(
    ("notes", "expected"),
    [
        # A literal block: the picture's own line.
        (
            "  - id: a\n    front: |\n      Look:\n\n      ![ecg](qt_ecg.png)\n    back: b\n",
            ":7: note 'a'",
        ),
        # Folded and plain text over several lines, a choice, a language map's entry.
        (
            "  - id: a\n    front: >\n      one\n      two ![ecg](qt_ecg.png)\n    back: b\n",
            ":6: note 'a'",
        ),
        (
            "  - id: a\n    front: one\n      two\n      ![ecg](qt_ecg.png)\n    back: b\n",
            ":6: note 'a'",
        ),
        (
            "  - id: a\n    question: q\n    choices:\n      - x\n      - |\n        y\n        ![ecg](qt_ecg.png)\n    answer: A\n",
            ":9: note 'a'",
        ),
        ('  - id: a\n    front: x\n    back: "quoted\n      ![ecg](qt_ecg.png)"\n', ":6: note 'a'"),
    ],
)
def test_a_missing_picture_is_told_on_its_own_line(
    tmp_path: Path, notes: str, expected: str
) -> None:
    """Issue 44: it was told at the field's first line."""
    source = project(tmp_path, notes, {"media/qt-ecg.png": PNG})
    (found,) = problems(source)
    assert f"{source}{expected}: media file 'qt_ecg.png' not found" in found, found


@pytest.mark.parametrize(
    ("written", "files", "meant"),
    [
        ("qt_ecg.png", ["qt-ecg.png", "other.png"], "qt-ecg.png"),
        ("QT_ECG.png", ["qt-ecg.png"], "qt-ecg.png"),
        ("figs/diagram1.png", ["figs/diagram-1.png", "diagram1.png"], "figs/diagram-1.png"),
        ("heart.jpg", ["heart.png", "hearts.jpg"], "hearts.jpg"),
        ("heart.jpg", ["heart.png"], "heart.png"),
        ("cell.png", ["cells.svg", "a.png"], None),
        ("a.png", ["b.png"], None),
    ],
)
def test_a_missing_file_suggests_the_nearest_name(
    tmp_path: Path, written: str, files: list[str], meant: str | None
) -> None:
    """Issue 44: "did you mean" only covered differences of case (qt_ecg.png was not
    suggested for qt-ecg.png)."""
    source = project(
        tmp_path,
        f"  - id: a\n    front: '![x]({written})'\n    back: b\n",
        {f"media/{name}": PNG for name in files},
    )
    (found,) = problems(source)
    hint = f"; did you mean '{meant}'?" if meant else ""
    assert found.endswith(
        f"media file '{written}' not found in {tmp_path / 'media'}/ or {source.parent}/{hint}"
    )
