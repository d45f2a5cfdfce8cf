"""Lock files in team use: merged by git, settled when two sides disagree, and refused when
copied from another deck."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError
from deckbuilder.lock.format import (
    NoteEntry,
    format_manifest,
    lock_path,
    parse_manifest,
    read_manifest,
)
from deckbuilder.lock.manifest import note_hashes, update_manifest
from deckbuilder.model import BasicNote, Deck
from deckbuilder.render.deck import RenderedDeck, render_deck
from tests.app_calls import check_decks
from tests.conftest import Run

CliRun = Callable[..., Run]
LOCK = "cards/d.lock"
T0 = 1_700_000_000


def deck_of(*note_ids: str) -> RenderedDeck:
    notes = tuple(BasicNote(id=i, line=1, front=f"front {i}", back="back") for i in note_ids)
    return render_deck(Deck("d", "D", Path("cards/d.yaml"), notes))


def lock_text(*lines: str) -> str:
    return "version 1\n" + "".join(f"{line}\n" for line in lines)


def entry(rd: RenderedDeck, note_id: str, anki_id: int, when: int = 0) -> str:
    """A lock file line for ``note_id`` with its current content hash."""
    (content,) = (
        h for rn, h in zip(rd.notes, note_hashes(rd), strict=True) if rn.note.id == note_id
    )
    stamp = "1970-01-01T00:00:00Z" if when == 0 else "2023-11-14T22:13:20Z"
    return f"note {note_id} {anki_id} {content} {stamp}"


# Notes that share one Anki note id: two branches built in the same second, then merged.


def test_notes_sharing_an_anki_id_are_settled_with_a_warning() -> None:
    rd = deck_of("c", "d", "e")
    text = lock_text("next-anki-id 7", entry(rd, "c", 5), entry(rd, "d", 5), entry(rd, "e", 6))
    update = update_manifest(parse_manifest(text, LOCK), rd, T0)
    notes = update.manifest.notes
    assert (notes["c"].anki_id, notes["d"].anki_id, notes["e"].anki_id) == (5, 7, 6)
    assert update.changes.unchanged == ("c", "d", "e")  # an id is not content
    assert notes["d"].changed == 0  # so the note keeps its time
    (warning,) = update.warnings
    assert str(warning) == (
        "cards/d.lock:4: note 'd': shares Anki note id 5 with note 'c' (line 3), as when two "
        "branches built in the same second are merged; it now gets 7 (commit the lock file)"
    )
    assert update.manifest.next_anki_id == 7


def test_a_new_note_in_the_same_build_takes_an_id_after_the_settled_ones() -> None:
    rd = deck_of("c", "d", "new")
    text = lock_text("next-anki-id 0", entry(rd, "c", 5), entry(rd, "d", 5))
    notes = update_manifest(parse_manifest(text, LOCK), rd, 0).manifest.notes
    assert (notes["c"].anki_id, notes["d"].anki_id, notes["new"].anki_id) == (5, 6, 7)


def test_the_note_still_in_the_deck_keeps_the_shared_id() -> None:
    """'c' is gone: 'd' keeps the id, and 'c' is not listed for deletion, because the
    search "nid:5" would find 'd' in a learner's collection."""
    rd = deck_of("d")
    text = lock_text(entry(rd, "d", 5), "note c 5 0000000000000000 1970-01-01T00:00:00Z")
    update = update_manifest(parse_manifest(text, LOCK), rd, T0)
    assert update.manifest.notes["d"].anki_id == 5
    assert update.changes.removed == ()
    (warning,) = update.warnings
    assert (warning.line, warning.note) == (3, "c")
    assert "removed from the deck, but not listed for deletion" in warning.message
    assert "shares Anki note id 5 with note 'd' (line 2)" in warning.message


