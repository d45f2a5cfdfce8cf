"""An imported note type's scripts are never carried silently (issue 45): a package whose
note type runs or fetches something comes in with those parts removed from the card
file's copy, a warning naming the note type and what went, and the built deck updates
the note type in the learner's collection in place (the real Anki backend shows the
cards without them); ``--keep-scripts NAME`` keeps them byte for byte."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import genanki
import pytest
import yaml

from tests.conftest import Run, import_package

pytestmark = pytest.mark.anki
CliRun = Callable[..., Run]

NAME = "Basic (scripted)"
FRONT = (
    '<link rel="stylesheet" href="https://cdn.example.com/deck.css">\n'
    '<div class="front">{{Front}}</div>\n'
    '<script>document.title = "ran";</script>\n'
    '<img src="x.png" onerror="this.remove()">'
)
BACK = "{{FrontSide}}\n<hr id=answer>\n{{Back}}"
CSS = '@import url("https://fonts.example.com/css?family=Noto");\n.card { font-family: arial; }\n'
CLEAN_FRONT = '<link rel="stylesheet" >\n<div class="front">{{Front}}</div>\n\n<img src="x.png" >'
CLEAN_CSS = "\n.card { font-family: arial; }\n"
WARNING = (
    f"export.apkg: warning: note type '{NAME}': removed from its templates and CSS what Anki "
    "would run or fetch on every review: 1 script, 1 event handler, 1 remote resource, 1 "
    "remote CSS @import; packages built from the card file update the note type in Anki "
    f"without them. To keep them as they are, import with --keep-scripts '{NAME}'"
)


def shared_deck(path: Path, front: str = FRONT, css: str = CSS) -> Path:
    """A deck as shared decks come: a note type of its own with a script, an event
    handler, a remote style sheet and a remote font; and a cloze note of a plain type."""
    model = genanki.Model(
        1607392319,
        NAME,
        fields=[{"name": "Front"}, {"name": "Back"}],
        templates=[{"name": "Card 1", "qfmt": front, "afmt": BACK}],
        css=css,
    )
    deck = genanki.Deck(2059400110, "Shared")
    for i, (question, answer) in enumerate([("hola", "hello"), ("adiós", "goodbye")]):
        deck.add_note(genanki.Note(model=model, fields=[question, answer], guid=f"shared-{i}"))
    deck.add_note(genanki.Note(model=genanki.CLOZE_MODEL, fields=["{{c1::sí}}", ""], guid="c-1"))
    genanki.Package(deck).write_to_file(str(path))
    return path


def _learners_export(here: Path, collection: Any, **deck: str) -> Path:
    """The shared deck imported into the learner's collection and exported again, as
    File > Export writes it."""
    from anki.collection import DeckIdLimit, ExportAnkiPackageOptions

    import_package(collection, shared_deck(here / "shared.apkg", **deck))
    export = Path("export.apkg")
    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=False)
    did = collection.decks.id("Shared")
    collection.export_anki_package(
        out_path=str(export), options=options, limit=DeckIdLimit(deck_id=did)
    )
    return export


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _kept(here: Path, stem: str = "shared") -> dict[str, dict[str, Any]]:
    """The collection's note types the imported card file keeps (its ``note_types:``
    under the built-in keys), by Anki's name; import writes no other file for them."""
    assert not list((here / "cards").glob("*.notetypes.json"))
    data = yaml.safe_load((here / "cards" / f"{stem}.yaml").read_text(encoding="utf-8"))
    return {entry.get("name", key): entry for key, entry in data["note_types"].items()}


def _kept_shared(here: Path) -> dict[str, Any]:
    return _kept(here)[NAME]


def _built_into(here: Path, cli: CliRun, collection: Any) -> list[Any]:
    """Check and build the card file, import the package into the learner's collection
    (Anki's default options), and return its cards of the shared note type."""
    assert cli("check").code == 0
    assert cli("build", "--no-preview").code == 0
    notes_before = collection.note_count()
    types_before = len(collection.models.all_names_and_ids())
    log = import_package(collection, here / "output" / "shared.apkg", merge_notetypes=False)
    assert (len(log.new), len(log.conflicting)) == (0, 0)
    assert collection.note_count() == notes_before
    assert len(collection.models.all_names_and_ids()) == types_before  # updated in place
    note_type = collection.models.by_name(NAME)
    return [collection.get_card(cid) for cid in collection.find_cards(f'"note:{NAME}"')] + [
        note_type
    ]


