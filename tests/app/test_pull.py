"""``deckbuilder pull`` (issue 43): edits made in Anki come back into the card files, with
nothing lost on either side. Checked with the real Anki backend: a deck is built and
imported, edited in Anki (``col.update_note``), exported as Anki's File > Export does (or
read from the collection file itself), pulled, built again and imported into the same
collection, which then changes nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run

CliRun = Callable[..., Run]
pytestmark = pytest.mark.anki

# Built well before the edits: Anki updates a note only for a strictly later time, and an
# edit made in the second of the build would be no later than it.
BUILT = int(time.time()) - 3600

CARD_FILE = """\
# Cells: written by hand, with comments, quoting and blocks of its own.
deck: "Biology::Cells"   # quoted on purpose
id: cells
tags: [bio]
notes:
  - id: powerhouse
    question: "Which organelle makes most of a cell's ATP?"  # the classic
    choices: [Mitochondrion, Ribosome, Nucleus]
    answer: A
    explanation: |
      The mitochondrion.
      It has its own DNA.

  # A cloze note.
  - id: membrane
    text: 'The cell membrane is a {{c1::phospholipid}} bilayer.'
    tags: [membranes]

  - id: nuclei
    type: typed
    question: How many nuclei does a human red blood cell have?
    answer: [none, "0", zero]

  - {id: term, front: Activation, back: A layer's output.}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with one card file, built (at BUILT) and imported into a collection."""
    (tmp_path / "cards").mkdir()
    (tmp_path / "media").mkdir()
    (tmp_path / "cards" / "cells.yaml").write_text(CARD_FILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(BUILT))
    _build()
    with _collection(tmp_path) as col:
        log = _import(col, tmp_path / "output" / "cells.apkg")
        assert len(log.new) == 4
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    return tmp_path


class _collection:
    """The project's Anki collection (anki/collection.anki2), open for the block."""

    def __init__(self, project: Path) -> None:
        self.path = project / "anki" / "collection.anki2"

    def __enter__(self) -> Any:
        from anki.collection import Collection

        self.path.parent.mkdir(exist_ok=True)
        self.col = Collection(str(self.path))
        return self.col

    def __exit__(self, *exc: object) -> None:
        self.col.close()


def _build(*args: str) -> None:
    from deckbuilder.cli import main

    assert main(["-q", "build", "--no-preview", *args]) == 0


def _import(col: Any, package: Path) -> Any:
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    options = ImportAnkiPackageOptions(
        merge_notetypes=False, with_scheduling=False, with_deck_configs=False
    )
    request = ImportAnkiPackageRequest(package_path=str(package.resolve()), options=options)
    return col.import_anki_package(request).log


def _export(
    col: Any, target: Path, deck: str = "Biology::Cells", *, scheduling: bool = True
) -> Path:
    """The deck exported as Anki's File > Export writes it (an .apkg), or the whole
    collection (a .colpkg)."""
    from anki.collection import DeckIdLimit, ExportAnkiPackageOptions

    if target.suffix == ".colpkg":
        col.export_collection_package(str(target.resolve()), True, False)
        return target
    options = ExportAnkiPackageOptions(with_scheduling=scheduling, with_media=True, legacy=False)
    did = col.decks.id_for_name(deck)
    col.export_anki_package(out_path=str(target.resolve()), options=options, limit=DeckIdLimit(did))
    return target


def _notes(col: Any, deck: str = "Biology::Cells") -> dict[str, Any]:
    """The deck's notes in Anki, by the text their first field starts with."""
    found = {}
    for nid in col.find_notes(f'"deck:{deck}"'):
        note = col.get_note(nid)
        found[note.fields[0][:12]] = note
    return found


def _edit_in_anki(col: Any) -> None:
    """Two notes' fields and one note's tags edited, and a note added, in Anki."""
    notes = _notes(col)
    mcq = notes["Which organe"]
    mcq.fields[0] = "Which organelle makes most of a cell's <b>ATP</b>?"
    col.update_note(mcq)
    cloze = notes["The cell mem"]
    cloze.fields[1] = "Also called the plasma membrane."
    col.update_note(cloze)
    typed = notes["How many nuc"]
    typed.tags = [*typed.tags, "hard"]
    col.update_note(typed)
    basic = notes["Activation"]
    added = col.new_note(col.models.get(basic.mid))
    added["Front"] = "Ribosome"
    added["Back"] = "Makes proteins."
    col.add_note(added, col.decks.id_for_name("Biology::Cells"))


PULLED = (
    CARD_FILE.replace(
        '"Which organelle makes most of a cell\'s ATP?"  # the classic',
        "Which organelle makes most of a cell's <b>ATP</b>?  # the classic",
    )
    .replace(
        "    text: 'The cell membrane is a {{c1::phospholipid}} bilayer.'\n",
        "    text: 'The cell membrane is a {{c1::phospholipid}} bilayer.'\n"
        "    extra: Also called the plasma membrane.\n",
    )
    .replace('    answer: [none, "0", zero]\n', '    answer: [none, "0", zero]\n    tags: [hard]\n')
)


def _with_added(text: str, guid: str) -> str:
    from deckbuilder.cardfile.writer import block_value_text

    # Anki's random GUID, quoted as the writer quotes it when YAML needs it ('&...').
    return text + (
        f"\n  - id: ribosome-6a661d\n    guid:{block_value_text(guid, 4)}    type: basic\n"
        "    front: Ribosome\n    back: Makes proteins.\n"
    )


def _added_guid(col: Any) -> str:
    return str(_notes(col)["Ribosome"].guid)


def _rebuild_changes_nothing_in_anki(project: Path) -> None:
    _build()
    with _collection(project) as col:
        log = _import(col, project / "output" / "cells.apkg")
    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 0, 0)


