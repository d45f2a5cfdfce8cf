"""Anki's text files as Anki reads them: the # headers of its "Notes in Plain Text"
export, notes that keep their GUIDs, note types mapped by name, header-less text, and
bad rows listed at their lines while the rest come in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.importers import SourceNotes, detect_format, read_source
from deckbuilder.model import BasicNote, ClozeNote, FieldsNote, Note
from tests.conftest import Run


def read_anki_text(path: Path) -> SourceNotes:
    return read_source(path, "anki-text")


def shape(note: Note) -> tuple[object, ...]:
    if isinstance(note, ClozeNote):
        return (note.guid, "cloze", False, {"text": note.text, "extra": note.extra})
    assert isinstance(note, BasicNote)
    return (note.guid, "basic", note.reverse, {"front": note.front, "back": note.back})


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
    assert detect_format(EXPORT, str(path), ".txt") == "anki-text"
    result = read_anki_text(path)
    assert [deck.name for deck in result.decks] == ["Spanish"]
    *own, other = result.notes
    got = [(*shape(n), n.tags, n.line) for n in own]
    assert got == [
        ("a1", "basic", False, {"front": "hola <b>amigo</b>", "back": "hello"}, ("greet",), 7),
        ("b2", "basic", True, {"front": "gato", "back": "cat"}, (), 8),
        ("c3", "cloze", False, {"text": "Madrid is the {{c1::capital}}", "extra": ""}, (), 9),
        ("d4", "basic", True, {"front": 'dos "2"', "back": "two"}, (), 10),
    ]
    # A note type of three fields deckbuilder has no short form for: declared from the
    # columns (tests/importers/test_import_text_note_types.py).
    assert isinstance(other, FieldsNote) and other.guid == "e5" and other.line == 11
    assert other.fields == ("x", "y", "z") and other.note_type.name == "Image Occlusion"
    assert not result.skipped


def test_plain_text_export_is_escaped(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text(
        '#separator:comma\n#html:false\n#guid column:1\ng1,x < y,a & b\ng2,"one\ntwo",b\n',
        encoding="utf-8",
    )
    first, second = read_anki_text(path).notes
    assert shape(first)[3] == {"front": "x \\< y", "back": "a & b"}
    # Anki's own import of such a file makes the line break <br>.
    assert shape(second)[3] == {"front": "one<br>two", "back": "b"} and second.line == 5


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
    assert shape(read)[3] == {"front": "line one\nline two", "back": "a<br>b"}


def test_export_without_guids_is_a_warning_and_strict_refuses_it(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the GUID column, the built deck imported back into the collection the file
    came from adds the notes again: said, not refused (issue 33, 2)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text("#separator:tab\n#html:true\nhola\thello\n", encoding="utf-8")
    strict = cli("import", "t.txt", "--strict")
    assert strict.code == 1 and "t.txt: no GUID column" in strict.err
    assert not (tmp_path / "cards").exists()
    run = cli("import", "t.txt")
    assert run.code == 0, run.err
    assert "t.txt: warning: no GUID column" in run.err
    assert "'Include unique identifier' ticked" in run.err
    assert cli("check", "cards").code == 0


def test_subdecks_go_into_their_top_level_decks_card_file(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text(
        "#separator:tab\n#html:true\n#guid column:1\n#deck column:2\n"
        "a\tBio\tx\ty\nb\tBio\tx2\ty\nc\tBio::Cells\tz\tw\nd\tChem\tq\tr\n",
        encoding="utf-8",
    )
    run = cli("import", "t.txt")
    assert run.code == 0, run.err
    assert "wrote cards/bio.yaml: 3 notes imported" in run.out
    assert "wrote cards/chem.yaml: 1 note imported" in run.out
    assert "1 note is in subdecks of 'Bio' (Bio::Cells)" in run.err
    chosen = cli("import", "t.txt", "--deck", "Chem", "--out", "cards/c.yaml")
    assert chosen.code == 0, chosen.err
    assert "wrote cards/c.yaml: 1 note imported" in chosen.out
    wrong = cli("import", "t.txt", "--deck", "Physics")
    assert wrong.code == 1
    assert "--deck: t.txt has no top-level deck 'Physics'; its decks are 'Bio', 'Chem'" in wrong.err


def test_an_empty_front_is_skipped_at_its_row_and_an_empty_back_comes_in(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anki skips a row whose first field is empty, and imports a Basic note with an
    empty Back; so does import, and check takes what it wrote."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text(
        "#separator:tab\n#html:true\n#guid column:1\ng1\tok\tfine\ng2\t\tempty front\n"
        "g3\tno back\t\n",
        encoding="utf-8",
    )
    run = cli("import", "t.txt")
    assert run.code == 0, run.err
    assert "t.txt:5: warning: skipped: not imported: its first field is empty" in run.err
    assert "2 notes imported, 1 skipped" in run.out
    assert cli("check", "cards").code == 0


def test_a_dollar_sign_stays_a_dollar_sign(tmp_path: Path) -> None:
    """A dollar sign opens math in card text ($x$), so text from Anki comes in with each
    one escaped: a price stays a price, and Anki's own LaTeX tags [$]...[/$] stay as
    Anki wrote them."""
    path = tmp_path / "prices.txt"
    path.write_text("#separator:tab\nCosts $5 and $10\t[$]C = 2\\pi r[/$]\n", encoding="utf-8")
    (note,) = read_anki_text(path).notes
    assert isinstance(note, BasicNote)
    assert note.front == r"Costs \$5 and \$10"
    assert note.back == r"[\$]C = 2\\pi r[/\$]"


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("Costs $5 and $10", r"Costs \$5 and \$10"),
        ("<strong>$5</strong> and <code>$PATH</code>", r"**\$5** and `$PATH`"),
        ("<b>$5</b>", r"<b>\$5</b>"),
        ('<img src="a.png" alt="$5">', r"![\$5](a.png)"),
        (r"\($x$\)", r"\($x$\)"),
    ],
)
def test_dollar_signs_are_escaped_in_text_only(html: str, markdown: str) -> None:
    """Text is escaped (a picture's description too); code and math stay as written."""
    from deckbuilder.importers.html_markdown import field_markdown

    assert field_markdown(html).markdown == markdown
