"""Anki's "Notes in Plain Text" export: its # headers are read, notes keep their GUIDs,
note types are mapped by name, and bad rows are reported at their lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.importers.anki_text import looks_like_anki_text, read_anki_text

from .conftest import Run

EXPORT = (
    "#separator:tab\n#html:true\n#guid column:1\n#notetype column:2\n#deck column:3\n"
    "#tags column:7\n"  # after the widest note type's fields
    "a1\tBasic\tSpanish\thola <b>amigo</b>\thello\t\tgreet\n"
    "b2\tBasic (and reversed card)\tSpanish\tgato\tcat\t\t\n"
    "c3\tCloze\tSpanish\tMadrid is the {{c1::capital}}\t\t\t\n"
    'd4\tBasic (optional reversed card)\tSpanish\t"dos ""2"""\ttwo\ty\t\n'
    "e5\tImage Occlusion\tSpanish\tx\ty\tz\t\n"
)


def test_headers_guids_and_note_types(tmp_path: Path) -> None:
    path = tmp_path / "Spanish.txt"
    path.write_text(EXPORT, encoding="utf-8")
    assert looks_like_anki_text(path)
    result = read_anki_text(path)
    assert result.deck == "Spanish"
    got = [(n.guid, n.kind, n.reverse, n.fields, n.tags, n.line) for n in result.notes]
    assert got == [
        ("a1", "basic", False, {"front": "hola <b>amigo</b>", "back": "hello"}, ["greet"], 7),
        ("b2", "basic", True, {"front": "gato", "back": "cat"}, [], 8),
        ("c3", "cloze", False, {"text": "Madrid is the {{c1::capital}}", "extra": ""}, [], 9),
        ("d4", "basic", True, {"front": 'dos "2"', "back": "two"}, [], 10),
    ]
    skipped = [r for r in result.report if not r.imported]
    assert [(r.name, r.count) for r in skipped] == [("Image Occlusion", 1)]


def test_plain_text_export_is_escaped(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("#separator:comma\n#html:false\nx < y,a & b\n", encoding="utf-8")
    (note,) = read_anki_text(path).notes
    assert note.fields == {"front": "x \\< y", "back": "a & b"}


def test_empty_front_is_reported_at_its_row(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text(
        "#separator:tab\n#html:true\nok\tfine\n\tempty front\n", encoding="utf-8"
    )
    run = cli("import", "t.txt")
    assert run.code == 1 and "t.txt:4: row 4: the front is empty" in run.err
    assert not (tmp_path / "cards").exists()