@pytest.mark.parametrize("from_", ["apkg", "apkg without scheduling", "colpkg", "collection"])
def test_edits_made_in_anki_come_back_and_a_build_then_changes_nothing(
    project: Path, cli: CliRun, from_: str
) -> None:
    """Requirement (issue 43, scenario): exactly the edited notes change in the card file
    (their text in import's style), the added one comes in with its GUID, every other
    byte stays; a build imported into the same collection gives 0 new, 0 updated."""
    with _collection(project) as col:
        _edit_in_anki(col)
        guid = _added_guid(col)
        if from_ != "collection":
            suffix = ".colpkg" if from_ == "colpkg" else ".apkg"
            source = _export(col, project / f"Cells{suffix}", scheduling="without" not in from_)
    if from_ == "collection":
        source = project / "anki" / "collection.anki2"
    before = source.read_bytes()
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert "updated from Anki: powerhouse, membrane, nuclei" in run.out
    assert "added from Anki: ribosome-6a661d" in run.out
    assert (project / "cards" / "cells.yaml").read_text(encoding="utf-8") == _with_added(
        PULLED, guid
    )
    assert source.read_bytes() == before  # SOURCE is never written
    assert cli("check").code == 0
    _rebuild_changes_nothing_in_anki(project)
    again = cli("pull", source)
    assert again.code == 0 and "0 updated, 0 added, 0 conflicts" in again.out


def test_a_note_edited_on_both_sides_is_a_conflict_shown_and_left_alone(
    project: Path, cli: CliRun
) -> None:
    with _collection(project) as col:
        _edit_in_anki(col)
        source = _export(col, project / "Cells.apkg")
    card = project / "cards" / "cells.yaml"
    mine = CARD_FILE.replace("makes most of a cell's ATP", "makes the most ATP")
    card.write_text(mine, encoding="utf-8")
    lock = (project / "cards" / "cells.lock").read_bytes()
    run = cli("pull", source)
    assert run.code == 1
    assert (
        "cards/cells.yaml:6: note 'powerhouse': conflict: edited in the card file and in Anki "
        "since the last build"
    ) in run.err
    assert "-  question: Which organelle makes the most ATP?" in run.out
    assert "+  question: Which organelle makes most of a cell's <b>ATP</b>?" in run.out
    assert "1 conflict; nothing was written for them" in run.err
    text = card.read_text(encoding="utf-8")
    assert "makes the most ATP" in text and "<b>ATP</b>" not in text  # nothing for it
    assert "extra: Also called the plasma membrane." in text  # the others came in
    assert lock != (project / "cards" / "cells.lock").read_bytes()
    # Once more: still the conflict, and nothing else to do.
    assert cli("pull", source).code == 1


