"""Discrepancies that benchmarks/corpus_check.py found on real files nobody here wrote
(issue 33, "Must hold"), each kept as a small file written by the test: what Anki itself
imports from the file comes in (or is named with a reason), nothing crashes, and what is
written passes ``check``, builds and round-trips through a real collection."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.importers.html_markdown import field_markdown
from deckbuilder.model import BasicNote, McqNote
from deckbuilder.render.markdown import render_markdown
from tests.cardfile.loading import load_deck
from tests.conftest import Run, import_package

CliRun = Callable[..., Run]


def shown(field: str) -> str:
    """A field's text as a card shows it: no tags, entities read, white space folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", field)).split())


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.anki
def test_a_note_changed_in_milliseconds_imports_and_round_trips(here: Path, cli: CliRun) -> None:
    """A deck shared on GitHub (Alexuspo/MojeKarticky, Literatura-Test-karticky..apkg) was
    written by a generator that stored note modification times in milliseconds, which Anki
    imports as they are; the lock file's time of such a note (year 57127) crashed import
    with exit 3. It comes in, builds, and the built deck adds and changes nothing in the
    collection that holds the original."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    (here / "anki").mkdir()
    col = Collection(str(here / "anki" / "collection.anki2"))
    did = col.decks.id("Literatura")
    note = col.new_note(col.models.by_name("Basic"))  # type: ignore[arg-type]
    note["Front"], note["Back"] = "Kdo napsal Máj?", "Karel Hynek Mácha"
    col.add_note(note, did)
    col.db.execute("update notes set mod = ?", 1_740_592_010_890)
    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=True)
    package = here / "literatura.apkg"
    col.export_anki_package(out_path=str(package), options=options, limit=DeckIdLimit(deck_id=did))

    run = cli("import", package)
    assert run.code == 0, run.err
    assert cli("check").code == 0
    assert cli("build", "--no-preview").code == 0
    before = col.get_note(note.id).fields
    log = import_package(col, here / "output" / "literatura.apkg")
    assert (len(log.new), col.note_count()) == (0, 1)  # type: ignore[attr-defined]
    assert col.get_note(note.id).fields == before
    col.close()


def anki_fields(path: Path, tmp_path: Path) -> list[list[str]]:
    """The fields of the notes Anki's own CSV import makes of ``path``."""
    from anki.collection import Collection
    from anki.import_export_pb2 import ImportCsvRequest

    col = Collection(str(tmp_path / "oracle.anki2"))
    try:
        metadata = col.get_csv_metadata(path=str(path), delimiter=None)
        col.import_csv(ImportCsvRequest(path=str(path), metadata=metadata))
        return [list(col.get_note(nid).fields) for nid in sorted(col.find_notes(""))]
    finally:
        col.close()


@pytest.mark.anki
@pytest.mark.parametrize(
    "text",
    [
        "\ufeffHello, world",  # AnkiDroid's text-utf8-bom.txt, whole
        "France,Paris\nPeru,Lima\nColombia,Bogota\n",  # Anki's CSV tests: "front,back"
        "#a comment\nfront,back\n#another\n",
        "Capital of France: Paris\nCapital of Peru: Lima\n",
    ],
)
def test_header_less_text_split_by_commas_or_colons_comes_in_as_anki_reads_it(
    here: Path, cli: CliRun, text: str
) -> None:
    """AnkiDroid's text-utf8-bom.txt ("Hello, world") and the comma-separated inputs of
    Anki's CSV importer tests (rslib import_export/text/csv) were refused with "cannot
    tell the format", though Anki guesses their separator and imports every row: only
    tabs, pipes and semicolons made header-less text Anki's."""
    source = here / "deck.txt"
    source.write_text(text, encoding="utf-8")
    expected = anki_fields(source, here)
    run = cli("import", source, "--out", "cards/deck.yaml")
    assert run.code == 0, run.err
    notes = load_deck(here / "cards" / "deck.yaml").notes
    assert all(isinstance(n, BasicNote) for n in notes)
    # As shown: a space that begins a field shows nothing, and the card file drops it.
    assert [[n.front, n.back] for n in notes if isinstance(n, BasicNote)] == [
        [shown(field) for field in fields] for fields in expected
    ]
    assert cli("check").code == 0