@given(st.randoms(use_true_random=False), st.lists(st.integers(1, 4), min_size=1, max_size=6))
@settings(deadline=None)
def test_settling_does_not_depend_on_line_order(shuffle: random.Random, ids: list[int]) -> None:
    """Everyone who builds the merged lock file, in whatever order git left its lines and
    whatever the clock, writes the same ids."""
    names = [f"n{k}" for k in range(len(ids))]
    rd = deck_of(*names[: len(names) // 2 + 1])
    lines = [entry(deck_of(name), name, anki) for name, anki in zip(names, ids, strict=True)]
    first = update_manifest(parse_manifest(lock_text(*lines), LOCK), rd, T0)
    shuffle.shuffle(lines)
    second = update_manifest(parse_manifest(lock_text(*lines), LOCK), rd, T0 + 99)
    assert second.manifest.notes == first.manifest.notes and second.changes == first.changes
    assert second.manifest.next_anki_id == first.manifest.next_anki_id
    given_ids = [e.anki_id for e in first.manifest.notes.values()]
    assert len(set(given_ids)) == len(given_ids)


# One entry listed twice: both sides of a merge conflict kept.


def test_a_note_listed_twice_counts_from_its_later_change() -> None:
    rd = deck_of("a")
    old, new = entry(rd, "a", 5, 0), entry(rd, "a", 5, T0)
    manifest = parse_manifest(lock_text(new, old), LOCK)
    assert manifest.notes["a"] == NoteEntry("a", 5, new.split()[3], T0)
    (warning,) = manifest.warnings
    assert (warning.line, warning.note) == (3, "a")
    assert warning.message.startswith("listed twice (also line 2)")
    update = update_manifest(manifest, rd, T0 + 50)
    assert update.changes.unchanged == ("a",) and update.warnings == manifest.warnings


def test_a_note_changed_on_both_sides_in_the_same_second_moves_past_both() -> None:
    """Learners may hold either side's note at that time: Anki updates only for a later one."""
    rd = deck_of("a")
    same = entry(rd, "a", 5, T0)
    other = same.replace(same.split()[3], "0123456789abcdef")
    update = update_manifest(parse_manifest(lock_text(same, other), LOCK), rd, T0)
    assert update.changes.changed == ("a",)
    assert update.manifest.notes["a"].changed == T0 + 1


def test_two_next_anki_id_lines_keep_the_larger() -> None:
    text = "version 1\nnext-anki-id 9\nnext-anki-id 30\nnext-anki-id 12\n"
    manifest = parse_manifest(text, LOCK)
    assert (manifest.next_anki_id, manifest.next_anki_id_line) == (30, 3)


def test_the_same_note_type_listed_twice_keeps_the_later() -> None:
    text = (
        "version 1\nnotetype basic 7 Front,Back aa 2023-11-14T22:13:20Z\n"
        "notetype basic 7 Front,Back bb 1970-01-01T00:00:00Z\n"
    )
    manifest = parse_manifest(text, LOCK)
    assert [(t.templates, t.changed, t.line) for t in manifest.note_types.values()] == [
        ("aa", T0, 2)
    ]
    assert "the basic note type is listed twice (also line 2)" in manifest.warnings[0].message


def test_merge_conflict_markers_are_reported_once_each_with_what_to_do() -> None:
    text = (
        "version 1\n<<<<<<< HEAD\nnext-anki-id 9\n||||||| base\nnext-anki-id 5\n=======\n"
        "next-anki-id 12\n>>>>>>> other\nnote a 1 x 1970-01-01T00:00:00Z\n"
        "<<<<<<< HEAD\n=======\n>>>>>>> other\n"
    )
    with pytest.raises(DeckError) as caught:
        parse_manifest(text, LOCK)
    assert [p.line for p in caught.value.problems] == [2, 10]
    message = caught.value.problems[0].message
    assert message.startswith("unresolved git merge conflict: delete the marker lines")
    assert "keep the lines of both sides" in message and "merge=union" in message


def test_a_stray_marker_line_is_an_unreadable_line() -> None:
    with pytest.raises(DeckError) as caught:
        parse_manifest("version 1\n=======\n", LOCK)
    assert [(p.line, p.message[:24]) for p in caught.value.problems] == [
        (2, "cannot read this lock fi")
    ]


# A lock file copied from another deck.

OTHER_DECK = """deck: Other
id: other
notes:
  - id: one
    front: One?
    back: One.
"""


def test_a_lock_file_of_another_deck_is_refused(project: Path, cli: CliRun) -> None:
    """Its notes are not this deck's: build must not list them as removed, with a search
    that would delete them from learners' collections."""
    (project / "cards" / "other.yaml").write_text(OTHER_DECK, encoding="utf-8")
    copied = project / "cards" / "other.lock"
    copied.write_bytes((project / "cards" / "gradient-checkpointing.ko.lock").read_bytes())
    result = cli("build", "cards/other.yaml", "--no-preview")
    assert result.code == 1
    assert result.err.startswith(
        "cards/other.lock:1: this lock file belongs to deck 'gradient-checkpointing.ko' "
        "(gradient-checkpointing.yaml), not to deck 'other' (other.yaml); it was probably "
        "copied from there. Restore this deck's own lock file from version control, or "
        "delete this copy if this deck was never built; then build again"
    )
    assert "nid:" not in result.out + result.err and "removed" not in result.out
    assert not (project / "output" / "other.apkg").exists()


def test_a_lock_file_of_the_other_language_is_refused() -> None:
    rd = render_deck(Deck("d.en", "D", Path("cards/d.yaml")))
    text = format_manifest(
        Deck("d.ko", "D", Path("cards/d.yaml")), parse_manifest("version 1", LOCK)
    )
    with pytest.raises(DeckError, match=r"belongs to deck 'd.ko' \(d.yaml\), not to deck 'd.en'"):
        update_manifest(parse_manifest(text, "cards/d.en.lock"), rd, T0)


def test_a_lock_file_without_its_header_is_read() -> None:
    rd = deck_of("a")
    update = update_manifest(parse_manifest(lock_text(entry(rd, "a", 5)), LOCK), rd, T0)
    assert update.changes.unchanged == ("a",)


# Real git: two branches that each add notes and build in the same second, then merge.

CARDS = """deck: Merge
id: merge
notes:
  - id: m1
    front: One?
    back: One.
  - id: m3
    front: Three?
    back: Three.
  - id: m5
    front: Five?
    back: Five.
"""
BASE_TIME, BRANCH_TIME, MERGE_TIME = "1700000000", "1800000000", "1900000000"


def _note(note_id: str) -> str:
    return f"  - id: {note_id}\n    front: {note_id}?\n    back: {note_id}.\n"


class Repo:
    """A git repository holding one deck, built through the command line."""

    def __init__(self, root: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root, self.cli, self.monkeypatch = root, cli, monkeypatch
        self.card = root / "cards" / "merge.yaml"
        self.lock = root / "cards" / "merge.lock"

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = dict(
            os.environ,
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
            GIT_AUTHOR_NAME="t",
            GIT_AUTHOR_EMAIL="t@example.com",
            GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@example.com",
        )
        return subprocess.run(
            ["git", "-c", "merge.conflictStyle=merge", *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            check=check,
        )

    def build(self, when: str) -> Run:
        self.monkeypatch.setenv("SOURCE_DATE_EPOCH", when)
        return self.cli("build", "cards/merge.yaml", "--out", "out", "--no-preview")

    def add_note(self, branch: str, *, first: str = "", last: str = "") -> None:
        """On a new branch from main: a note put first or last in the card file, built."""
        self.git("checkout", "-q", "-b", branch, "main")
        text = self.card.read_text(encoding="utf-8")
        if first:
            text = text.replace("notes:\n", "notes:\n" + _note(first), 1)
        if last:
            text += _note(last)
        self.card.write_text(text, encoding="utf-8")
        assert self.build(BRANCH_TIME).code == 0
        self.git("commit", "-q", "-am", branch)

    def note_lines(self) -> list[str]:
        return [
            line
            for line in self.lock.read_text(encoding="utf-8").splitlines()
            if line.startswith("note ")
        ]


@pytest.fixture
def repo(tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch) -> Repo:
    if shutil.which("git") is None:
        pytest.skip("needs the git command")
    root = tmp_path / "repo"
    (root / "cards").mkdir(parents=True)
    monkeypatch.chdir(root)
    repo = Repo(root, cli, monkeypatch)
    repo.card.write_text(CARDS, encoding="utf-8")
    (root / ".gitignore").write_text("out/\n", encoding="utf-8")
    repo.git("init", "-q", "-b", "main")
    assert repo.build(BASE_TIME).code == 0
    repo.git("add", ".")
    repo.git("commit", "-q", "-m", "base")
    return repo


def test_branches_adding_notes_in_the_same_second_merge_cleanly_and_build(repo: Repo) -> None:
    repo.add_note("one", first="m0")  # sorts before every note in the lock file
    repo.add_note("two", last="m9")  # ... and after
    repo.git("checkout", "-q", "one")
    merged = repo.git("merge", "-q", "--no-edit", "two", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    shared = [line.split()[2] for line in repo.note_lines() if line.split()[1] in ("m0", "m9")]
    assert shared[0] == shared[1] == "1800000000000"  # both given the first id of that second

    (rd,) = check_decks([repo.card])
    update = update_manifest(read_manifest(lock_path(rd.deck)), rd, int(MERGE_TIME))
    assert [(w.note, w.line) for w in update.warnings] == [("m9", 14)]
    assert (
        "shares Anki note id 1800000000000 with note 'm0' (line 10)" in update.warnings[0].message
    )

    built = repo.build(MERGE_TIME)
    assert built.code == 0, built.err
    assert "since last build: 0 added, 0 changed, 0 removed, 5 unchanged" in built.out
    ids = {line.split()[1]: int(line.split()[2]) for line in repo.note_lines()}
    assert ids["m0"] == 1800000000000 and ids["m9"] == 1800000000001
    assert len(set(ids.values())) == len(ids)
    lock = repo.lock.read_bytes()
    again = repo.build(str(int(MERGE_TIME) + 1))  # settled once: the same lock file after
    assert again.code == 0 and repo.lock.read_bytes() == lock
    assert "lock  cards/merge.lock (unchanged)" in again.out


def test_notes_that_sort_together_conflict_and_build_once_both_sides_are_kept(
    repo: Repo,
) -> None:
    """Git cannot merge two lines added at the same place; the build says how to resolve
    the conflict, and the lock file with both sides' lines builds."""
    repo.add_note("one", first="m9-a")  # different places in the card file, ...
    repo.add_note("two", last="m9-b")  # ... the same place in the lock file
    repo.git("checkout", "-q", "one")
    merged = repo.git("merge", "-q", "--no-edit", "two", check=False)
    assert merged.returncode == 1 and "CONFLICT (content): Merge conflict in cards/merge.lock" in (
        merged.stdout
    )
    assert repo.card.read_text(encoding="utf-8").count("  - id: m9-") == 2  # merged cleanly

    failed = repo.build(MERGE_TIME)
    assert failed.code == 1
    start = repo.lock.read_text(encoding="utf-8").splitlines().index("<<<<<<< HEAD") + 1
    assert failed.err.startswith(f"cards/merge.lock:{start}: unresolved git merge conflict")

    lines = repo.lock.read_text(encoding="utf-8").splitlines(keepends=True)
    markers = ("<<<<<<<", "=======", ">>>>>>>")
    repo.lock.write_text("".join(x for x in lines if not x.startswith(markers)), encoding="utf-8")
    built = repo.build(MERGE_TIME)
    assert built.code == 0, built.err
    ids = [int(line.split()[2]) for line in repo.note_lines()]
    assert len(set(ids)) == len(ids) == 5


def test_union_merge_of_lock_files_needs_no_hand(repo: Repo) -> None:
    """With '*.lock merge=union' in .gitattributes git keeps both sides' lines itself."""
    (repo.root / ".gitattributes").write_text("*.lock merge=union\n", encoding="utf-8")
    repo.git("add", ".gitattributes")
    repo.git("commit", "-q", "-m", "union")
    repo.add_note("one", first="m9-a")
    repo.add_note("two", last="m9-b")
    repo.git("checkout", "-q", "one")
    merged = repo.git("merge", "-q", "--no-edit", "two", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    built = repo.build(MERGE_TIME)
    assert built.code == 0, built.err
    ids = [int(line.split()[2]) for line in repo.note_lines()]
    assert len(set(ids)) == len(ids) == 5


def test_build_prints_how_it_settled_the_lock_file(repo: Repo) -> None:
    repo.add_note("one", first="m0")
    repo.add_note("two", last="m9")
    repo.git("checkout", "-q", "one")
    repo.git("merge", "-q", "--no-edit", "two")
    built = repo.build(MERGE_TIME)
    assert built.code == 0
    assert (
        "cards/merge.lock:14: note 'm9': warning [lock]: shares Anki note id 1800000000000 with note 'm0' "
        "(line 10)" in built.err
    )