def test_prefer_anki_settles_a_conflict_with_anki_s_text(project: Path, cli: CliRun) -> None:
    with _collection(project) as col:
        _edit_in_anki(col)
        source = _export(col, project / "Cells.apkg")
    card = project / "cards" / "cells.yaml"
    card.write_text(CARD_FILE.replace("makes most of a cell's ATP", "makes the most ATP"))
    run = cli("pull", source, "--prefer", "anki")
    assert run.code == 0, run.err
    assert "<b>ATP</b>" in card.read_text(encoding="utf-8")
    _rebuild_changes_nothing_in_anki(project)


def test_prefer_cards_settles_a_conflict_for_the_card_file(project: Path, cli: CliRun) -> None:
    with _collection(project) as col:
        _edit_in_anki(col)
        source = _export(col, project / "Cells.apkg")
    card = project / "cards" / "cells.yaml"
    card.write_text(CARD_FILE.replace("makes most of a cell's ATP", "makes the most ATP"))
    run = cli("pull", source, "--prefer", "cards")
    assert run.code == 0, run.err
    assert "conflicts settled for the card file: powerhouse" in run.out
    assert "makes the most ATP" in card.read_text(encoding="utf-8")
    _build()
    with _collection(project) as col:
        log = _import(col, project / "output" / "cells.apkg")
        assert len(log.updated) == 1  # the card file's text replaces Anki's
        assert "makes the most ATP" in _notes(col)["Which organe"].fields[0]


def test_a_note_added_to_the_deck_renamed_in_anki_is_named(project: Path, cli: CliRun) -> None:
    """A learner renamed the deck in Anki and added a note to it: the note is in no deck of
    the card file's name, and was left out without a word while the others came in."""
    with _collection(project) as col:
        _edit_in_anki(col)
        deck = col.decks.get(col.decks.id_for_name("Biology::Cells"))
        deck["name"] = "My cells"
        col.decks.save(deck)
        nid = _notes(col, "My cells")["Ribosome"].id
        source = _export(col, project / "Cells.apkg", "My cells")
    run = cli("pull", source)
    assert run.code == 1
    assert "updated from Anki: powerhouse, membrane, nuclei" in run.out
    assert (
        f"cards/cells.yaml: Anki's note {nid}: not pulled: added in Anki to deck 'My cells', "
        "which holds this deck's notes under another name than 'Biology::Cells' (renamed in "
        "Anki?): rename it back there and pull again, or add the note to the card file yourself"
    ) in run.err


_DELETED = "deleted in Anki or moved out of the exported deck"


def test_a_note_moved_to_another_deck_is_not_called_deleted(project: Path, cli: CliRun) -> None:
    """A note whose cards were moved to another deck in Anki is not in an export of its
    deck: the pull called it deleted in Anki, and --delete took it out of the card file.
    Pulled from the collection, it is found where it is."""
    with _collection(project) as col:
        note = _notes(col)["Activation"]
        note.fields[1] = "A layer's output, moved."
        col.update_note(note)
        col.set_deck([card.id for card in note.cards()], col.decks.id("Elsewhere"))
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert f"{_DELETED} (kept here; --delete removes them): term (nid:{note.id})" in run.out
    run = cli("pull", project / "anki" / "collection.anki2")
    assert run.code == 0, run.err
    assert "updated from Anki: term" in run.out


def test_deleted_in_anki_is_reported_and_removed_only_with_delete(
    project: Path, cli: CliRun
) -> None:
    with _collection(project) as col:
        nid = _notes(col)["Activation"].id
        col.remove_notes([nid])
        source = _export(col, project / "Cells.apkg")
    card = project / "cards" / "cells.yaml"
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert f"{_DELETED} (kept here; --delete removes them): term (nid:{nid})" in run.out
    assert card.read_text(encoding="utf-8") == CARD_FILE
    run = cli("pull", source, "--delete")
    assert run.code == 0, run.err
    assert f"{_DELETED}, removed here: term (nid:{nid})" in run.out
    assert card.read_text(encoding="utf-8") == CARD_FILE.replace(
        "\n  - {id: term, front: Activation, back: A layer's output.}\n", ""
    )
    assert "note term " not in (project / "cards" / "cells.lock").read_text(encoding="utf-8")
    built = cli("build", "--no-preview")
    assert built.code == 0 and "0 removed" in built.out  # not listed for deletion again


