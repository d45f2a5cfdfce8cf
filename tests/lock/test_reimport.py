"""Safe re-import, measured with the real Anki backend: study a deck, change its sources,
rebuild, import again, and check that Anki did exactly what the lock file promises."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import deckbuilder.anki.notetypes.carried
from deckbuilder.anki.identity import note_guid
from deckbuilder.anki.notetypes import NoteTypeSpec, note_type
from deckbuilder.app import PackageResult
from deckbuilder.errors import DeckError
from deckbuilder.model import NoteKind
from tests.app_calls import build_packages
from tests.conftest import DATA, ROOT, Run, import_package

pytestmark = pytest.mark.anki

T0 = 1_700_000_000  # the first build
T1 = T0 + 86_400  # the rebuild, a day later
SOURCE = DATA / "reimport"
DECK = "Test::Reimport"


@dataclass
class Studied:
    """A deck built at T0, imported into a fresh collection, with three cards reviewed."""

    src: Path
    out: Path
    col: object
    first: PackageResult
    reviewed: dict[int, tuple[int, int, int, int, int]]  # card id -> card_state()

    def rebuild(self, timestamp: int = T1) -> PackageResult:
        (result,) = build_packages([self.src], self.out, timestamp=timestamp)
        return result

    def edit(self, old: str, new: str) -> None:
        text = self.src.read_text(encoding="utf-8")
        assert old in text
        self.src.write_text(text.replace(old, new, 1), encoding="utf-8")

    def note(self, note_id: str) -> object:
        guid = note_guid("reimport", note_id)
        col: object = self.col
        (nid,) = [n for n in col.find_notes("") if col.get_note(n).guid == guid]  # type: ignore[attr-defined]
        return self.col.get_note(nid)  # type: ignore[attr-defined]

    def assert_reviews_kept(self) -> None:
        for cid, state in self.reviewed.items():
            assert card_state(self.col, cid) == state, cid


def card_state(col: object, cid: int) -> tuple[int, int, int, int, int]:
    """What a review leaves on a card, plus how many review-log rows it has."""
    card = col.get_card(cid)  # type: ignore[attr-defined]
    revlog = col.db.scalar("SELECT count() FROM revlog WHERE cid = ?", cid)  # type: ignore[attr-defined]
    return (card.reps, card.due, card.ivl, card.queue, revlog)


def review(col: object, count: int) -> list[int]:
    """Answer ``count`` cards "Easy" through the collection's scheduler, as the reviewer does."""
    from anki.cards import Card
    from anki.scheduler.v3 import CardAnswer

    col.decks.select(col.decks.id_for_name(DECK))  # type: ignore[attr-defined]
    answered = []
    for _ in range(count):
        (queued,) = col.sched.get_queued_cards(fetch_limit=1).cards  # type: ignore[attr-defined]
        card = Card(col, backend_card=queued.card)  # type: ignore[arg-type]
        card.start_timer()
        answer = col.sched.build_answer(  # type: ignore[attr-defined]
            card=card, states=queued.states, rating=CardAnswer.EASY
        )
        col.sched.answer_card(answer)  # type: ignore[attr-defined]
        answered.append(card.id)
    return answered


@pytest.fixture
def studied(tmp_path: Path, collection: object) -> Iterator[Studied]:
    src = tmp_path / "cards" / "deck.yaml"
    shutil.copytree(SOURCE, src.parent)
    out = tmp_path / "out"
    (first,) = build_packages([src], out, timestamp=T0)
    log = import_package(collection, first.path)
    assert len(log.new) == 5 and not log.updated and not log.duplicate  # type: ignore[attr-defined]
    cards = review(collection, 3)
    reviewed = {cid: card_state(collection, cid) for cid in cards}
    for reps, _due, ivl, queue, revlog in reviewed.values():
        assert (reps, queue, revlog) == (1, 2, 1) and ivl >= 1  # in review, one log row
    yield Studied(src, out, collection, first, reviewed)


def counts(col: object) -> tuple[int, int]:
    return col.note_count(), col.card_count()  # type: ignore[attr-defined]