@pytest.mark.anki
def test_a_sheet_whose_header_names_no_known_column_comes_in_by_its_first_two_columns(
    here: Path, cli: CliRun
) -> None:
    """Flashcard sheets shared on GitHub name their own columns (GiulioCusenza/korean-
    flashcards: "korean, english, example, example_translation, category"; zhongwen-anki:
    "Simplified, Traditional, Pinyin, ..."): every row was refused with "the header row
    names ...", though Anki imports each row, its first two columns as Front and Back. They
    come in so, the header row read as the column names (Anki makes a note of it), and a
    warning names the columns left out and how to choose others."""
    source = here / "flashcards.csv"
    source.write_text(
        "korean,english,example,example_translation,category\n"
        "안녕하세요,hello,안녕하세요! 만나서 반가워요.,Hello! Nice to meet you.,greetings\n"
        "감사합니다,thank you,도와주셔서 감사합니다.,Thank you for helping.,greetings\n"
        ",orphan,,,misc\n",
        encoding="utf-8",
    )
    anki = anki_fields(source, here)
    run = cli("import", source, "--out", "cards/korean.yaml")
    assert run.code == 0, run.err
    assert (
        "flashcards.csv:1: warning: the header row names none of the columns front, back" in run.err
    )
    assert "not imported: example, example_translation, category" in run.err
    assert "flashcards.csv:4: warning: skipped: not imported: its first field is empty" in run.err
    notes = load_deck(here / "cards" / "korean.yaml").notes
    ours = [[n.front, n.back] for n in notes if isinstance(n, BasicNote)]
    assert ours == [fields for fields in anki if fields[0] != "korean"]  # Anki's, less the header
    assert cli("check").code == 0
    assert cli("build", "--no-preview").code == 0


@pytest.mark.anki
def test_a_sheet_with_id_and_tags_columns_among_its_own_takes_front_and_back_from_the_others(
    here: Path, cli: CliRun
) -> None:
    """aeroSapphire/gre-flashcards' flashcards.csv ("id, word, definition, example, tags,
    status, created_at, ...", 646 rows) was refused whole; Anki imports every row, with the
    id as Front. Its id and tags columns are read as deckbuilder reads them everywhere, and
    the first two other columns are front and back."""
    source = here / "flashcards.csv"
    source.write_text(
        "id,word,definition,example,tags,status\n"
        "7,abate,to lessen in intensity,The storm abated.,verbs gre,new\n"
        "8,laconic,using few words,His laconic reply.,adjectives,new\n",
        encoding="utf-8",
    )
    anki_rows = len(anki_fields(source, here))
    run = cli("import", source, "--out", "cards/gre.yaml")
    assert run.code == 0, run.err
    assert "'word' is read as the front and 'definition' as the back" in run.err
    assert "not imported: example, status" in run.err
    notes = load_deck(here / "cards" / "gre.yaml").notes
    assert anki_rows == len(notes) + 1  # Anki makes a note of the header row too
    assert [(n.id, n.tags, n.front, n.back) for n in notes if isinstance(n, BasicNote)] == [
        ("7", ("verbs", "gre"), "abate", "to lessen in intensity"),
        ("8", ("adjectives",), "laconic", "using few words"),
    ]
    assert cli("check").code == 0


def test_gift_choices_written_tilde_equals_come_in_as_moodle_reads_them(
    here: Path, cli: CliRun
) -> None:
    """A teacher's GIFT exercises (JulieVanHoudenhove/GL02_MACHINE_A24, 25 files) mark
    the right choice '~=' ({~high-fat~low-salt~=vegetarian}): Moodle reads '=' as the
    start of an answer and drops the empty one '~' leaves, so it imports every question;
    each was refused with "'choices[2]' is empty"."""
    (here / "voc.gift").write_text(
        "::Voc1.1:: I never eat meat, I follow a strict "
        "{~high-fat~low-salt~=vegetarian~vitamins} diet.\n\n"
        "::Voc1.2:: Overweight people are rarely told to follow a "
        "{~=high-fat~low-salt~vegetarian~vitamins} diet.\n",
        encoding="utf-8",
    )
    run = cli("import", "voc.gift", "--out", "cards/voc.yaml")
    assert run.code == 0, run.err
    notes = load_deck(here / "cards" / "voc.yaml").notes
    assert [(n.choices, n.answer) for n in notes if isinstance(n, McqNote)] == [
        (("high-fat", "low-salt", "vegetarian", "vitamins"), (2,)),
        (("high-fat", "low-salt", "vegetarian", "vitamins"), (0,)),
    ]
    assert cli("check").code == 0