def test_a_note_removed_from_the_card_file_and_left_in_anki_is_not_added_again(
    project: Path, cli: CliRun
) -> None:
    card = project / "cards" / "cells.yaml"
    removed = CARD_FILE.replace(
        "\n  - {id: term, front: Activation, back: A layer's output.}\n", ""
    )
    card.write_text(removed, encoding="utf-8")
    built = cli("build", "--no-preview")
    assert "1 removed" in built.out
    with _collection(project) as col:
        nid = _notes(col)["Activation"].id
        _edit_in_anki(col)  # the note added there is new; the one removed here is not
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert f"{_STALE}: nid:{nid}" in run.out
    assert "added from Anki: ribosome-6a661d" in run.out
    assert "Activation" not in card.read_text(encoding="utf-8")


_STALE = (
    "not in the card file, and older than its last build: removed from it before (delete "
    "them in Anki), or added in Anki before that build (add them to the card file yourself)"
)


def test_a_note_added_in_anki_before_a_later_build_is_not_called_removed(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note added in Anki, then a build that adds a note (no pull between): the note is
    older than that build, as a note removed from the card file is. The pull called it
    removed from the card file and told the learner to delete it in Anki."""
    with _collection(project) as col:
        _edit_in_anki(col)
        nid = _notes(col)["Ribosome"].id
    card = project / "cards" / "cells.yaml"
    card.write_text(
        CARD_FILE + "  - {id: lysosome, front: Lysosome, back: Digests.}\n", encoding="utf-8"
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(time.time()) + 10))
    _build()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    with _collection(project) as col:
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert f"{_STALE}: nid:{nid}" in run.out
    assert "delete them there" not in run.out


def test_dry_run_prints_the_diff_and_writes_nothing(project: Path, cli: CliRun) -> None:
    with _collection(project) as col:
        _edit_in_anki(col)
        source = _export(col, project / "Cells.apkg")
    files = {p: p.read_bytes() for p in (project / "cards").iterdir()}
    run = cli("pull", source, "--dry-run")
    assert run.code == 0, run.err
    assert "+    extra: Also called the plasma membrane.\n" in run.out
    assert "+  - id: ribosome-6a661d\n" in run.out
    assert "dry run: nothing was written" in run.out
    assert {p: p.read_bytes() for p in (project / "cards").iterdir()} == files


def test_a_lock_file_from_before_pull_asks_for_a_build(project: Path, cli: CliRun) -> None:
    lock = project / "cards" / "cells.lock"
    old = [
        " ".join(line.split()[:5]) if line.startswith("note ") else line
        for line in lock.read_text(encoding="utf-8").splitlines()
    ]
    lock.write_text("\n".join(old).replace("version 2", "version 1") + "\n", encoding="utf-8")
    with _collection(project) as col:
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 1
    assert run.err.startswith(
        "cards/cells.lock: this lock file was written before deckbuilder could pull"
    )


def test_a_collection_anki_has_open_is_refused_in_one_line(project: Path, cli: CliRun) -> None:
    collection = project / "anki" / "collection.anki2"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from anki.collection import Collection; "
            "c = Collection(sys.argv[1]); c.db.scalar('select 1'); print('open', flush=True); "
            "sys.stdin.read(); c.close()",
            str(collection),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        before = {p.name: p.read_bytes() for p in collection.parent.iterdir() if p.is_file()}
        run = cli("pull", collection)
    finally:
        holder.communicate("")
    assert run.code == 1
    assert run.err.splitlines() == [
        f"{collection}: Anki has this collection open (it is locked): close Anki, or export "
        "the deck (File > Export, .apkg), and pull again",
        "1 problem found; nothing was written.",
    ]
    assert before  # what Anki had there was left as it was
    assert (project / "cards" / "cells.yaml").read_text(encoding="utf-8") == CARD_FILE


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not a package", "not an Anki package (.apkg, .colpkg) or collection"),
        (b"PK\x03\x04broken", "not an Anki package (.apkg, .colpkg) or collection"),
    ],
)
def test_what_is_no_package_is_refused_in_one_line(
    project: Path, cli: CliRun, content: bytes, message: str
) -> None:
    (project / "bad.apkg").write_bytes(content)
    run = cli("pull", "bad.apkg")
    assert run.code == 1 and run.err.startswith(f"bad.apkg: {message}"), run.err
    assert (project / "cards" / "cells.yaml").read_text(encoding="utf-8") == CARD_FILE


def test_a_source_that_is_a_folder_or_a_pipe_is_refused(project: Path, cli: CliRun) -> None:
    import os

    os.mkfifo(project / "pipe.apkg")
    for name, kind in (("anki", "a folder"), ("pipe.apkg", "a named pipe (FIFO)")):
        run = cli("pull", name)
        assert run.code == 1 and run.err.startswith(f"{name}: is {kind}, not a file"), run.err


def test_a_package_bomb_is_refused_before_it_is_unpacked(project: Path, cli: CliRun) -> None:
    from tests.anki.anki_files import package, time_limit, zstd_zeros

    package(project / "bomb.colpkg", None, files={"collection.anki21b": zstd_zeros(2**30)})
    with time_limit(60):
        run = cli("pull", "bomb.colpkg")
    assert run.code == 1 and run.err.startswith("bomb.colpkg: the package unpacks to more than")
    assert (project / "cards" / "cells.yaml").read_text(encoding="utf-8") == CARD_FILE


def test_nothing_is_written_through_a_media_link_out_of_the_project(
    project: Path, cli: CliRun, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    shutil.rmtree(project / "media")
    (project / "media").symlink_to(outside, target_is_directory=True)
    with _collection(project) as col:
        name = col.media.write_data("cell.png", b"\x89PNG\r\n\x1a\n not a real picture")
        note = _notes(col)["Activation"]
        note.fields[1] = f'A layer\'s output. <img src="{name}">'
        col.update_note(note)
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 1
    assert f"a link to '{outside}', outside the project; nothing is written through it" in run.err
    assert list(outside.iterdir()) == []
    assert (project / "cards" / "cells.yaml").read_text(encoding="utf-8") == CARD_FILE


def test_a_note_with_another_deck_s_guid_is_refused(project: Path, cli: CliRun) -> None:
    """A note in this deck's Anki deck that is another deck's note (by its GUID), when
    that deck is not pulled: nothing is written."""
    other = project / "cards" / "other.yaml"
    other.write_text("deck: Other\nnotes:\n  - {id: x, front: a, back: b}\n", encoding="utf-8")
    _build()
    with _collection(project) as col:
        _import(col, project / "output" / "other.apkg")
        note = _notes(col, "Other")["a"]
        col.set_deck(note.card_ids(), col.decks.id_for_name("Biology::Cells"))
        _edit_in_anki(col)
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source, "cards/cells.yaml")
    assert run.code == 1
    assert (
        "is note 'x' of deck 'other' (its GUID): pull that deck's card file with this one"
        in run.err
    )
    assert (project / "cards" / "cells.yaml").read_text(encoding="utf-8") == CARD_FILE
    # Pulled with its own card file, it is that deck's note, wherever Anki keeps it.
    assert cli("pull", source).code == 0


def test_two_notes_with_one_guid_are_refused(project: Path, cli: CliRun) -> None:
    import sqlite3

    with _collection(project) as col:
        first, second = sorted(col.find_notes('"deck:Biology::Cells"'))[:2]
        guid = col.get_note(first).guid
    collection = project / "anki" / "collection.anki2"
    copy = project / "copy.anki2"
    shutil.copyfile(collection, copy)
    with sqlite3.connect(copy) as db:
        db.execute("DROP INDEX IF EXISTS ix_notes_guid")
        db.execute("UPDATE notes SET guid = ? WHERE id = ?", (guid, second))
    run = cli("pull", copy)
    assert run.code == 1 and "have the GUID" in run.err and len(run.err.splitlines()) == 2


def test_a_picture_added_in_anki_comes_with_its_file(project: Path, cli: CliRun) -> None:
    with _collection(project) as col:
        name = col.media.write_data("cell.png", b"\x89PNG\r\n\x1a\n not a real picture")
        note = _notes(col)["Activation"]
        note.fields[1] = f'A layer\'s output. <img src="{name}">'
        col.update_note(note)
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert (project / "media" / name).read_bytes().startswith(b"\x89PNG")
    assert f"![]({name})" in (project / "cards" / "cells.yaml").read_text(encoding="utf-8")
    assert cli("check").code == 0
    _rebuild_changes_nothing_in_anki(project)


def test_a_picture_whose_name_has_a_space_comes_with_its_file(project: Path, cli: CliRun) -> None:
    """Anki keeps a pasted file's name, spaces and all, in a quoted src: the name was cut
    at the space ('my'), and the note refused for a media file nobody has."""
    with _collection(project) as col:
        name = col.media.write_data("my cell.png", b"\x89PNG\r\n\x1a\n not a real picture")
        assert name == "my cell.png"
        note = _notes(col)["Activation"]
        note.fields[1] = f'A layer\'s output. <img src="{name}">'
        col.update_note(note)
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert (project / "media" / name).read_bytes().startswith(b"\x89PNG")
    assert "![](<my cell.png>)" in (project / "cards" / "cells.yaml").read_text(encoding="utf-8")
    assert cli("check").code == 0
    _rebuild_changes_nothing_in_anki(project)


def test_build_against_lists_what_it_would_overwrite(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requirement (issue 43, item 5): build --against compares first, and writes nothing
    while a note's copy in Anki changed and this build would overwrite it."""
    # A build some minutes after the edits (in their second, it would leave them).
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(time.time()) + 300))
    with _collection(project) as col:
        _edit_in_anki(col)
        source = _export(col, project / "Cells.apkg")
    card = project / "cards" / "cells.yaml"
    card.write_text(CARD_FILE.replace("makes most of a cell's ATP", "makes the most ATP"))
    package = (project / "output" / "cells.apkg").read_bytes()
    run = cli("build", "--no-preview", "--against", source)
    assert run.code == 1
    assert "note 'powerhouse': edited in Anki since the last build" in run.err
    assert (project / "output" / "cells.apkg").read_bytes() == package
    # The notes edited in Anki alone are kept there by this build: not listed.
    assert "membrane" not in run.err and "nuclei" not in run.err
    assert cli("pull", source, "--prefer", "anki").code == 0
    assert cli("build", "--no-preview", "--against", source).code == 0


