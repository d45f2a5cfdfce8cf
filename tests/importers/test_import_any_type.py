"""Any note type comes in (issue 41): a package's notes of note types the card format
has no short form for become a `note_types:` declaration and notes with `fields:`; the
round trip through the real Anki backend gives 0 new notes, 0 conflicts, identical
fields, templates and CSS, and keeps review history."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Run, answer_good, import_package

pytestmark = pytest.mark.anki

FIELDS = ["Word", "Reading", "Meaning", "Example", "Audio"]
ROWS = [
    ("사과", "sagwa", "apple", "사과가 <b>맛있어요</b>.", ""),
    ("물", "mul", "water", "", ""),
    ("책", "chaek", "book", "<div>책을 읽어요</div><div><br></div>", "[sound:chaek.mp3]"),
    ("", "", "nothing in Korean", "", ""),  # no Recognition card: Anki's own rule
]


def _collection_with_own_note_types(path: Path) -> Any:
    """A learner's collection: a two-card vocabulary note type with speech and a
    typed answer, and a cloze note type with a Source field, with notes of each."""
    from anki.collection import Collection

    col = Collection(str(path))
    models = col.models
    vocab = models.new("Vocab (ko)")
    for name in FIELDS:
        models.add_field(vocab, models.new_field(name))
    recognition = models.new_template("Recognition")
    recognition["qfmt"] = "{{Word}}{{tts ko_KR:Word}}"
    recognition["afmt"] = (
        "{{FrontSide}}<hr id=answer>{{Meaning}}{{#Example}}<br><i>{{Example}}</i>"
        "{{/Example}}{{Audio}}"
    )
    production = models.new_template("Production")
    production["qfmt"] = "{{Meaning}}"
    production["afmt"] = "{{FrontSide}}<hr id=answer>{{Word}}<br>{{type:Word}}"
    models.add_template(vocab, recognition)
    models.add_template(vocab, production)
    vocab["css"] = ".card { font-family: sans-serif; font-size: 28px; }"
    vocab["sortf"] = 2
    models.add(vocab)
    deck = col.decks.id("Korean::Words")
    for row in ROWS:
        note = col.new_note(models.by_name("Vocab (ko)"))
        for name, text in zip(FIELDS, row, strict=True):
            note[name] = text
        note.tags = ["vocab"]
        col.add_note(note, deck)
    cloze = models.copy(models.by_name("Cloze"))
    cloze["name"] = "Cloze+Source"
    models.add_field(cloze, models.new_field("Source"))
    cloze["tmpls"][0]["afmt"] += "<br>{{Source}}"
    models.update_dict(cloze)
    note = col.new_note(models.by_name("Cloze+Source"))
    note["Text"] = "{{c1::Heparin}} potentiates {{c2::antithrombin III}}"
    note["Source"] = "Goodman &amp; Gilman"
    col.add_note(note, deck)
    col.media.write_data("chaek.mp3", b"ID3 not really")
    return col


def _export(col: Any, path: Path) -> None:
    from anki.collection import DeckIdLimit, ExportAnkiPackageOptions

    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=False)
    did = col.decks.id_for_name("Korean::Words")
    col.export_anki_package(out_path=str(path), options=options, limit=DeckIdLimit(did))


def _state(col: Any) -> tuple[dict[str, dict[str, str]], dict[int, Any]]:
    notes = {col.get_note(n).guid: dict(col.get_note(n).items()) for n in col.find_notes("")}
    types = {
        m["id"]: (m["name"], m["css"], m["sortf"], [(t["qfmt"], t["afmt"]) for t in m["tmpls"]])
        for m in col.models.all()
    }
    return notes, types


def test_any_note_type_comes_in_and_round_trips(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    col = _collection_with_own_note_types(tmp_path / "learner.anki2")
    reviewed = col.find_cards("")[0]
    answer_good(col, reviewed)
    history = col.db.scalar("SELECT count() FROM revlog")
    _export(col, tmp_path / "words.apkg")
    project = tmp_path / "project"
    (project / "cards").mkdir(parents=True)
    (project / "media").mkdir()
    monkeypatch.chdir(project)

    result = cli("import", tmp_path / "words.apkg")
    assert result.code == 0, result.err
    assert "Vocab (ko): 4 notes -> notes of a note type of the deck's own ('vocab-ko')" in (
        result.out
    )
    card_file = project / "cards" / "korean-words.yaml"
    document = yaml.safe_load(card_file.read_text(encoding="utf-8"))
    vocab = document["note_types"]["vocab-ko"]
    assert vocab["fields"] == FIELDS and vocab["sort_field"] == "Meaning"
    assert [c["name"] for c in vocab["cards"]] == ["Recognition", "Production"]
    assert vocab["anki_id"] == col.models.by_name("Vocab (ko)")["id"]
    apple = next(n for n in document["notes"] if n.get("fields", {}).get("Meaning") == "apple")
    assert apple["type"] == "vocab-ko" and apple["fields"]["Word"] == "사과"
    assert (project / "media" / "chaek.mp3").is_file()

    assert cli("check").code == 0
    built = cli("build", "--no-preview")
    assert built.code == 0, built.err
    before = _state(col)
    log = import_package(col, project / "output" / "korean-words.apkg", merge_notetypes=False)
    assert not log.new and not log.updated and not log.conflicting  # type: ignore[attr-defined]
    assert _state(col) == before  # every field, template and CSS identical
    assert col.db.scalar("SELECT count() FROM revlog") == history
    assert col.get_card(reviewed).reps == 1
    col.close()


def test_a_field_markdown_cannot_hold_is_kept_raw(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A field comes in as Markdown only when it builds back to Anki's HTML exactly:
    `<b>` would come back as `<strong>`, so the Example field is kept as Anki has it."""
    col = _collection_with_own_note_types(tmp_path / "learner.anki2")
    _export(col, tmp_path / "words.apkg")
    col.close()
    monkeypatch.chdir(tmp_path)
    assert cli("import", tmp_path / "words.apkg").code == 0
    document = yaml.safe_load((tmp_path / "cards" / "korean-words.yaml").read_text("utf-8"))
    vocab = document["note_types"]["vocab-ko"]
    assert vocab["raw"] == ["Example"]
    apple = next(n for n in document["notes"] if n.get("fields", {}).get("Meaning") == "apple")
    assert apple["fields"]["Example"] == "사과가 <b>맛있어요</b>."
    assert document["note_types"]["cloze-source"]["kind"] == "cloze"