@pytest.mark.anki
def test_plain_text_fields_written_over_indented_lines_keep_the_text_anki_shows(
    here: Path, cli: CliRun
) -> None:
    """A real exam-question deck (Daniel-CG-Wright/ExamPaperProject, "CS 2017-2022.apkg",
    352 notes) holds plain text over indented lines ("\\n    2.  Describe ... [4]", "2. Any
    of the following:\\nFetch: ..."). Anki shows it as one flowing text; the card files
    made an indented code block of it (showing "\\[4\\]") and an ordered list of "2. Any",
    and wrote "[4]" as "\\[4\\]", which is math. Each field now comes in as the text Anki
    shows, without a warning, and builds to the same shown text."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    front = "\n    2017 Q2\n    2.  Describe the fetch-execute cycle (PC to MAR). \n     [4]"
    back = "2. Any of the following:\n\nFetch:\nThe address is copied from RAM"
    (here / "anki").mkdir()
    col = Collection(str(here / "anki" / "collection.anki2"))
    did = col.decks.id("CS")
    note = col.new_note(col.models.by_name("Basic"))  # type: ignore[arg-type]
    note["Front"], note["Back"] = front, back
    col.add_note(note, did)
    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=False)
    package = here / "cs.apkg"
    col.export_anki_package(out_path=str(package), options=options, limit=DeckIdLimit(deck_id=did))
    col.close()

    run = cli("import", package, "--out", "cards/cs.yaml")
    assert run.code == 0, run.err
    assert "markup the card format cannot hold" not in run.err
    assert cli("build", "--no-preview").code == 0
    built = Collection(str(here / "built.anki2"))
    import_package(built, here / "output" / "cs.apkg")
    (built_front, built_back), *_ = [built.get_note(n).fields for n in built.find_notes("")]
    built.close()
    assert "<pre>" not in built_front and "<ol" not in built_back
    assert (shown(built_front), shown(built_back)) == (shown(front), shown(back))


@pytest.mark.parametrize(
    "field",
    [
        # Issue 44 made '$...$' math in card text: the conversion writes a dollar as '\\$'.
        "<div>[$]C = (\\text{Obj}(C))[/$]</div><div>where C verifies [the laws]</div>",
        "see [4] and (PC to MAR)<br>1) fetch",
        "a [link](not one) b",
    ],
)
def test_brackets_and_parentheses_in_a_field_never_become_math(field: str) -> None:
    """A real LaTeX deck (marekyggdrasil/AnkiCategoryTheory, deck.apkg) has fields like
    "<div>[$]C = ...[/$]</div>": the card file escaped its brackets as "\\[$\\]", which a
    card file (and Anki's MathJax) reads as display math. Brackets and parentheses are
    written so that the field shows its own text."""
    converted = field_markdown(field)
    assert "\\[" not in converted.markdown and "\\(" not in converted.markdown
    rendered = render_markdown(converted.markdown, resolve=lambda src, kind: src).html
    assert shown(rendered) == shown(field)


def test_a_script_written_field_with_markup_it_cannot_hold_still_shows_its_text_on_one_line() -> (
    None
):
    """In the same exam deck, 18 fields hold over their indented lines markup a card file
    cannot hold (a stray <h1>, BNF's <letter>): they are reported as before, but their text
    no longer turns into a list ("8. Any") or a code block of the indents."""
    field = "8. Any of the following:\n\n<h1>Title</h1>\n    indented line"
    converted = field_markdown(field)
    assert not converted.exact
    rendered = render_markdown(converted.markdown, resolve=lambda src, kind: src).html
    assert "<ol" not in rendered and "<pre>" not in rendered
    assert shown(rendered) == shown(field)