@pytest.mark.parametrize("command", [("build", "--no-preview", "--against"), ("pull",)])
def test_a_source_that_is_no_file_says_what_to_give(
    project: Path, cli: CliRun, command: tuple[str, ...]
) -> None:
    """'build --against HEAD~1' (a git revision, as for 'git diff') said "HEAD~1: cannot be
    read: No such file or directory", without a word of what it takes."""
    run = cli(*command, "HEAD~1")
    assert run.code == 1
    assert run.err.startswith(
        "HEAD~1: no such file: give what Anki has, an exported package (.apkg, .colpkg) or "
        "its collection (collection.anki2)\n"
    )


def test_build_against_a_card_file_moved_to_another_folder_still_compares(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A card file moved to a subfolder builds from the lock file it left behind; build
    --against read only the lock file beside the card file, found none, and overwrote
    the note edited in Anki without a word."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(time.time()) + 300))
    with _collection(project) as col:
        _edit_in_anki(col)
        source = _export(col, project / "Cells.apkg")
    (project / "cards" / "topics").mkdir()
    card = project / "cards" / "topics" / "cells.yaml"
    (project / "cards" / "cells.yaml").rename(card)
    card.write_text(CARD_FILE.replace("makes most of a cell's ATP", "makes the most ATP"))
    package = (project / "output" / "cells.apkg").read_bytes()
    run = cli("build", "--no-preview", "--against", source)
    assert run.code == 1
    assert (
        "cards/topics/cells.yaml:6: note 'powerhouse': edited in Anki since the last build"
        in run.err
    )
    assert (project / "output" / "cells.apkg").read_bytes() == package
    assert (project / "cards" / "cells.lock").exists()


# -- a bilingual deck ----------------------------------------------------------------------


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    from tests.conftest import ROOT

    shutil.copytree(ROOT / "cards", tmp_path / "cards")
    shutil.copytree(ROOT / "media", tmp_path / "media")
    monkeypatch.chdir(tmp_path)
    _build("--lang", "en")  # the committed lock files: built long ago
    with _collection(tmp_path) as col:
        assert len(_import(col, tmp_path / "output" / "gradient-checkpointing.en.apkg").new) == 14
    yield tmp_path


def test_a_bilingual_deck_takes_the_package_s_language_only(bundled: Path, cli: CliRun) -> None:
    deck = "ML Systems::Gradient Checkpointing"
    with _collection(bundled) as col:
        (note,) = [
            col.get_note(nid)
            for nid in col.find_notes(f'"deck:{deck}"')
            if "mainly trade" in col.get_note(nid).fields[0]
        ]
        note.fields[0] = note.fields[0].replace("mainly trade", "trade, above all,")
        col.update_note(note)
        source = _export(col, bundled / "en.apkg", deck)
    card = bundled / "cards" / "gradient-checkpointing.yaml"
    before = card.read_text(encoding="utf-8")
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert before.replace(
        "en: What does gradient checkpointing mainly trade for lower memory use?",
        "en: What does gradient checkpointing trade, above all, for lower memory use?",
    ) == card.read_text(encoding="utf-8")
    assert "그래디언트" not in run.out  # the Korean deck was not exported: not shown
    _build("--lang", "en")
    with _collection(bundled) as col:
        log = _import(col, bundled / "output" / "gradient-checkpointing.en.apkg")
    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 0, 0)