def _whole_collection(col: Any, path: Path) -> None:
    from anki.collection import ExportAnkiPackageOptions

    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=False)
    col.export_anki_package(out_path=str(path), options=options, limit=None)


def test_a_note_type_named_as_one_of_deckbuilders_gets_another_key(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A collection whose stock Basic is renamed 'Basique' and that has another Basic-shaped
    note type named 'Basic' (Redclem/Anki-Union's card_types.apkg, and two others): the
    second is declared, and was given the key 'basic', which check refuses as one of
    deckbuilder's own ("'basic' is the name of one of deckbuilder's own note types")."""
    from anki.collection import Collection

    col = Collection(str(tmp_path / "c.anki2"))
    stock = col.models.by_name("Basic")
    assert stock is not None
    copy = col.models.copy(stock)
    stock["name"] = "Basique"
    col.models.update_dict(stock)
    copy["name"] = "Basic"
    col.models.update_dict(copy)
    deck = col.decks.id("Words")
    assert deck is not None
    for model, front in ((stock, "un"), (stock, "deux"), (copy, "one")):
        note = col.new_note(model)
        note["Front"], note["Back"] = front, "x"
        col.add_note(note, deck)
    _whole_collection(col, tmp_path / "words.apkg")
    col.close()
    monkeypatch.chdir(tmp_path)

    result = cli("import", "words.apkg")
    assert result.code == 0, result.err
    assert "Basic: 1 note -> notes of a note type of the deck's own ('basic-2')" in result.out
    assert cli("check").code == 0


def test_a_note_type_in_several_decks_is_written_once_to_note_types(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Notes of one note type in two top-level decks: each card file declared it, and
    check refused the second ("Anki would take them for one"). The note type is written
    once, to note-types/<key>.yaml, which both card files name; the built decks change
    nothing in the collection they came from."""

    col = _collection_with_own_note_types(tmp_path / "learner.anki2")
    note = col.new_note(col.models.by_name("Vocab (ko)"))
    note["Word"], note["Meaning"] = "밥", "rice"
    col.add_note(note, col.decks.id("Food"))
    _whole_collection(col, tmp_path / "all.apkg")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)

    result = cli("import", tmp_path / "all.apkg")
    assert result.code == 0, result.err
    assert "wrote note-types/vocab-ko.yaml" in result.out
    shared = yaml.safe_load((project / "note-types" / "vocab-ko.yaml").read_text("utf-8"))
    assert (
        shared["fields"] == FIELDS and shared["anki_id"] == col.models.by_name("Vocab (ko)")["id"]
    )
    for name in ("food.yaml", "korean-words.yaml"):
        document = yaml.safe_load((project / "cards" / name).read_text(encoding="utf-8"))
        assert "vocab-ko" not in document.get("note_types", {})
    assert cli("check").code == 0
    assert cli("build", "--no-preview").code == 0
    before = _state(col)
    for package in sorted((project / "output").glob("*.apkg")):
        log = import_package(col, package, merge_notetypes=False)
        assert not log.new and not log.updated and not log.conflicting  # type: ignore[attr-defined]
    assert _state(col) == before
    col.close()


def test_a_picture_missing_from_the_package_in_a_raw_field_keeps_its_note(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw field (HTML Markdown cannot hold) naming a picture the package lacks, as in
    candytale55/ANKI-VOCABULARY's PT-Comida-01.apkg: the note was left out ("media file
    '_en_corn.JPG' not found"), since only Markdown was searched for the media to stand
    in for. It comes in, with the warning any missing file gets."""
    col = _collection_with_own_note_types(tmp_path / "learner.anki2")
    note = col.new_note(col.models.by_name("Vocab (ko)"))
    note["Word"], note["Meaning"] = "옥수수", "corn"
    note["Example"] = '<img src="_en_corn.JPG" style="width: 50%">'
    col.add_note(note, col.decks.id("Korean::Words"))
    _export(col, tmp_path / "words.apkg")
    col.close()
    monkeypatch.chdir(tmp_path)

    result = cli("import", "words.apkg")
    assert result.code == 0, result.err
    assert "media file '_en_corn.JPG' is in neither the source nor media/" in result.err
    assert "skipped" not in result.err
    document = yaml.safe_load((tmp_path / "cards" / "korean-words.yaml").read_text("utf-8"))
    assert document["missing_media"] == ["_en_corn.JPG"]
    assert any(n.get("fields", {}).get("Meaning") == "corn" for n in document["notes"])
    assert cli("check").code == 0


def _cards(col: Any) -> dict[tuple[str, int], tuple[str, str]]:
    cards = (col.get_card(cid) for cid in col.find_cards(""))
    return {(card.note().guid, card.ord): (card.question(), card.answer()) for card in cards}


def test_a_stock_shaped_note_type_asking_another_field_first_is_declared(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two fields and one card, as Anki's Basic and Cloze have, but the front asks the
    second field: a cloze type whose deletions are in its second field after a Context,
    and a type that asks a Meaning for its Word. They were read as cloze and basic notes,
    whose text and front are the first field, so their notes were left out ("cloze text
    has no deletion", "'front' is empty") though Anki makes their cards. They come in on
    declarations of their own, and build the cards Anki has."""
    from anki.collection import Collection

    col = Collection(str(tmp_path / "learner.anki2"))
    models = col.models
    for name, fields, front, cloze in (
        ("Context cloze", ("Context", "Text"), "{{Context}}<br>{{cloze:Text}}", True),
        ("Meaning first", ("Word", "Meaning"), "{{Meaning}}", False),
    ):
        model = models.new(name)
        model["type"] = 1 if cloze else 0
        for field in fields:
            models.add_field(model, models.new_field(field))
        template = models.new_template("Card 1")
        template["qfmt"] = front
        template["afmt"] = "{{cloze:Text}}" if cloze else "{{FrontSide}}<hr id=answer>{{Word}}"
        models.add_template(model, template)
        models.add(model)
    deck = col.decks.id("Words")
    for name, values in (
        ("Context cloze", {"Context": "Korea", "Text": "Its capital is {{c2::Seoul}}."}),
        ("Meaning first", {"Word": "", "Meaning": "a word not found yet"}),
        ("Meaning first", {"Word": "사과", "Meaning": "apple"}),
    ):
        note = col.new_note(models.by_name(name))
        for field, text in values.items():
            note[field] = text
        col.add_note(note, deck)
    cards = _cards(col)
    _whole_collection(col, tmp_path / "words.apkg")
    col.close()
    monkeypatch.chdir(tmp_path)

    result = cli("import", "words.apkg")
    assert result.code == 0, result.err
    assert "skipped" not in result.err + result.out
    assert "Context cloze: 1 note -> notes of a note type of the deck's own" in result.out
    assert "Meaning first: 2 notes -> notes of a note type of the deck's own" in result.out
    assert cli("build", "--no-preview").code == 0
    fresh = Collection(str(tmp_path / "fresh.anki2"))
    import_package(fresh, tmp_path / "output" / "words.apkg")
    assert _cards(fresh) == cards
    fresh.close()
