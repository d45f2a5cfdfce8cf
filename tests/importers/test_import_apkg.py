"""Reading Anki packages: the current (zstd, schema 18) and legacy layouts and a
collection package give the same notes; note types deckbuilder cannot build are counted
in the report, never dropped silently; a bad package writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.anki.package_reader import read_package
from deckbuilder.importers.anki_package import package_notes
from deckbuilder.importers.base import Tally
from deckbuilder.model import BasicNote
from tests.conftest import Run, import_package

pytestmark = pytest.mark.anki


def _collection_with(tmp_path: Path) -> tuple[object, int]:
    from anki.collection import Collection

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    did = col.decks.id("Verbs")
    for type_name, fields in [
        ("Basic", ["ser", "to be"]),
        ("Basic (optional reversed card)", ["ir", "to go", "y"]),
        ("Basic (optional reversed card)", ["ver", "to see", ""]),
    ]:
        note = col.new_note(col.models.by_name(type_name))  # type: ignore[arg-type]
        for i, text in enumerate(fields):
            note.fields[i] = text
        col.add_note(note, did)
    return col, did


def _export(col: object, did: int, path: Path, legacy: bool) -> Path:
    from anki.collection import DeckIdLimit, ExportAnkiPackageOptions

    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=legacy)
    col.export_anki_package(out_path=str(path), options=options, limit=DeckIdLimit(deck_id=did))  # type: ignore[attr-defined]
    return path


def test_current_legacy_and_collection_packages_read_alike(tmp_path: Path) -> None:
    col, did = _collection_with(tmp_path)
    current = _export(col, did, tmp_path / "current.apkg", legacy=False)
    legacy = _export(col, did, tmp_path / "legacy.apkg", legacy=True)
    colpkg = tmp_path / "all.colpkg"
    col.export_collection_package(str(colpkg), True, False)  # type: ignore[attr-defined]
    read = [read_package(path) for path in (current, legacy, colpkg)]
    assert read[0].notes == read[1].notes == read[2].notes
    assert [n.fields for n in read[0].notes] == [
        ("ser", "to be"),
        ("ir", "to go", "y"),
        ("ver", "to see", ""),
    ]
    types = [
        {k: v for k, v in r.note_types.items() if k in {n.type_id for n in r.notes}} for r in read
    ]
    assert types[0] == types[1] == types[2]


def test_optional_reversed_notes_are_imported_with_their_add_reverse_field(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    col, did = _collection_with(tmp_path)
    package = _export(col, did, tmp_path / "verbs.apkg", legacy=False)
    col.close()  # type: ignore[attr-defined]
    result = package_notes(read_package(package), package)
    assert result.report == [
        Tally("Basic (optional reversed card)", 2, "basic (optional reversed card) notes"),
        Tally("Basic", 1, "basic notes"),
    ]
    by_front = {n.front: n for n in result.notes if isinstance(n, BasicNote)}
    assert by_front["ir"].add_reverse == "y" and by_front["ver"].add_reverse == ""
    assert by_front["ser"].add_reverse is None
    monkeypatch.chdir(tmp_path)
    run = cli("import", package)
    assert run.code == 0, run.err
    assert "3 notes imported" in run.out and "not imported" not in run.out


def _media_collection(tmp_path: Path) -> Path:
    """A deck whose fields hold what the card format reads differently from Anki: a
    percent-encoded picture name, a list, a style attribute, and a typed-answer note."""
    from anki.collection import Collection

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    picture = tmp_path / "café (1).png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(16))
    assert col.media.add_file(str(picture)) == "café (1).png"
    did = col.decks.id("Media")
    for type_name, fields in [
        # Anki's editor writes a picture's name percent-encoded; the export holds the
        # file when some field names it as it is.
        ("Basic", ['<img src="caf%C3%A9%20(1).png">', "a picture"]),
        ("Basic", ['<img src="café (1).png">', "the same picture"]),
        ("Basic", ["<ul><li>one</li><li>two</li></ul>", "list"]),
        ("Basic", ["colour", '<span style="color: rgb(255, 0, 0);">red</span>']),
        ("Basic (type in the answer)", ["Capital of Italy", "Rome"]),
    ]:
        note = col.new_note(col.models.by_name(type_name))  # type: ignore[arg-type]
        note.fields[0], note.fields[1] = fields
        col.add_note(note, did)
    path = _export(col, did, tmp_path / "media.apkg", legacy=False)
    col.close()
    return path


def test_field_html_becomes_card_file_text_or_a_plain_warning(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _media_collection(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "media").mkdir()
    run = cli("import", package, "--out", "cards/media.yaml")
    assert run.code == 0, run.err
    text = (tmp_path / "cards" / "media.yaml").read_text(encoding="utf-8")
    assert "# The notes' ids and guids identify them in Anki" in text
    assert text.count("front: '![](<café (1).png>)'") == 2
    assert (tmp_path / "media" / "café (1).png").is_file()
    assert "    front: |-\n      - one\n      - two\n" in text  # builds <ul><li>... back
    assert "style=" not in text  # build would drop it: not kept where nobody sees it go
    assert "back: <span>red</span>" in text
    assert (
        'its back has markup the card format cannot hold: style="color: rgb(255, 0, 0);"' in run.err
    )
    assert "once you change this note in the card file (even only its tags)" in run.err
    assert run.err.count("warning") == 1  # the picture and the list come back exactly
    # A type-in note comes in on a note type of the deck's own (issue 41).
    assert (
        "Basic (type in the answer): 1 note -> notes of a note type of the deck's own "
        "('basic-type-in-the-answer')" in run.out
    )
    assert "type: basic-type-in-the-answer" in text


def test_not_a_package_writes_nothing(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.apkg").write_bytes(b"not a zip")
    run = cli("import", "x.apkg")
    assert run.code == 1 and "x.apkg: cannot read the package" in run.err
    assert not (tmp_path / "cards").exists()


def test_source_package_is_never_written(tmp_path: Path) -> None:
    col, did = _collection_with(tmp_path)
    package = _export(col, did, tmp_path / "verbs.apkg", legacy=False)
    before = package.read_bytes()
    read_package(package)
    assert package.read_bytes() == before


def test_nothing_is_written_through_a_media_link_out_of_the_project(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared project whose media/ is a link to a folder elsewhere: importing a package
    with pictures wrote them there (issue "Hostile input, round 3", 2)."""
    package = _media_collection(tmp_path)
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "café (1).png").write_bytes(b"not the package's picture")
    (project / "media").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(project)
    run = cli("import", package, "--out", "cards/media.yaml")
    assert run.code == 1, run.err
    assert run.err.startswith(f"media: a link to '{outside}', outside the project;"), run.err
    assert sorted(p.name for p in outside.iterdir()) == ["café (1).png"]
    assert (outside / "café (1).png").read_bytes() == b"not the package's picture"
    assert not (project / "cards").exists()