def test_unchanged_rebuild_is_byte_identical_and_changes_nothing(studied: Studied) -> None:
    before = studied.first.path.read_bytes()
    lock = (studied.src.parent / "reimport.lock").read_bytes()
    result = studied.rebuild(T1)
    assert result.path.read_bytes() == before
    assert (studied.src.parent / "reimport.lock").read_bytes() == lock and not result.lock_written
    c = result.changes
    assert (c.added, c.changed, c.removed) == ((), (), ())
    assert len(c.unchanged) == 5

    mods = {n: studied.col.get_note(n).mod for n in studied.col.find_notes("")}  # type: ignore[attr-defined]
    log = import_package(studied.col, result.path)
    assert not log.new and not log.updated and not log.conflicting  # type: ignore[attr-defined]
    assert len(log.duplicate) == 5  # type: ignore[attr-defined]
    assert counts(studied.col) == (5, 6)
    assert {n: studied.col.get_note(n).mod for n in studied.col.find_notes("")} == mods  # type: ignore[attr-defined]
    studied.assert_reviews_kept()


def test_editing_one_note_updates_exactly_that_note(studied: Studied) -> None:
    col = studied.col
    capital = studied.note("capital")
    capital_cards = sorted(c.id for c in capital.cards())  # type: ignore[attr-defined]
    # The user's own edit to another note in Anki must survive the re-import.
    planet = studied.note("planet")
    planet["Back"] = "Mercury (my own note)"  # type: ignore[index]
    col.update_note(planet)  # type: ignore[attr-defined]

    studied.edit("back: Paris", "back: Paris, on the Seine")
    result = studied.rebuild(T1)
    assert result.changes.changed == ("capital",) and len(result.changes.unchanged) == 4

    log = import_package(col, result.path)
    assert [n.fields[1] for n in log.updated] == ["Paris, on the Seine"]  # type: ignore[attr-defined]
    assert not log.new and len(log.duplicate) == 4  # type: ignore[attr-defined]
    assert counts(col) == (5, 6)
    capital = studied.note("capital")
    assert capital["Back"] == "Paris, on the Seine"  # type: ignore[index]
    assert sorted(c.id for c in capital.cards()) == capital_cards  # type: ignore[attr-defined]
    assert studied.note("planet")["Back"] == "Mercury (my own note)"  # type: ignore[index]
    studied.assert_reviews_kept()


def test_an_edit_within_the_same_second_still_moves_the_time(studied: Studied) -> None:
    """Anki ignores an equal modification time, so a second edit in the same second
    (or a clock that went backwards) must still give a strictly newer time."""
    studied.edit("back: Paris", "back: Paris!")
    first = studied.rebuild(T1)
    first_copy = first.path.with_name("first.apkg")
    shutil.copyfile(first.path, first_copy)
    studied.edit("back: Paris!", "back: Paris!!")
    second = studied.rebuild(T1)
    assert second.changes.changed == ("capital",)
    import_package(studied.col, first_copy)
    log = import_package(studied.col, second.path)
    assert [n.fields[1] for n in log.updated] == ["Paris!!"]  # type: ignore[attr-defined]
    assert studied.note("capital").mod == T1 + 1  # type: ignore[attr-defined]


def test_a_deleted_lock_file_takes_ids_and_times_from_the_package_it_replaces(
    studied: Studied,
) -> None:
    """A lock file deleted, or never committed: every note counted as new, with new Anki
    note ids, so Anki took every note as updated and the searches for removed notes found
    nothing in learners' collections. The package the build replaces has each note's id
    and time: the build takes them, and the learner's import changes nothing."""
    lock = studied.src.parent / "reimport.lock"
    before = lock.read_text(encoding="utf-8")
    lock.unlink()
    studied.edit("back: Paris", "back: Lyon")
    result = studied.rebuild(T1)
    assert not result.first_build and result.changes.added == ()
    assert result.changes.changed == ("capital",) and len(result.changes.unchanged) == 4
    assert any("package this build replaces" in str(w) for w in result.rendered.warnings)
    notes = [
        line for line in lock.read_text(encoding="utf-8").splitlines() if line.startswith("note ")
    ]
    kept = [
        line for line in before.splitlines() if line.startswith("note ") and "capital" not in line
    ]
    assert set(kept) <= set(notes)
    log = import_package(studied.col, result.path)
    assert [n.fields[1] for n in log.updated] == ["Lyon"]  # type: ignore[attr-defined]
    assert not log.new and len(log.duplicate) == 4  # type: ignore[attr-defined]
    nids = {n.split()[2] for n in notes}
    assert nids == {str(n) for n in studied.col.find_notes("")}  # type: ignore[attr-defined]
    studied.assert_reviews_kept()


