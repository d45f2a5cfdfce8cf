"""A collection's own note types kept in the card file (issue 41, item 4: one way to keep
a note type, not two). ``deckbuilder import`` of a package whose notes are on Anki's
Basic and Cloze writes them as the short forms (``front:``/``back:``, ``text:``) and keeps
Anki's note types as ``note_types:`` declarations under the built-in keys, with their
``anki_id``; no ``*.notetypes.json`` beside the card file. The build then gives Anki the
note types it has, so the round trip adds nothing and conflicts with nothing (measured
with the real backend). A note types file an earlier import wrote is still read, and a
kind kept in both places is refused, as is a declaration under a built-in key that cannot
carry that kind's notes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import genanki
import pytest
import yaml

from deckbuilder.anki.notetypes import note_type
from deckbuilder.model import NoteKind
from tests.anki.anki_files import carried_json
from tests.conftest import Run, import_package

CliRun = Callable[..., Run]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _learners_export(here: Path, collection: Any) -> Path:
    """A learner's collection with a note on Anki's stock Basic and one on its Cloze, in
    their own deck, exported as Anki exports it."""
    deck_id = collection.decks.id("Biology")
    for stock, texts in (("Basic", ("cell", "the unit of life")), ("Cloze", ("{{c1::DNA}}", ""))):
        model = collection.models.by_name(stock)
        note = collection.new_note(model)
        for index, text in enumerate(texts):
            note.fields[index] = text
        collection.add_note(note, deck_id)
    export = here / "export.apkg"
    from anki.collection import ExportAnkiPackageOptions
    from anki.import_export_pb2 import ExportLimit

    limit = ExportLimit(deck_id=deck_id)
    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True)
    collection.export_anki_package(out_path=str(export), options=options, limit=limit)
    return export


def test_import_keeps_anki_note_types_in_the_card_file_and_the_round_trip_adds_nothing(
    here: Path, cli: CliRun, collection: Any
) -> None:
    export = _learners_export(here, collection)
    run = cli("import", str(export))
    assert run.code == 0, run.err
    assert not list((here / "cards").glob("*.notetypes.json"))
    (card_file,) = (here / "cards").glob("*.yaml")
    data = yaml.safe_load(card_file.read_text(encoding="utf-8"))
    kept = data["note_types"]
    assert set(kept) == {"basic", "cloze"}
    basic_id = collection.models.by_name("Basic")["id"]
    assert kept["basic"]["anki_id"] == basic_id and kept["basic"]["fields"] == ["Front", "Back"]
    assert kept["cloze"]["kind"] == "cloze"
    # The notes stay the short forms.
    assert {
        tuple(sorted(k for k in n if k in ("front", "back", "text"))) for n in data["notes"]
    } == {
        ("back", "front"),
        ("text",),
    }
    assert cli("check").code == 0
    build = cli("build", "--no-preview")
    assert build.code == 0, build.err
    (package,) = (here / "output").glob("*.apkg")
    types_before = len(collection.models.all_names_and_ids())
    log = import_package(collection, package)
    assert (len(log.new), len(log.conflicting)) == (0, 0)
    assert len(collection.models.all_names_and_ids()) == types_before


DECK = """\
deck: D
note_types:
  basic:
    name: Basic (from Anki)
    anki_id: 1234567
    fields: [Front, Back]
    cards:
      - name: Card 1
        front: "{{Front}}"
        back: "{{FrontSide}}<hr id=answer>{{Back}}"
notes:
  - {id: a, front: f, back: b}
"""


@pytest.fixture
def project(here: Path) -> Path:
    (here / "cards").mkdir()
    (here / "cards" / "d.yaml").write_text(DECK, encoding="utf-8")
    return here / "cards" / "d.yaml"


def test_a_kept_declaration_builds_the_notes_on_that_note_type(
    project: Path, cli: CliRun, collection: Any
) -> None:
    run = cli("build", "--no-preview")
    assert run.code == 0, run.err
    log = import_package(collection, project.parents[1] / "output" / "d.apkg")
    assert len(log.new) == 1
    (cid,) = collection.find_cards("")
    model = collection.get_card(cid).note().note_type()
    assert (model["id"], model["name"]) == (1234567, "Basic (from Anki)")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("    anki_id: 1234567\n", ""),
            "cards/d.yaml:3: note type 'basic' is a built-in note type's key: a declaration "
            "under it is the Anki note type the deck's basic notes are built with, kept by "
            "'deckbuilder import', and needs its 'anki_id'; for a note type of your own, "
            "choose another key",
        ),
        (
            ("[Front, Back]", "[Front, Back, Extra]"),
            "cards/d.yaml:3: note type 'basic' must have 2 fields and 1 card template to "
            "carry basic notes, not 3 and 1",
        ),
        (
            ("  basic:", "  cloze:"),
            "cards/d.yaml:3: note type 'cloze' must be of kind cloze, as Anki's is",
        ),
    ],
)
def test_a_built_in_key_that_cannot_carry_its_notes_is_refused_at_its_line(
    project: Path, cli: CliRun, change: tuple[str, str], message: str
) -> None:
    project.write_text(DECK.replace(*change), encoding="utf-8")
    run = cli("check")
    assert run.code == 1
    assert message in run.err.splitlines(), run.err


def test_a_kind_kept_in_the_card_file_and_in_a_note_types_file_is_refused(
    project: Path, cli: CliRun
) -> None:
    spec = note_type(NoteKind.BASIC)
    from dataclasses import replace

    old = replace(spec, id=7654321, name="Basic (older)")
    (project.parent / "d.notetypes.json").write_text(
        carried_json({NoteKind.BASIC: old}), encoding="utf-8"
    )
    run = cli("check")
    assert run.code == 1
    assert (
        "cards/d.yaml:3: note type 'basic' is kept here and in cards/d.notetypes.json: "
        "Anki's note type is kept in one place; delete that file"
    ) in run.err.splitlines(), run.err


def test_what_anki_would_refuse_in_a_kept_declaration_is_told_at_its_line(
    project: Path, cli: CliRun
) -> None:
    own = note_type(NoteKind.BASIC).id
    project.write_text(DECK.replace("1234567", str(own)), encoding="utf-8")
    run = cli("check")
    assert run.code == 1
    assert run.err.startswith(
        f"cards/d.yaml:3: note type 'basic': its id {own} is the id of deckbuilder's own"
    ), run.err


def test_a_genanki_package_on_its_own_basic_comes_in_kept_in_the_card_file(
    here: Path, cli: CliRun
) -> None:
    model = genanki.Model(
        1607392319,
        "Basic (genanki)",
        fields=[{"name": "Front"}, {"name": "Back"}],
        templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr>{{Back}}"}],
    )
    deck = genanki.Deck(2059400110, "G")
    deck.add_note(genanki.Note(model=model, fields=["a", "b"], guid="g-1"))
    genanki.Package(deck).write_to_file("g.apkg")
    assert cli("import", "g.apkg").code == 0
    text = (here / "cards" / "g.yaml").read_text(encoding="utf-8")
    assert "note_types:\n  basic:\n    name: Basic (genanki)\n" in text
    assert "anki_id: 1607392319" in text
    assert cli("check").code == 0