@pytest.mark.parametrize(
    "typed", ["Also for the optimizer.", '<div lang="en">Also for the optimizer.</div>']
)
def test_a_field_left_empty_and_filled_in_one_language_s_deck_comes_in(
    bundled: Path, cli: CliRun, typed: str
) -> None:
    """The build wraps no empty field in its language's <div lang>, so a text typed in
    Anki into an empty field comes without one: it was refused as markup "edited as HTML"
    (the very edit pull is for), and now comes in as that language's text."""
    deck = "ML Systems::Gradient Checkpointing"
    with _collection(bundled) as col:
        for nid in col.find_notes(f'"deck:{deck}"'):
            note = col.get_note(nid)
            if "Activations are stored" in note.fields[0]:
                assert note.fields[1] == ""
                note.fields[1] = typed  # as typed, or pasted with a wrapper
                col.update_note(note)
        source = _export(col, bundled / "en.apkg", deck)
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert "updated from Anki: cloze-why-store" in run.out
    assert "warning" not in run.err
    text = (bundled / "cards" / "gradient-checkpointing.yaml").read_text(encoding="utf-8")
    assert (
        "{{c2::gradients}}.\n    extra:\n      ko: ''\n      en: Also for the optimizer.\n"
    ) in text
    assert cli("check").code == 0
    _build("--lang", "en")
    with _collection(bundled) as col:
        log = _import(col, bundled / "output" / "gradient-checkpointing.en.apkg")
    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 0, 0)