def test_a_reverted_addition_tells_learners_how_to_delete_the_note(studied: Studied) -> None:
    """`git revert` of a commit that added a note takes it out of the card file and the
    lock file both: the build listed nothing as removed, and learners who imported the
    note kept it, unknown. The package the build replaces has it: the build gives the
    search that finds it."""
    lock = studied.src.parent / "reimport.lock"
    before_text, before_lock = studied.src.read_bytes(), lock.read_bytes()
    studied.src.write_text(
        before_text.decode() + "  - {id: extra, front: Added?, back: Reverted}\n", "utf-8"
    )
    added = studied.rebuild(T1)
    assert added.changes.added == ("extra",)
    import_package(studied.col, added.path)
    extra = studied.note("extra").id  # type: ignore[attr-defined]

    studied.src.write_bytes(before_text)  # what `git revert` of that commit gives
    lock.write_bytes(before_lock)
    reverted = studied.rebuild(T1 + 60)
    (told,) = [str(w) for w in reverted.rendered.warnings if "nid:" in str(w)]
    search = told.split("search the browser for ")[1].split(";")[0]
    assert studied.col.find_notes(search) == [extra]  # type: ignore[attr-defined]


def test_a_reverted_edit_reaches_learners_who_imported_it(studied: Studied) -> None:
    """`git revert` of an edit restores the card file and the lock file both: the note's
    lock time goes back to before the edit, and Anki, whose copy (the edit) is newer,
    would keep it. The package the build replaces has that newer copy: the note counts
    as changed, with a time after it."""
    lock = studied.src.parent / "reimport.lock"
    before_text, before_lock = studied.src.read_bytes(), lock.read_bytes()
    studied.edit("back: Paris", "back: Lyon")
    edited = studied.rebuild(T1)
    assert edited.changes.changed == ("capital",)
    import_package(studied.col, edited.path)
    assert studied.note("capital")["Back"] == "Lyon"  # type: ignore[index]

    studied.src.write_bytes(before_text)  # what `git revert` of that commit gives
    lock.write_bytes(before_lock)
    reverted = studied.rebuild(T1 + 60)
    assert reverted.changes.changed == ("capital",) and len(reverted.changes.unchanged) == 4
    assert any("capital" in str(w) and "revert" in str(w) for w in reverted.rendered.warnings)
    log = import_package(studied.col, reverted.path)
    assert [n.fields[1] for n in log.updated] == ["Paris"]  # type: ignore[attr-defined]
    assert studied.note("capital")["Back"] == "Paris"  # type: ignore[index]
    studied.assert_reviews_kept()
    # Built again, it is unchanged: the lock file now has the later time.
    assert studied.rebuild(T1 + 120).changes.changed == ()


