"""Anki's "Notes in Plain Text" export: its # headers are read, notes keep their GUIDs,
note types are mapped by name, and bad rows are reported at their lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.importers.anki_text import looks_like_anki_text, read_anki_text
from tests.conftest import Run

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
    path.write_text(
        '#separator:comma\n#html:false\n#guid column:1\ng1,x < y,a & b\ng2,"one\ntwo",b\n',
        encoding="utf-8",
    )
    first, second = read_anki_text(path).notes
    assert first.fields == {"front": "x \\< y", "back": "a & b"}
    # Anki's own import of such a file makes the line break <br>.
    assert second.fields == {"front": "one<br>two", "back": "b"} and second.line == 5


@pytest.mark.anki
def test_line_breaks_in_fields_arrive_as_anki_exported_them(tmp_path: Path) -> None:
    """A field with a line break, exported by Anki as a quoted field over two lines, was
    read with the line break deleted ("line oneline two")."""
    from anki.collection import Collection

    col = Collection(str(tmp_path / "c.anki2"))
    note = col.new_note(col.models.by_name("Basic"))  # type: ignore[arg-type]
    note.fields[0], note.fields[1] = "line one\nline two", "a<br>b"
    col.add_note(note, col.decks.id("D"))
    path = tmp_path / "D.txt"
    col.export_note_csv(
        out_path=str(path),
        limit=None,
        with_html=True,
        with_tags=True,
        with_deck=True,
        with_notetype=True,
        with_guid=True,
    )
    col.close()
    assert '"line one\nline two"' in path.read_text(encoding="utf-8")
    (read,) = read_anki_text(path).notes
    assert read.fields == {"front": "line one\nline two", "back": "a<br>b"}


def test_export_without_guids_is_refused(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the GUID column, the built deck imported back into Anki would duplicate
    every note."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text("#separator:tab\n#html:true\nhola\thello\n", encoding="utf-8")
    run = cli("import", "t.txt")
    assert run.code == 1
    assert "t.txt: the export has no '#guid column' header" in run.err
    assert "'Include unique identifier' ticked (or export it as an .apkg)" in run.err
    assert not (tmp_path / "cards").exists()


def test_subdecks_are_warned_of(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text(
        "#separator:tab\n#html:true\n#guid column:1\n#deck column:2\n"
        "a\tBio\tx\ty\nb\tBio\tx2\ty\nc\tBio::Cells\tz\tw\n",
        encoding="utf-8",
    )
    result = read_anki_text(path)
    assert result.deck == "Bio"
    assert [w.message for w in result.warnings] == [
        "warning: 1 note is in other decks than 'Bio' (subdecks); the card file holds them "
        "all in 'Bio'"
    ]


def test_empty_front_is_reported_at_its_row(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text(
        "#separator:tab\n#html:true\n#guid column:1\ng1\tok\tfine\ng2\t\tempty front\n",
        encoding="utf-8",
    )
    run = cli("import", "t.txt")
    assert run.code == 1 and "t.txt:5: row 5: the front is empty" in run.err
    assert not (tmp_path / "cards").exists()