def test_a_note_the_card_file_cannot_hold_as_anki_has_it_is_named_and_the_others_come_in(
    bundled: Path, cli: CliRun
) -> None:
    """A cloze renumbered in one language's deck reads back with deletions the languages
    number differently, which the card file's checks refuse: that note is not pulled
    (its line says why), and the other notes are written. The whole pull stopped on it."""
    deck = "ML Systems::Gradient Checkpointing"
    with _collection(bundled) as col:
        for nid in col.find_notes(f'"deck:{deck}"'):
            note = col.get_note(nid)
            if "mainly trade" in note.fields[0]:
                note.fields[0] = note.fields[0].replace("mainly trade", "trade, above all,")
            elif "Gradient checkpointing saves" in note.fields[0]:
                note.fields[0] = note.fields[0].replace("{{c2::", "{{c3::")
            else:
                continue
            col.update_note(note)
        source = _export(col, bundled / "en.apkg", deck)
    card = bundled / "cards" / "gradient-checkpointing.yaml"
    run = cli("pull", source)
    assert run.code == 1
    assert (
        "cards/gradient-checkpointing.yaml:252: note 'cloze-tradeoff': not pulled: the card "
        "file cannot hold Anki's copy: the languages of 'text' number their deletions "
        "differently (ko: c1, c2; en: c1, c3)"
    ) in run.err
    assert "updated from Anki: tradeoff" in run.out
    text = card.read_text(encoding="utf-8")
    assert "en: What does gradient checkpointing trade, above all, for lower memory use?" in text
    assert "at the cost of {{c3::" not in text
    assert cli("check").code == 0
    again = cli("pull", source)  # the same note named again, nothing else to do
    assert again.code == 1 and "note 'cloze-tradeoff': not pulled" in again.err
    assert "0 updated, 0 added" in again.out