def test_added_notes_are_added_and_removed_notes_reported(
    studied: Studied, cli: Callable[..., Run]
) -> None:
    col = studied.col
    gaps_cards = {c.ord: c.id for c in studied.note("gaps").cards()}  # type: ignore[attr-defined]
    planet_nid = studied.note("planet").id  # type: ignore[attr-defined]
    text = studied.src.read_text(encoding="utf-8")
    text = re.sub(r"  - id: planet\n.*\n.*\n", "", text)  # remove a note
    text = text.replace("{{c2::South Korea}}.", "{{c2::South Korea}} ({{c3::Asia}}).")
    text += "  - id: moon\n    front: What orbits the Earth?\n    back: The Moon\n"
    studied.src.write_text(text, encoding="utf-8")

    result = cli("build", studied.src, "--out", studied.out)
    assert result.code == 0, result.err
    assert "since last build: 1 added, 1 changed, 1 removed, 3 unchanged" in result.out
    assert "  removed: planet\n" in result.out
    search = re.search(r"^    (\"deck:.*nid:\S+)$", result.out, re.MULTILINE)
    assert search, result.out
    # The printed search finds exactly the removed note in Anki's browser.
    assert list(col.find_notes(search.group(1))) == [planet_nid]  # type: ignore[attr-defined]
    # Anki has no GUID search: "guid:..." is read as a search of a field named "guid".
    guid = note_guid("reimport", "planet")
    assert list(col.find_notes(f'"guid:{guid}"')) == []  # type: ignore[attr-defined]

    log = import_package(col, studied.out / "reimport.apkg")
    assert [n.fields[1] for n in log.new] == ["The Moon"]  # type: ignore[attr-defined]
    assert len(log.updated) == 1 and "Asia" in log.updated[0].fields[0]  # type: ignore[attr-defined]
    assert counts(col) == (6, 8)  # the removed note stays; moon + c3 add a card each
    gaps = {c.ord: c.id for c in studied.note("gaps").cards()}  # type: ignore[attr-defined]
    assert {k: gaps[k] for k in gaps_cards} == gaps_cards and len(gaps) == 3
    studied.assert_reviews_kept()
    assert col.fix_integrity() == ("Database rebuilt and optimized.", True)  # type: ignore[attr-defined]


def test_two_notes_that_trade_ids_take_each_others_text_and_keep_their_reviews(
    studied: Studied,
) -> None:
    """What the warning for a swap of ids says Anki does (issue 45): each note keeps its
    cards and reviews and takes the other's text; swapping back undoes it."""
    col = studied.col
    state = {
        key: {c.id: card_state(col, c.id) for c in studied.note(key).cards()}  # type: ignore[attr-defined]
        for key in ("capital", "planet")
    }
    studied.edit("id: capital", "id: was-capital")
    studied.edit("id: planet", "id: capital")
    studied.edit("id: was-capital", "id: planet")
    result = studied.rebuild(T1)
    assert result.changes.changed == ("capital", "planet")
    (warning,) = result.rendered.warnings
    assert warning.note == "planet" and "traded contents" in warning.message
    log = import_package(col, result.path)
    assert len(log.updated) == 2 and not log.new  # type: ignore[attr-defined]
    assert studied.note("capital")["Back"] == "Mercury"  # type: ignore[index]
    assert studied.note("planet")["Back"] == "Paris"  # type: ignore[index]
    for key, cards in state.items():
        assert {c.id: card_state(col, c.id) for c in studied.note(key).cards()} == cards  # type: ignore[attr-defined]

    # Undone as the warning says: each note has its own text again.
    studied.edit("id: capital", "id: was-capital")
    studied.edit("id: planet", "id: capital")
    studied.edit("id: was-capital", "id: planet")
    import_package(col, studied.rebuild(T1 + 60).path)
    assert studied.note("capital")["Back"] == "Paris"  # type: ignore[index]
    assert studied.note("planet")["Back"] == "Mercury"  # type: ignore[index]
    studied.assert_reviews_kept()


def _patched_note_type(
    monkeypatch: pytest.MonkeyPatch, kind: NoteKind, **changes: object
) -> NoteTypeSpec:
    new = dataclasses.replace(note_type(kind), **changes)  # type: ignore[arg-type]

    def patched(k: NoteKind) -> NoteTypeSpec:
        return new if k is kind else note_type(k)

    monkeypatch.setattr(deckbuilder.anki.notetypes.carried, "note_type", patched)
    return new


def test_template_change_updates_the_note_type_in_place(
    studied: Studied, monkeypatch: pytest.MonkeyPatch
) -> None:
    col = studied.col
    spec = note_type(NoteKind.BASIC)
    _patched_note_type(monkeypatch, NoteKind.BASIC, css=spec.css + "\n.card { color: teal; }\n")
    result = studied.rebuild(T1)
    assert [s.name for s in result.changes.note_types_changed] == ["deckbuilder Basic"]
    assert len(result.changes.unchanged) == 5  # notes are untouched

    names_before = sorted(m.name for m in col.models.all_names_and_ids())  # type: ignore[attr-defined]
    log = import_package(col, result.path, merge_notetypes=False)
    assert not log.updated and not log.conflicting and not log.new  # type: ignore[attr-defined]
    assert sorted(m.name for m in col.models.all_names_and_ids()) == names_before  # type: ignore[attr-defined]
    assert counts(col) == (5, 6)
    col.models._clear_cache()  # type: ignore[attr-defined]  # the importer bypasses the cache
    model = col.models.get(spec.id)  # type: ignore[attr-defined]
    assert model["css"].endswith(".card { color: teal; }\n") and model["mod"] == T1
    assert "color: teal" in studied.note("capital").cards()[0].question()  # type: ignore[attr-defined]
    studied.assert_reviews_kept()


