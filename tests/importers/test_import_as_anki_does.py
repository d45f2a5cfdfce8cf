"""Issue 33, "Real decks come in": text as Anki's own CSV importer reads it (the real
backend is the oracle), names for every script, Korean spreadsheets and GIFT labels, and
identities that survive an edited source (re-imported into a real collection: 0 new
notes)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.importers import ImportOptions, plan_import, read_source
from deckbuilder.model import BasicNote, McqNote
from tests.conftest import DATA, Run, import_package

CliRun = Callable[..., Run]
# Anki's own fixture (ankitects/anki, pylib/tests/support/text-2fields.txt): a comment
# line, header-less tab-separated rows, a row with too many fields, one with too few,
# one whose first field is empty.
TWO_FIELDS = DATA / "import" / "anki-text-2fields.txt"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def anki_reads(path: Path, tmp_path: Path) -> tuple[list[list[str]], int]:
    """The fields of the notes Anki's own CSV import makes of ``path``, and how many rows
    it leaves out for an empty first field."""
    from anki.collection import Collection
    from anki.import_export_pb2 import ImportCsvRequest

    col = Collection(str(tmp_path / "oracle.anki2"))
    try:
        metadata = col.get_csv_metadata(path=str(path), delimiter=None)
        log = col.import_csv(ImportCsvRequest(path=str(path), metadata=metadata)).log
        notes = [list(col.get_note(nid).fields) for nid in sorted(col.find_notes(""))]
        return notes, len(log.empty_first_field)
    finally:
        col.close()


def our_fields(path: Path) -> tuple[list[list[str]], list[int | None]]:
    plan = plan_import(read_source(path), ImportOptions(out=Path("x.yaml")))
    fields = []
    for note in plan.decks[0].notes:
        assert isinstance(note, BasicNote)
        fields.append([note.front, note.back])
    return fields, [s.line for s in plan.skipped]


@pytest.mark.anki
def test_ankis_own_header_less_fixture_comes_in_as_anki_reads_it(here: Path) -> None:
    """Anki's text-2fields.txt was refused ("cannot tell the format"); every note Anki
    makes of it comes in, and the row Anki skips is named with its line."""
    notes, empty = anki_reads(TWO_FIELDS, here)
    ours, skipped = our_fields(TWO_FIELDS)
    assert ours == notes and len(notes) == 8
    assert skipped == [10] and empty == 1


@pytest.mark.anki
@pytest.mark.parametrize(
    "text",
    [
        "#separator: \nfront back tags\n",  # a literal space, not stripped
        "#separator:\t\nuno\tone\n",  # a literal tab
        "#separator:Pipe,,,,,,,\nuno|one\ndos|two|t1 t2\n",  # trailing delimiters dropped
        "#separator:Bogus\nuno;one\n",  # unknown name: guessed, as Anki does
        "#html:false\nx < y,a & b\n",
        "uno,one,tagged\ndos,two\n",  # header-less CSV (.csv): front, back, tags
        "#columns:Back\tFront\nuno\tone\n",  # columns named by the note type's fields
        "tags:old style\nuno\tone\n",
    ],
)
def test_headers_and_separators_as_anki_reads_them(here: Path, text: str) -> None:
    path = here / ("t.csv" if text.startswith("uno,") else "t.txt")
    path.write_text(text, encoding="utf-8")
    notes, _ = anki_reads(path, here)
    ours, _ = our_fields(path)
    # Text Anki escapes as HTML is Markdown with the same characters escaped in the card file.
    html = [[field.replace("&", "&amp;").replace("\\<", "&lt;") for field in n] for n in ours]
    assert ours == notes or html == notes


def test_utf16_with_a_bom_is_text(here: Path, cli: CliRun) -> None:
    """Notepad's and Excel's "Unicode text" was called a binary file."""
    (here / "words.txt").write_bytes("\ufeffhola\thello\n감사\tthanks\n".encode("utf-16-le"))
    run = cli("import", "words.txt")
    assert run.code == 0, run.err
    assert "2 notes imported" in run.out


def test_korean_deck_names_give_readable_stable_unique_files(here: Path, cli: CliRun) -> None:
    """`$CATEGORY: .../머신러닝 1주차` gave cards/1.yaml with id '1'; 한국어퀴즈.gift gave
    cards/imported.yaml, and the next Korean quiz then failed, with --force destroying
    the first."""
    (here / "week1.gift").write_text(
        "$CATEGORY: $course$/top/머신러닝 1주차\n\n질문? {=가 ~나}\n", encoding="utf-8"
    )
    (here / "한국어퀴즈.gift").write_text("첫 질문? {=가 ~나}\n", encoding="utf-8")
    (here / "다른퀴즈.gift").write_text("다른 질문? {=가 ~나}\n", encoding="utf-8")
    for name in ("week1.gift", "한국어퀴즈.gift", "다른퀴즈.gift"):
        run = cli("import", name)
        assert run.code == 0, run.err
    files = sorted(p.name for p in (here / "cards").iterdir())
    assert files == ["다른퀴즈.yaml", "머신러닝-1주차.yaml", "한국어퀴즈.yaml"]
    ids = [
        line.removeprefix("id: ")
        for name in files
        for line in (here / "cards" / name).read_text(encoding="utf-8").splitlines()
        if line.startswith("id: ")
    ]
    assert ids[1].startswith("meosinleoning-1jucha-") and len(set(ids)) == 3
    again = cli("import", "한국어퀴즈.gift")
    assert again.code == 1 and "use --force to replace it, or --out" in again.err
    assert cli("check", "cards").code == 0


def test_korean_spreadsheet_headers(here: Path) -> None:
    (here / "q.csv").write_text(
        "문제,보기1,보기2,보기3,정답,해설,태그\n수도는?,서울,부산,대구,1,서울입니다,지리\n",
        encoding="utf-8",
    )
    (here / "f.csv").write_text("질문,정답\n사과,apple\n", encoding="utf-8")
    (mcq,) = read_source(here / "q.csv").notes
    assert isinstance(mcq, McqNote)
    assert (mcq.question, mcq.choices, mcq.answer, mcq.explanation, mcq.tags) == (
        "수도는?",
        ("서울", "부산", "대구"),
        (0,),
        "서울입니다",
        ("지리",),
    )
    (basic,) = read_source(here / "f.csv").notes
    assert isinstance(basic, BasicNote) and (basic.front, basic.back) == ("사과", "apple")


def test_gift_true_false_choices_speak_the_decks_language(here: Path) -> None:
    (here / "ko.gift").write_text("지구는 둥글다. {T}\n\n바다는 짜다. {F}\n", encoding="utf-8")
    (here / "en.gift").write_text("The Earth is round. {T}\n", encoding="utf-8")
    ko = [n for n in read_source(here / "ko.gift").notes if isinstance(n, McqNote)]
    assert [n.choices for n in ko] == [("참", "거짓"), ("참", "거짓")]
    assert [n.answer for n in ko] == [(0,), (1,)]
    (en,) = read_source(here / "en.gift").notes
    assert isinstance(en, McqNote) and en.choices == ("True", "False")


def test_a_rows_id_does_not_depend_on_its_markup(here: Path) -> None:
    """Ids of cloze rows held the cloze markup (c1-o-n-3-...): moving a deletion gave
    the note a new id, a new GUID, and Anki a duplicate."""
    (here / "a.csv").write_text("text,extra\nThe {{c1::sun}} is a star,\n", encoding="utf-8")
    (here / "b.csv").write_text("text,extra\n{{c1::The sun}} is a **star**,\n", encoding="utf-8")
    (a,) = plan_import(read_source(here / "a.csv"), ImportOptions(out=Path("a.yaml"))).decks
    (b,) = plan_import(read_source(here / "b.csv"), ImportOptions(out=Path("a.yaml"))).decks
    assert a.notes[0].id == b.notes[0].id and a.notes[0].id.startswith("the-sun-is-a-star-")


EDITS = {
    "quiz.csv": ("front,back\nhola,hello\nadiós,bye\n", "front,back\nhola,hi there\nadiós,bye\n"),
    "quiz.gift": (
        "::greet::Hola means? {=hello ~bye}\n\nAdiós means? {=bye ~hello}\n",
        "::greet::Hola, in English? {=hello ~bye ~thanks}\n\nAdiós means? {=bye ~hi}\n",
    ),
    "words.txt": ("hola\thello\nadiós\tbye\n", "hola\thello there\nadiós\tgoodbye\n"),
}


@pytest.mark.anki
@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edited_source_updates_its_notes_in_anki(
    here: Path, cli: CliRun, collection: object, name: str
) -> None:
    """Re-imported after an edit (the same name or first field), every note keeps its
    GUID: Anki updates the notes and adds none."""
    first, edited = EDITS[name]
    (here / name).write_text(first, encoding="utf-8")
    assert cli("import", name, "--out", "cards/deck.yaml").code == 0
    assert cli("build", "cards", "--out", "out1").code == 0
    assert len(import_package(collection, here / "out1" / "deck.apkg").new) == 2  # type: ignore[attr-defined]
    (here / name).write_text(edited, encoding="utf-8")
    shutil.rmtree(here / "cards")
    run = cli("import", name, "--out", "cards/deck.yaml")
    assert run.code == 0, run.err
    assert cli("build", "cards", "--out", "out2").code == 0
    log = import_package(collection, here / "out2" / "deck.apkg")
    assert len(log.new) == 0  # type: ignore[attr-defined]
    assert len(collection.find_notes("")) == 2  # type: ignore[attr-defined]