def test_scripts_are_removed_with_a_warning_and_the_note_type_updates_in_place(
    here: Path, cli: CliRun, collection: Any
) -> None:
    export = _learners_export(here, collection)
    run = cli("import", export)
    assert run.code == 0, run.err
    assert WARNING in run.err.splitlines()
    assert run.err.count("warning: note type") == 1  # the cloze note type runs nothing
    entry = _kept_shared(here)
    assert entry["cards"][0]["front"] == CLEAN_FRONT
    assert entry["cards"][0]["back"] == BACK
    assert entry["css"] == CLEAN_CSS
    assert "keep_scripts" not in entry and entry["anki_id"] > 0
    *cards, note_type = _built_into(here, cli, collection)
    assert note_type["tmpls"][0]["qfmt"] == CLEAN_FRONT and note_type["css"] == CLEAN_CSS
    assert len(cards) == 2
    for card in cards:
        question, answer = card.question(), card.answer()
        assert card.note()["Front"] in question and card.note()["Back"] in answer
        for side in (question, answer):
            for gone in ("<script", "onerror", "https://", "@import"):
                assert gone not in side, (gone, side)


def test_keep_scripts_keeps_them_byte_for_byte(here: Path, cli: CliRun, collection: Any) -> None:
    export = _learners_export(here, collection)
    run = cli("import", export, "--keep-scripts", NAME)
    assert run.code == 0, run.err
    assert "warning: note type" not in run.err
    assert (
        f"note: note type '{NAME}': templates and CSS kept as they are, as asked, with what Anki "
        "runs or fetches on every review: 1 script, 1 event handler, 1 remote resource, 1 "
        "remote CSS @import"
    ) in run.out.splitlines()
    entry = _kept_shared(here)
    assert entry["keep_scripts"] is True
    assert (entry["cards"][0]["front"], entry["css"]) == (FRONT, CSS)
    *cards, note_type = _built_into(here, cli, collection)
    assert (note_type["tmpls"][0]["qfmt"], note_type["css"]) == (FRONT, CSS)
    for card in cards:
        assert '<script>document.title = "ran";</script>' in card.question()
        assert CSS in card.question()


def test_a_name_that_is_no_imported_note_type_is_an_error_naming_those_there_are(
    here: Path, cli: CliRun, collection: Any
) -> None:
    export = _learners_export(here, collection)
    run = cli("import", export, "--keep-scripts", "Basic (scripted)", "--keep-scripts", "Basik")
    assert run.code == 1
    assert run.err == (
        "Error: --keep-scripts: 'Basik': no such note type among those export.apkg brings "
        "with its notes; its note types are 'Basic (scripted)', 'Cloze (genanki)'\n"
    )
    assert not (here / "cards").exists()
    (here / "quiz.txt").write_text("1. Two?\nA) 2\nB) 3\nAnswer: A\n", encoding="utf-8")
    run = cli("import", "quiz.txt", "--keep-scripts", NAME)
    assert (run.code, run.err) == (
        1,
        "Error: --keep-scripts: only an Anki package (.apkg, .colpkg) brings note types; "
        "quiz.txt is not one\n",
    )