def test_a_note_whose_type_changed_in_anki_is_named_and_the_others_come_in(
    project: Path, cli: CliRun
) -> None:
    """A note switched to another note type in Anki (Change Note Type) is not pulled,
    named at its line, and the other notes' edits are written. It stopped the whole pull,
    with a message naming SOURCE and no line of the card file."""
    with _collection(project) as col:
        notes = _notes(col)
        term = notes["Activation"]
        info = col.models.change_notetype_info(
            old_notetype_id=term.mid, new_notetype_id=col.models.by_name("Basic")["id"]
        )
        request = info.input
        request.note_ids.extend([term.id])
        col.models.change_notetype_of_notes(request)
        cloze = notes["The cell mem"]
        cloze.fields[1] = "Also called the plasma membrane."
        col.update_note(cloze)
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 1
    assert (
        "cards/cells.yaml:24: note 'term': not pulled: Anki's note 1"
    ) in run.err and "another note type ('Basic', the card file's: 'deckbuilder Basic')" in run.err
    assert "updated from Anki: membrane" in run.out
    text = (project / "cards" / "cells.yaml").read_text(encoding="utf-8")
    assert "    extra: Also called the plasma membrane.\n" in text
    assert "  - {id: term, front: Activation, back: A layer's output.}\n" in text


def test_a_deck_tag_taken_off_in_anki_alone_is_a_warning(project: Path, cli: CliRun) -> None:
    """A note whose only edit in Anki is the deck's tag taken off reads back as the card
    file has it: the pull told it as "edited alike on both sides", without the warning a
    note edited otherwise gets, so the learner's edit was dropped without a word."""
    with _collection(project) as col:
        cloze = _notes(col)["The cell mem"]
        cloze.tags = ["membranes"]
        col.update_note(cloze)
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert (
        "cards/cells.yaml:15: note 'membrane': warning: Anki took the deck's tag 'bio' off it; "
        "a card file gives every note the deck's tags"
    ) in run.err
    assert (project / "cards" / "cells.yaml").read_text(encoding="utf-8") == CARD_FILE


def test_a_note_the_card_file_made_reversed_is_the_card_file_s_edit(
    project: Path, cli: CliRun
) -> None:
    """A note given 'reverse: true' in the card file has another note type than Anki's
    copy: while Anki has it as the last build gave it, that is an edit of the card file
    the next build carries, not a note refused (exit 1, "change it back in Anki"). Built
    and imported without "Merge note types", Anki keeps the old type: the pull says to
    import with it."""
    card = project / "cards" / "cells.yaml"
    card.write_text(
        CARD_FILE.replace("back: A layer's output.}", "back: A layer's output., reverse: true}"),
        encoding="utf-8",
    )
    with _collection(project) as col:
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert "1 edited in the card file only, 3 unchanged" in run.out
    _build()
    with _collection(project) as col:
        assert len(_import(col, project / "output" / "cells.apkg").conflicting) == 1
        source = _export(col, project / "Cells.apkg")
    run = cli("pull", source)
    assert run.code == 1
    assert ("cards/cells.yaml:24: note 'term': not pulled: Anki's note 1") in run.err and (
        "and a pull does not change a note's type: import the last build with \"Merge note "
        'types" ticked (it gave the note this type, and Anki kept its own), then pull again'
    ) in run.err


def make_edited_export(folder: Path) -> None:
    """``edited.apkg`` for the README's pull example: the bundled deck's English package
    imported into a fresh collection, the question of note 'tradeoff' edited in Anki, and
    the deck exported as Anki's File > Export does."""
    from anki.collection import Collection

    from tests.app_calls import build_packages
    from tests.conftest import ROOT

    work = folder / "work"
    shutil.copytree(ROOT / "cards", work / "cards")
    (result,) = build_packages(
        [work / "cards"], work / "output", timestamp=BUILT, media_dir=ROOT / "media", lang="en"
    )
    col = Collection(str(work / "collection.anki2"))
    try:
        _import(col, result.path)
        deck = "ML Systems::Gradient Checkpointing"
        for nid in col.find_notes(f'"deck:{deck}"'):
            note = col.get_note(nid)
            if "mainly trade" in note.fields[0]:
                note.fields[0] = note.fields[0].replace("mainly trade", "trade")
                col.update_note(note)
        _export(col, folder / "edited.apkg", deck)
    finally:
        col.close()