def test_changed_fields_with_the_same_id_fail_the_build(
    studied: Studied, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = studied.src.parent / "reimport.lock"
    before = (lock.read_bytes(), studied.first.path.read_bytes())
    _patched_note_type(monkeypatch, NoteKind.BASIC, fields=("Prompt", "Response"))
    with pytest.raises(DeckError) as caught:
        studied.rebuild(T1)
    (problem,) = caught.value.problems
    assert problem.file == str(lock) and problem.line is not None
    assert "now has the fields Prompt, Response but this deck was built with Front, Back" in (
        problem.message
    )
    assert "'deckbuilder Basic+'" in problem.message
    assert (lock.read_bytes(), studied.first.path.read_bytes()) == before


def test_a_new_note_type_version_merges_and_keeps_reviews(
    studied: Studied, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Run]
) -> None:
    """The documented path for changed fields: a new id and name, imported with
    "Merge note types": the notes move to the new note type with their cards."""
    col = studied.col
    old = note_type(NoteKind.BASIC)
    new = _patched_note_type(
        monkeypatch,
        NoteKind.BASIC,
        id=old.id + 1,
        name="deckbuilder Basic v2",
        fields=("Prompt", "Response"),
    )
    old_lines = (studied.src.parent / "reimport.lock").read_text(encoding="utf-8").splitlines()
    old_line = 1 + next(i for i, t in enumerate(old_lines) if t.startswith("notetype basic "))
    built = cli("build", studied.src, "--out", studied.out)
    assert built.code == 0, built.err
    assert (
        "note type for basic notes has new fields (Front, Back -> Prompt, Response): "
        f"now 'deckbuilder Basic v2' (id {new.id})\n" in built.out
    )
    # ... and a warning, with the other build warnings, at the note type's lock file line.
    lock = studied.src.parent / "reimport.lock"
    assert f"{lock}:{old_line}: warning: the basic notes now have note type" in built.err
    assert '"Merge note types"' in built.err and f"not id {old.id}" in built.err
    assert 'Import with "Merge note types" ticked' in built.out
    assert "0 added, 3 changed, 0 removed, 2 unchanged" in built.out
    package = studied.out / "reimport.apkg"

    log = import_package(col, package, merge_notetypes=False)
    assert len(log.conflicting) == 3 and not log.updated  # type: ignore[attr-defined]
    log = import_package(col, package, merge_notetypes=True)
    assert len(log.updated) == 3 and not log.new  # type: ignore[attr-defined]
    assert counts(col) == (5, 6)
    capital = studied.note("capital")
    assert capital.note_type()["name"] == "deckbuilder Basic v2"  # type: ignore[attr-defined]
    assert capital["Prompt"] == "What is the capital of France?"  # type: ignore[index]
    # The old fields stay behind, empty (README: remove them in Manage Note Types).
    assert capital.keys() == ["Prompt", "Response", "Front", "Back"]  # type: ignore[attr-defined]
    assert capital["Front"] == "" and capital["Back"] == ""  # type: ignore[index]
    studied.assert_reviews_kept()