def test_json_output_carries_what_was_removed(here: Path, cli: CliRun, collection: Any) -> None:
    export = _learners_export(here, collection)
    run = cli("import", export, "--json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["ok"] is True and data["card_files"] == ["cards/shared.yaml"]
    warning = {"message": WARNING.split(": warning: ", 1)[1], "severity": "warning"}
    assert warning in [{k: w[k] for k in ("message", "severity")} for w in data["warnings"]]
    (note_type,) = data["note_types"]
    assert (note_type["name"], note_type["kept"]) == (NAME, False)
    assert [(p["kind"], p["where"]) for p in note_type["parts"]] == [
        ("remote_address", "the front of card 1"),
        ("script", "the front of card 1"),
        ("event_handler", "the front of card 1"),
        ("css_import", "the CSS"),
    ]
    assert note_type["parts"][2]["excerpt"] == 'onerror="this.remove()"'


def test_a_note_type_that_shows_its_field_only_from_a_script_is_not_imported_without_asking(
    here: Path, cli: CliRun, collection: Any
) -> None:
    """Removing the script would leave a front that shows no field, which Anki refuses:
    the note type's notes are left out, with the way to keep it."""
    front = '<div id="q"></div><script>q.textContent = "{{Front}}";</script>'
    export = _learners_export(here, collection, front=front)
    run = cli("import", export)
    assert run.code == 0, run.err
    assert (
        f"{NAME}: 2 notes -> not imported: without what its templates run or fetch, Anki "
        "would refuse its note type (the front of card 1 ('Card 1') shows no field; Anki "
        f"makes no card of it); to keep them as they are, import with --keep-scripts '{NAME}'"
    ) in run.out.splitlines()
    assert "wrote cards/shared.yaml: 1 note imported" in run.out
    assert "notes of the note types marked 'not imported' stay in Anki as they are" in run.out
    run = cli("import", export, "--keep-scripts", NAME, "--force")
    assert run.code == 0, run.err
    assert "wrote cards/shared.yaml: 3 notes imported" in run.out


DROID_FRONT = """<div class="card-front">{{Front}}</div>
<script>
  // Shrink long text, on AnkiDroid and desktop alike.
  (function () {
    var el = document.querySelector(".card-front");
    if (el && el.textContent.length > 40) el.classList.add("long");
  })();
</script>"""
DROID_BACK = """{{FrontSide}}
<hr id=answer>
<div class="card-back">{{Back}}</div>
<script>
  if (typeof AnkiDroidJS !== "undefined") document.body.classList.add("droid");
</script>"""
DROID_CSS = """@font-face { font-family: Noto; src: url("_NotoSans-Regular.ttf"); }
.card { font-family: Noto, arial; font-size: 22px; }
.card-front.long { font-size: 16px; }
.nightMode .card { color: #eee; }
"""
CLOZE_FRONT = '{{cloze:Text}}<script>document.querySelectorAll(".cloze").length</script>'


def test_a_shared_deck_with_a_harmless_script_is_imported_without_it(
    here: Path, cli: CliRun, collection: Any
) -> None:
    """The common shape of shared decks (AnkiDroid's forum, AnkiWeb): a small script on
    each side and a local font. Their notes come in; only the scripts go, with a warning
    per note type, and the local font stays."""
    basic = genanki.Model(
        1607392320,
        "Basic (AnkiDroid)",
        fields=[{"name": "Front"}, {"name": "Back"}],
        templates=[{"name": "Card 1", "qfmt": DROID_FRONT, "afmt": DROID_BACK}],
        css=DROID_CSS,
    )
    cloze = genanki.Model(
        1607392321,
        "Cloze (hints)",
        fields=[{"name": "Text"}, {"name": "Back Extra"}],
        templates=[
            {"name": "Cloze", "qfmt": CLOZE_FRONT, "afmt": CLOZE_FRONT + "<br>{{Back Extra}}"}
        ],
        css=".cloze { color: blue; }",
        model_type=genanki.Model.CLOZE,
    )
    deck = genanki.Deck(2059400111, "Droid")
    deck.add_note(genanki.Note(model=basic, fields=["der Hund", "the dog"], guid="d-1"))
    deck.add_note(genanki.Note(model=cloze, fields=["{{c1::Hund}} = dog", ""], guid="d-2"))
    genanki.Package(deck).write_to_file("droid.apkg")
    run = cli("import", "droid.apkg")
    assert run.code == 0, run.err
    assert "not imported" not in run.out and "2 notes imported" in run.out
    warnings = [line for line in run.err.splitlines() if "warning: note type" in line]
    assert [line.split(" what Anki")[0] for line in warnings] == [
        "droid.apkg: warning: note type 'Basic (AnkiDroid)': removed from its templates and CSS",
        "droid.apkg: warning: note type 'Cloze (hints)': removed from its templates and CSS",
    ]
    assert "every review: 2 scripts;" in warnings[0] and "every review: 2 scripts;" in warnings[1]
    by_name = _kept(here, "droid")
    droid = by_name["Basic (AnkiDroid)"]
    assert droid["css"] == DROID_CSS
    assert droid["cards"][0]["front"] == '<div class="card-front">{{Front}}</div>\n'
    assert by_name["Cloze (hints)"]["cards"][0]["front"] == "{{cloze:Text}}"
    assert cli("check").code == 0
    assert cli("build", "--no-preview").code == 0
    log = import_package(collection, here / "output" / "droid.apkg")
    assert len(log.new) == 2
    for cid in collection.find_cards(""):
        card = collection.get_card(cid)
        assert "<script" not in card.question() + card.answer()
        assert "Hund" in card.answer()
