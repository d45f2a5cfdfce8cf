"""Anki note ids are unique across a project's decks (issue 45, the first high item).

Anki keeps a package's note id only while the learner's collection has none with that
id. The bundled Korean and English decks, built in the same second, shared all their ids;
in a collection holding both, the second deck's notes got other ids, and the "nid:..."
search that build printed for a removed note of one deck found the other deck's note:
following the advice deleted the wrong note with its review history (measured in Anki).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder import app
from deckbuilder.anki.identity import note_guid
from deckbuilder.anki.search import deck_notes_search
from deckbuilder.lock.format import read_manifest
from tests.conftest import Run, import_package

T0 = 1_700_000_000
T1 = T0 + 86_400

CARD_FILE = """\
deck:
  en: "Topic::English"
  ko: "주제::한국어"
id: topic
languages: [en, ko]
notes:
  - id: a
    front: {en: one, ko: 하나}
    back: {en: uno, ko: 일}
  - id: b
    front: {en: two, ko: 둘}
    back: {en: dos, ko: 이}
  - id: c
    front: {en: three, ko: 셋}
    back: {en: tres, ko: 삼}
"""


def _build(cards: Path, out: Path, timestamp: int) -> app.BuildResult:
    request = app.BuildRequest(
        timestamp,
        app.Selection(sources=(cards,), media_dir=None),
        out_dir=out,
        preview=False,
        lint=False,
    )
    return app.build(request)


def _ids(lock: Path) -> dict[str, int]:
    manifest = read_manifest(lock)
    assert manifest is not None
    return {key: entry.anki_id for key, entry in manifest.notes.items()}


@pytest.fixture
def bilingual(tmp_path: Path) -> Path:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "topic.yaml").write_text(CARD_FILE, encoding="utf-8")
    return cards


def test_decks_built_in_the_same_second_get_different_ids(bilingual: Path, tmp_path: Path) -> None:
    _build(bilingual, tmp_path / "out", T0)
    en, ko = _ids(bilingual / "topic.en.lock"), _ids(bilingual / "topic.ko.lock")
    assert set(en) == set(ko) == {"a", "b", "c"}
    assert not set(en.values()) & set(ko.values())
    # Stable: an unchanged rebuild writes the same lock files and packages.
    locks = {p.name: p.read_bytes() for p in bilingual.glob("*.lock")}
    packages = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    result = _build(bilingual, tmp_path / "out", T1)
    assert not any(package.lock_written for package in result.packages)
    assert {p.name: p.read_bytes() for p in bilingual.glob("*.lock")} == locks
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == packages


def test_a_new_note_takes_an_id_no_deck_of_the_project_has(bilingual: Path, tmp_path: Path) -> None:
    """One deck built alone still keeps clear of the other decks' ids, in any folder of
    the project's cards/."""
    _build(bilingual, tmp_path / "out", T0)
    other = bilingual / "sub" / "other.yaml"
    other.parent.mkdir()
    other.write_text("deck: Other\nid: other\nnotes:\n  - {id: x, front: f, back: b}\n")
    _build(other, tmp_path / "out", T0)  # the same second, built alone
    taken = {
        *_ids(bilingual / "topic.en.lock").values(),
        *_ids(bilingual / "topic.ko.lock").values(),
    }
    assert _ids(other.parent / "other.lock")["x"] not in taken


def _share_ids(cards: Path) -> None:
    """Make the Korean lock file give its notes the English one's ids, as every build
    before this fix did for decks built in the same second."""
    en = _ids(cards / "topic.en.lock")
    ko_lock = cards / "topic.ko.lock"
    text = ko_lock.read_text(encoding="utf-8")
    for key, anki_id in en.items():
        text = re.sub(rf"^note {key} \d+ ", f"note {key} {anki_id} ", text, flags=re.MULTILINE)
    text = re.sub(r"^next-anki-id \d+", f"next-anki-id {max(en.values()) + 1}", text, flags=re.M)
    ko_lock.write_text(text, encoding="utf-8")
    assert _ids(ko_lock) == en


