"""Anki text with more than two fields comes in onto a declared note type (issue 41): a
note type column or ``#notetype:`` header naming a type deckbuilder has no short form
for declares one from the columns; ``--note-type KEY`` puts a file that names none onto
a note type of the project, or a new one. Notes of such types were left out ("3 fields
(deckbuilder reads notes of two fields)"): 376 of the 635 notes of one real export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from deckbuilder.importers import read_source
from deckbuilder.importers.base import Tally
from deckbuilder.model import BasicNote, FieldsNote
from tests.conftest import Run, import_package

VERBS = [("gehen", "ging", "gegangen", "to go"), ("sehen", "sah", "gesehen", "to <see>")]


def _card_file(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return document


def test_a_note_type_column_declares_each_wide_type(tmp_path: Path) -> None:
    """The shape of a real export (Redclem/Anki-Union's Allemand.csv): a note type column
    naming the author's own types, rows padded to the widest. A type of two fields stays
    a basic note; a wider one is declared, its fields Field 1..N."""
    path = tmp_path / "Allemand.txt"
    path.write_text(
        "#separator:tab\n#html:false\n#notetype column:1\n#deck column:2\n"
        "Verbe fort\tAllemand\tgehen\tging\tgegangen\taller\n"
        "Verbe fort\tAllemand\tsehen\tsah\t\t\n"
        "Basique\tAllemand\tder Hund\tle chien\t\t\n",
        encoding="utf-8",
    )
    read = read_source(path)
    strong, seen, dog = read.notes
    assert isinstance(strong, FieldsNote) and isinstance(seen, FieldsNote)
    assert strong.note_type is seen.note_type
    assert strong.note_type.key == "verbe-fort" and strong.note_type.name == "Verbe fort"
    assert strong.note_type.fields == ("Field 1", "Field 2", "Field 3", "Field 4")
    assert strong.fields == ("gehen", "ging", "gegangen", "aller")
    assert seen.fields == ("sehen", "sah", "", "")
    assert isinstance(dog, BasicNote) and (dog.front, dog.back) == ("der Hund", "le chien")
    assert Tally("Verbe fort", 2, "notes of a note type of the deck's own ('verbe-fort')") in (
        read.report
    )
    assert not read.skipped


def test_a_type_named_as_ankis_own_with_more_fields_is_declared(tmp_path: Path) -> None:
    """A note type column naming "Cloze" for notes of three fields (a collection whose
    Cloze has a Source field): they were left out ("3 fields (deckbuilder reads notes of
    two fields)"). Anki's own name keeps its notes of two fields deckbuilder's."""
    path = tmp_path / "c.txt"
    path.write_text(
        "#separator:tab\n#html:true\n#notetype column:1\n"
        "Cloze\t{{c1::Heparin}} potentiates antithrombin\t\tGoodman\n"
        "Basic\tfront\tback\t\n",
        encoding="utf-8",
    )
    source, basic = read_source(path).notes
    assert isinstance(source, FieldsNote) and source.note_type.is_cloze
    assert source.note_type.key == "cloze-2" and source.fields[2] == "Goodman"
    assert isinstance(basic, BasicNote)


def test_a_notetype_header_names_the_type_and_columns_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text(
        "#separator:tab\n#html:true\n#notetype:Vocab (de)\n#columns:Word\tPast\tPerfect\tMeaning\n"
        + "".join("\t".join(row) + "\n" for row in VERBS),
        encoding="utf-8",
    )
    go, _ = read_source(path).notes
    assert isinstance(go, FieldsNote)
    assert go.note_type.name == "Vocab (de)" and go.note_type.key == "vocab-de"
    assert go.note_type.fields == ("Word", "Past", "Perfect", "Meaning")
    (card,) = go.note_type.templates
    assert card.front == "{{Word}}"
    assert card.back.startswith("{{FrontSide}}") and "{{Meaning}}" in card.back


def test_notes_of_a_cloze_type_with_more_fields_come_in_as_cloze(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text(
        "#separator:tab\n#html:true\n#notetype:Cloze+Source\n"
        "{{c1::Heparin}} potentiates {{c2::antithrombin}}\t\tGoodman\n",
        encoding="utf-8",
    )
    (note,) = read_source(path).notes
    assert isinstance(note, FieldsNote) and note.note_type.is_cloze
    assert note.card_ordinals == (0, 1)
    assert note.note_type.templates[0].front == "{{cloze:Field 1}}"


@pytest.mark.anki
def test_an_export_of_an_own_note_type_round_trips_through_anki(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anki's own export of notes of a four-field note type: every note comes in, check
    and build pass, the built deck holds the fields Anki holds, and imported back into
    the collection the file came from it changes nothing (GUIDs kept: conflicting)."""
    from anki.collection import Collection

    col = Collection(str(tmp_path / "learner.anki2"))
    model = col.models.new("Verb")
    for name in ("Infinitive", "Past", "Perfect", "Meaning"):
        col.models.add_field(model, col.models.new_field(name))
    template = col.models.new_template("Forms")
    template["qfmt"], template["afmt"] = "{{Infinitive}}", "{{FrontSide}}<hr id=answer>{{Past}}"
    col.models.add_template(model, template)
    col.models.add(model)
    for row in VERBS:
        note = col.new_note(col.models.by_name("Verb"))  # type: ignore[arg-type]
        for index, text in enumerate(row):
            note.fields[index] = text
        col.add_note(note, col.decks.id("German"))  # type: ignore[arg-type]
    export = tmp_path / "German.txt"
    col.export_note_csv(
        out_path=str(export),
        limit=None,
        with_html=True,
        with_tags=True,
        with_deck=True,
        with_notetype=True,
        with_guid=True,
    )
    before = {col.get_note(n).guid: col.get_note(n).fields for n in col.find_notes("")}
    monkeypatch.chdir(tmp_path)

    result = cli("import", export)
    assert result.code == 0, result.err
    assert "Verb: 2 notes -> notes of a note type of the deck's own ('verb')" in result.out
    assert cli("check").code == 0
    assert cli("build", "--no-preview").code == 0
    fresh = Collection(str(tmp_path / "fresh.anki2"))
    import_package(fresh, tmp_path / "output" / "german.apkg")
    built = {fresh.get_note(n).guid: fresh.get_note(n).fields for n in fresh.find_notes("")}
    fresh.close()
    assert built == before
    log = import_package(col, tmp_path / "output" / "german.apkg", merge_notetypes=False)
    assert not log.new and not log.updated  # type: ignore[attr-defined]
    assert {col.get_note(n).guid: col.get_note(n).fields for n in col.find_notes("")} == before
    col.close()


def test_note_type_option_takes_a_project_note_type(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that names no note type, onto the project's note-types/verb.yaml: the card
    file names it with 'type:' and does not declare it again; the fourth column, past
    the note type's fields, is the tags, as Anki maps a file onto a note type."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "note-types").mkdir()
    (tmp_path / "note-types" / "verb.yaml").write_text(
        "fields: [Infinitive, Past, Perfect]\n"
        "cards:\n- name: Forms\n  front: '{{Infinitive}}'\n  back: '{{Past}} {{Perfect}}'\n",
        encoding="utf-8",
    )
    (tmp_path / "verbs.txt").write_text(
        "gehen\tging\tgegangen\tstrong\tto go\nsehen\tsah\tgesehen\tstrong\n",
        encoding="utf-8",
    )
    result = cli("import", "verbs.txt", "--note-type", "verb")
    assert result.code == 0, result.err
    assert (
        "no field of note type 'verb' (Infinitive, Past, Perfect) takes the text of column 5"
        in result.err
    )
    document = _card_file(tmp_path / "cards" / "verbs.yaml")
    assert "note_types" not in document
    first = document["notes"][0]
    assert first["type"] == "verb" and first["tags"] == ["strong"]
    assert first["fields"] == {"Infinitive": "gehen", "Past": "ging", "Perfect": "gegangen"}
    assert cli("check").code == 0


def test_note_type_option_with_a_new_key_names_fields_from_the_header_row(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spreadsheet whose header row names columns of its own came in as basic notes of
    its first two columns, the rest left out; onto a new note type, every column stays."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "words.csv").write_text(
        "Word,Reading,Meaning,Example,tags\n사과,sagwa,apple,사과가 맛있어요,fruit\n",
        encoding="utf-8",
    )
    result = cli("import", "words.csv", "--note-type", "korean")
    assert result.code == 0, result.err
    document = _card_file(tmp_path / "cards" / "words.yaml")
    assert document["note_types"]["korean"]["fields"] == ["Word", "Reading", "Meaning", "Example"]
    (note,) = document["notes"]
    assert note["type"] == "korean" and note["tags"] == ["fruit"]
    assert note["fields"]["Example"] == "사과가 맛있어요"
    assert cli("check").code == 0 and cli("build", "--no-preview").code == 0


@pytest.mark.parametrize(
    ("name", "text", "key", "said"),
    [
        ("d.txt", "#separator:tab\n#notetype column:1\nBasic\ta\tb\n", "k", "names each note's"),
        ("d.txt", "a\tb\tc\n", "basic", "one of deckbuilder's own note types"),
        ("d.txt", "a\tb\tc\n", "Not A Key", "--note-type"),
        ("d.gift", "::Q:: 1+1? {=2}\n", "k", "text files and spreadsheets"),
    ],
)
def test_note_type_option_refusals(
    tmp_path: Path,
    cli: Callable[..., Run],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    text: str,
    key: str,
    said: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    result = cli("import", name, "--note-type", key)
    assert result.code == 1 and said in result.err
    assert not (tmp_path / "cards").exists()