def test_a_note_that_changes_type_warns_and_updates_only_with_merge(
    studied: Studied, cli: Callable[..., Run]
) -> None:
    """Issue 32: a basic note turned typed under the same id built as "1 changed" and no
    more, but Anki's normal import reports it as conflicting and keeps the old note; only
    "Merge note types" updates it (in place, cards and reviews kept). The build says so,
    with what to do."""
    col = studied.col
    capital = studied.note("capital")
    capital_cards = sorted(c.id for c in capital.cards())  # type: ignore[attr-defined]
    studied.edit(
        "  - id: capital\n    front: What is the capital of France?\n    back: Paris\n",
        "  - id: capital\n    type: typed\n    question: What is the capital of France?\n"
        "    answer: Paris\n",
    )
    built = cli("build", studied.src, "--out", studied.out)
    assert built.code == 0, built.err
    assert "since last build: 0 added, 1 changed, 0 removed, 4 unchanged" in built.out
    assert (
        f"{studied.src}:6: note 'capital': warning [retyped]: this note changed its note type (now "
        "'deckbuilder Typed Answer'): Anki's import reports it as conflicting and keeps the "
        'old note unless "Merge note types" is ticked' in built.err
    )
    assert "or give the note a new id to replace it" in built.err
    # docs/updating.md shows this warning as it is printed.
    (documented,) = [
        line
        for line in (ROOT / "docs" / "updating.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("cards/deck.yaml:6: note 'capital': warning [retyped]:")
    ]
    assert documented.replace("cards/deck.yaml", str(studied.src)) in built.err.splitlines()
    package = studied.out / "reimport.apkg"

    log = import_package(col, package, merge_notetypes=False)  # the import dialog's default
    assert len(log.conflicting) == 1 and not log.updated and not log.new  # type: ignore[attr-defined]
    assert studied.note("capital")["Back"] == "Paris"  # type: ignore[index]
    log = import_package(col, package, merge_notetypes=True)
    assert len(log.updated) == 1 and not log.new  # type: ignore[attr-defined]
    capital = studied.note("capital")
    assert capital.note_type()["name"] == "deckbuilder Typed Answer"  # type: ignore[attr-defined]
    assert capital["Question"] == "What is the capital of France?"  # type: ignore[index]
    # The merged note type keeps the old template beside the new one: the old card, with
    # its reviews, now shows a blank front (Tools > Empty Cards lists it), and the typed
    # card is new.
    (old_card,) = [c for c in capital.cards() if c.id in capital_cards]  # type: ignore[attr-defined]
    assert old_card.template()["name"] == "Card 1" and old_card.reps == 1
    assert "The front of this card is blank" in old_card.question()
    (empty,) = col.get_empty_cards().notes  # type: ignore[attr-defined]
    assert list(empty.card_ids) == [old_card.id]
    (new_card,) = [c for c in capital.cards() if c.id not in capital_cards]  # type: ignore[attr-defined]
    assert new_card.template()["name"] == "Typed answer" and new_card.reps == 0
    assert counts(col) == (5, 7)
    studied.assert_reviews_kept()

    # Told once: the next build has the typed note type in its lock file.
    again = cli("build", studied.src, "--out", studied.out)
    assert again.code == 0 and "changed its note type" not in again.err


def test_a_note_made_reversed_keeps_its_card_with_merge(
    studied: Studied, cli: Callable[..., Run]
) -> None:
    """`reverse: true` moves a basic note to another note type (two templates): the same
    warning; with "Merge note types" its first card keeps its template name, "Card 1",
    and so its reviews, and the reverse card is added."""
    col = studied.col
    capital_cards = [c.id for c in studied.note("capital").cards()]  # type: ignore[attr-defined]
    studied.edit("    back: Paris\n", "    back: Paris\n    reverse: true\n")
    built = cli("build", studied.src, "--out", studied.out)
    assert built.code == 0, built.err
    assert "note 'capital': warning [retyped]: this note changed its note type (now " in built.err
    package = studied.out / "reimport.apkg"
    log = import_package(col, package, merge_notetypes=False)
    assert len(log.conflicting) == 1 and not log.updated  # type: ignore[attr-defined]
    log = import_package(col, package, merge_notetypes=True)
    assert len(log.updated) == 1 and not log.new  # type: ignore[attr-defined]
    cards = {c.template()["name"]: c for c in studied.note("capital").cards()}  # type: ignore[attr-defined]
    assert sorted(cards) == ["Card 1", "Card 2"] and cards["Card 1"].id in capital_cards
    assert "The front of this card is blank" not in cards["Card 1"].question()
    assert not col.get_empty_cards().notes  # type: ignore[attr-defined]
    studied.assert_reviews_kept()


def test_changed_media_file_updates_the_note(studied: Studied) -> None:
    """Anki stores a changed file under a new name and points the note at it, but only
    if the note itself is updated: the file's bytes are part of the note's content."""
    image = studied.src.parent / "square.png"
    new_bytes = image.read_bytes() + b"\0"
    image.write_bytes(new_bytes)
    result = studied.rebuild(T1)
    assert result.changes.changed == ("picture",)
    log = import_package(studied.col, result.path)
    assert len(log.updated) == 1  # type: ignore[attr-defined]
    (name,) = re.findall(r'<img src="([^"]+)"', studied.note("picture")["Front"])  # type: ignore[index]
    assert name != "square.png"
    assert (Path(studied.col.media.dir()) / name).read_bytes() == new_bytes  # type: ignore[attr-defined]
    studied.assert_reviews_kept()


def test_tags_and_type_are_content(studied: Studied) -> None:
    studied.edit("tags: [reimport]", "tags: [reimport, geography]")
    result = studied.rebuild(T1)
    assert len(result.changes.changed) == 5
    log = import_package(studied.col, result.path)
    assert len(log.updated) == 5  # type: ignore[attr-defined]
    assert "geography" in studied.note("capital").tags  # type: ignore[attr-defined]
    studied.assert_reviews_kept()


def test_learners_of_both_merged_branches_import_the_merged_build(
    studied: Studied, tmp_path: Path
) -> None:
    """Two branches each add a note and build in the same second, so both new notes get
    the same Anki note id; the merged lock file gives one of them a new id. Learners who
    imported either branch's package then import the merged one: Anki matches notes by
    GUID, adds the other branch's note, and keeps every review."""
    from anki.collection import Collection

    base_lock = (studied.src.parent / "reimport.lock").read_text(encoding="utf-8")
    base_text = studied.src.read_text(encoding="utf-8")
    new_notes = {
        "alpha": "  - id: alpha\n    front: First letter?\n    back: Alpha\n",
        "omega": "  - id: omega\n    front: Last letter?\n    back: Omega\n",
    }
    packages, lock_lines = {}, set()
    for branch, note in new_notes.items():
        (studied.src.parent / "reimport.lock").write_text(base_lock, encoding="utf-8")
        studied.src.write_text(base_text + note, encoding="utf-8")
        result = studied.rebuild(T1)
        assert result.changes.added == (branch,)
        packages[branch] = result.path.rename(studied.out / f"{branch}.apkg")
        lock_lines |= set(result.lock.read_text(encoding="utf-8").splitlines())
    # What git's merge of the two lock files gives: every line of both sides, sorted.
    merged_lock = "\n".join(sorted(lock_lines, key=lambda line: (line[0] != "#", line))) + "\n"
    (studied.src.parent / "reimport.lock").write_text(merged_lock, encoding="utf-8")
    studied.src.write_text(base_text + "".join(new_notes.values()), encoding="utf-8")
    merged = studied.rebuild(T1 + 60)
    assert merged.changes.unchanged == (
        "alpha",
        "capital",
        "choice",
        "gaps",
        "omega",
        "picture",
        "planet",
    )

    other = Collection(str(tmp_path / "omega-learner.anki2"))
    try:
        learners = {"alpha": studied.col, "omega": other}
        for branch, col in learners.items():
            import_package(col, packages[branch])
            before = {n: col.get_note(n).guid for n in col.find_notes("")}  # type: ignore[attr-defined]
            log = import_package(col, merged.path)
            assert [n.fields[1] for n in log.new] == [  # type: ignore[attr-defined]
                "Omega" if branch == "alpha" else "Alpha"
            ]
            assert not log.updated and not log.conflicting  # type: ignore[attr-defined]
            after = {n: col.get_note(n).guid for n in col.find_notes("")}  # type: ignore[attr-defined]
            assert len(after) == len(before) + 1 and before.items() <= after.items()
            assert col.fix_integrity() == ("Database rebuilt and optimized.", True)  # type: ignore[attr-defined]
        studied.assert_reviews_kept()
    finally:
        other.close()