def test_no_card_file_is_written_through_a_cards_link_unless_named(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    col, did = _collection_with(tmp_path)
    package = _export(col, did, tmp_path / "verbs.apkg", legacy=False)
    col.close()  # type: ignore[attr-defined]
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "cards").symlink_to(outside, target_is_directory=True)
    (project / "quiz.txt").write_text("1. Two?\nA) 2\nB) 3\nAnswer: A\n", encoding="utf-8")
    monkeypatch.chdir(project)
    for source in (package, Path("quiz.txt")):
        run = cli("import", source)
        assert run.code == 1, run.err
        assert run.err.startswith(f"cards: a link to '{outside}', outside the project;")
        assert list(outside.iterdir()) == []
    # Named on the command line, the same folder is the user's choice.
    run = cli("import", "quiz.txt", "--out", "cards/quiz.yaml")
    assert run.code == 0, run.err
    assert (outside / "quiz.yaml").is_file()


def test_a_collection_package_gives_one_card_file_per_top_level_deck(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole-collection .colpkg went into one card file under the deck with the most
    notes, and --deck renamed it; now each top-level deck is a card file (its subdecks
    inside), --deck chooses one, and built and imported back nothing is new."""
    from anki.collection import Collection

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    for deck, front in [("Verbs", "ser"), ("Verbs::Irregular", "ir"), ("Nouns", "casa")]:
        note = col.new_note(col.models.by_name("Basic"))  # type: ignore[arg-type]
        note.fields[0], note.fields[1] = front, "x"
        col.add_note(note, col.decks.id(deck))
    colpkg = tmp_path / "all.colpkg"
    col.export_collection_package(str(colpkg), True, False)  # closes the collection
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    monkeypatch.chdir(tmp_path)
    run = cli("import", colpkg)
    assert run.code == 0, run.err
    assert "wrote cards/verbs.yaml: 2 notes imported" in run.out
    assert "wrote cards/nouns.yaml: 1 note imported" in run.out
    assert "1 note is in subdecks of 'Verbs' (Verbs::Irregular)" in run.err
    chosen = cli("import", colpkg, "--deck", "Nouns", "--out", "cards/n.yaml")
    assert chosen.code == 0 and "wrote cards/n.yaml: 1 note imported" in chosen.out
    assert cli("build", "cards/verbs.yaml", "cards/nouns.yaml", "--out", "out").code == 0
    for name in ("verbs", "nouns"):
        log = import_package(col, tmp_path / "out" / f"{name}.apkg", merge_notetypes=False)
        assert len(log.new) == 0  # type: ignore[attr-defined]
    col.close()


def test_a_skipped_note_is_named_on_one_line_whatever_its_guid(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GUID is any text to Anki: one holding a line break is written out, so that the
    warning stays one line that names its file."""
    import genanki

    deck = genanki.Deck(2059400110, "Odd")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["", "back"], guid="x\ny"))
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["front", "back"], guid="ok"))
    genanki.Package(deck).write_to_file(str(tmp_path / "odd.apkg"))
    monkeypatch.chdir(tmp_path)
    run = cli("import", "odd.apkg")
    assert run.code == 0, run.err
    (warning,) = [line for line in run.err.splitlines() if "skipped" in line]
    assert warning.startswith("odd.apkg: warning: skipped note 'x\\ny': ")
    assert "1 note imported, 1 skipped" in run.out