@pytest.mark.anki
def test_lock_files_sharing_ids_are_repaired_and_learners_see_no_change(
    bilingual: Path, tmp_path: Path, collection: object, cli: Callable[..., Run]
) -> None:
    """The deck whose id sorts later gives its ids up; a learner who has both decks sees
    nothing change on the next import (Anki knows a note by its GUID), and the search
    printed for a removed note finds that note only, never the other deck's."""
    out = tmp_path / "out"
    _build(bilingual, out, T0)
    _share_ids(bilingual)
    # The Korean package as an old build wrote it: built where the English lock file is
    # not seen, with the ids it shares.
    old = tmp_path / "old" / "cards"
    old.mkdir(parents=True)
    for name in ("topic.yaml", "topic.ko.lock"):
        shutil.copyfile(bilingual / name, old / name)
    result = cli("build", old, "--out", out, "--lang", "ko", "--no-preview")
    assert result.code == 0, result.err
    assert (old / "topic.ko.lock").read_bytes() == (bilingual / "topic.ko.lock").read_bytes()
    for lang in ("en", "ko"):
        log = import_package(collection, out / f"topic.{lang}.apkg")
        assert len(log.new) == 3  # type: ignore[attr-defined]
    col: object = collection

    def nid(lang: str, key: str) -> int:
        guid = note_guid(f"topic.{lang}", key)
        (found,) = [n for n in col.find_notes("") if col.get_note(n).guid == guid]  # type: ignore[attr-defined]
        return int(found)

    en_ids = _ids(bilingual / "topic.en.lock")
    # What the issue measured: Anki gave the Korean notes other ids, so the old search
    # for a Korean note finds the English one.
    assert nid("en", "b") == en_ids["b"] and nid("ko", "b") != en_ids["b"]

    # The repair: the Korean deck ('topic.ko' sorts after 'topic.en') moves to new ids.
    result = cli("build", bilingual, "--out", out, "--no-preview")
    assert result.code == 0, result.err
    ko_ids = _ids(bilingual / "topic.ko.lock")
    assert _ids(bilingual / "topic.en.lock") == en_ids
    assert not set(ko_ids.values()) & set(en_ids.values())
    assert "deck 'topic.en' also gives one of its notes" in result.err + result.out
    mods = {n: col.get_note(n).mod for n in col.find_notes("")}  # type: ignore[attr-defined]
    for lang in ("en", "ko"):
        log = import_package(collection, out / f"topic.{lang}.apkg")
        assert not log.new and not log.updated and not log.conflicting  # type: ignore[attr-defined]
    assert {n: col.get_note(n).mod for n in col.find_notes("")} == mods  # type: ignore[attr-defined]
    assert col.note_count() == 6  # type: ignore[attr-defined]

    # Removing note b from the card file: each deck's printed search finds no other
    # deck's note (the English one finds its own; the Korean note has an id Anki chose).
    text = (bilingual / "topic.yaml").read_text(encoding="utf-8")
    text = re.sub(r"  - id: b\n.*\n.*\n", "", text)
    (bilingual / "topic.yaml").write_text(text, encoding="utf-8")
    result = cli("build", bilingual, "--out", out, "--no-preview")
    assert result.code == 0, result.err
    searches = re.findall(r'^    ("deck:.*)$', result.out, re.MULTILINE)
    assert len(searches) == 2, result.out
    found = [set(col.find_notes(search)) for search in searches]  # type: ignore[attr-defined]
    assert found[0] == {nid("en", "b")}
    assert found[1] <= {nid("ko", "b")}


@pytest.mark.anki
@pytest.mark.parametrize(
    "name",
    [
        "Plain",
        "With spaces::and a child",
        'Quote " and (parens)',
        "under_score*star\\back",
        "-minus or",
        "한국어::덱",
    ],
)
def test_the_removal_search_finds_that_deck_only(name: str, collection: object) -> None:
    """Written as Anki writes a deck search: its wildcards escaped, quoted, subdecks left out."""
    col: object = collection
    notes = {}
    for deck in (name, name + "::sub", name + "x", "Other"):
        did = col.decks.id(deck)  # type: ignore[attr-defined]
        note = col.new_note(col.models.by_name("Basic"))  # type: ignore[attr-defined]
        note["Front"] = deck
        col.add_note(note, did)  # type: ignore[attr-defined]
        notes[deck] = note.id
    every = list(notes.values())
    assert list(col.find_notes(deck_notes_search(name, every))) == [notes[name]]  # type: ignore[attr-defined]
    assert list(col.find_notes(deck_notes_search(name, [notes["Other"]]))) == []  # type: ignore[attr-defined]