def test_a_card_file_written_into_media_never_replaces_a_media_file_of_its_name(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package's sound named 'deck.yaml', imported with --out media/deck.yaml: the card
    file was written over the sound (the note's [sound:] then played the card file)."""
    from anki.collection import Collection

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    did = col.decks.id("Sounds")
    for name in ("deck.yaml", "deck.lock"):
        assert col.media.write_data(name, b"ID3 not yaml") == name
        note = col.new_note(col.models.by_name("Basic"))  # type: ignore[arg-type]
        note.fields[0], note.fields[1] = f"[sound:{name}]", "a sound"
        col.add_note(note, did)
    package = _export(col, did, tmp_path / "sounds.apkg", legacy=False)
    col.close()
    monkeypatch.chdir(tmp_path)
    run = cli("import", package, "--out", "media/deck.yaml")
    assert run.code == 1, run.err
    for what, name in (("card file", "deck.yaml"), ("lock file", "deck.lock")):
        assert (
            f"media/{name}: the {what} and the package's media file '{name}' would both be "
            "written here; write the card file to another folder" in run.err
        ), run.err
    assert not (tmp_path / "media").exists()
    # However the path is written; and with --force over a copy already there.
    for out in (tmp_path / "media" / "deck.yaml", Path("media/../media/deck.yaml")):
        assert "would both be written here" in cli("import", package, "--out", out).err
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "deck.yaml").write_bytes(b"ID3 not yaml")
    run = cli("import", package, "--out", "media/deck.yaml", "--force")
    assert run.code == 1 and "would both be written here" in run.err, run.err
    assert (tmp_path / "media" / "deck.yaml").read_bytes() == b"ID3 not yaml"
    # A card file path that is a link loop is no media file's (nor an internal error).
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "loop.yaml").symlink_to("loop.yaml")
    run = cli("import", package, "--out", "cards/loop.yaml")
    assert run.code == 0, run.err


def test_a_folder_where_a_media_file_goes_is_told_as_such(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder in media/ named like one of the package's media files: the import said
    'Error: --out: media/x.png is a folder; give a file name such as media/x.png/deck.yaml'
    though no --out was given and the path is no card file."""
    package = _media_collection(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "media" / "café (1).png").mkdir(parents=True)
    run = cli("import", package)
    assert run.code == 1, run.err
    assert run.err.splitlines() == [
        "media/café (1).png: is not a file, and the package's media file 'café (1).png' would "
        "be written there; rename or move it, and import again",
        "1 problem found; nothing was written.",
    ]
    assert not (tmp_path / "cards").exists()


def test_a_deck_chosen_from_a_collection_brings_only_the_media_its_notes_use(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """'import all.colpkg --deck Nouns' wrote every media file of the collection into
    media/ (the other decks' pictures, each then an unused-media warning), and a clash
    with a file of another deck refused the import."""
    from anki.collection import Collection

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    for deck, name in [("Verbs", "run.png"), ("Nouns", "house.png")]:
        picture = tmp_path / name
        picture.write_bytes(b"\x89PNG\r\n\x1a\n" + name.encode())
        assert col.media.add_file(str(picture)) == name
        note = col.new_note(col.models.by_name("Basic"))  # type: ignore[arg-type]
        note.fields[0], note.fields[1] = f'<img src="{name}">', deck
        col.add_note(note, col.decks.id(deck))
    colpkg = tmp_path / "all.colpkg"
    col.export_collection_package(str(colpkg), True, True)  # closes the collection
    monkeypatch.chdir(tmp_path)
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "run.png").write_bytes(b"another picture of the author's")
    run = cli("import", colpkg, "--deck", "Nouns", "--out", "cards/nouns.yaml")
    assert run.code == 0, run.err
    assert sorted(p.name for p in (tmp_path / "media").iterdir()) == ["house.png", "run.png"]
    assert (tmp_path / "media" / "run.png").read_bytes() == b"another picture of the author's"
    assert cli("check", "cards/nouns.yaml").code == 0
    # The deck that uses the clashing file is still refused for it.
    verbs = cli("import", colpkg, "--deck", "Verbs", "--out", "cards/verbs.yaml")
    assert verbs.code == 1
    assert "media/run.png: already exists with other contents than the package's" in verbs.err
