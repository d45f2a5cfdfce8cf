"""The lock file: its format, its change rules, and who may write it."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deckbuilder.errors import DeckError
from deckbuilder.manifest import (
    Manifest,
    NoteEntry,
    NoteTypeEntry,
    format_manifest,
    note_content_hash,
    parse_manifest,
    update_manifest,
)
from deckbuilder.model import BasicNote, Deck, NoteKind
from deckbuilder.notetypes import note_type
from deckbuilder.render import RenderedDeck, RenderedNote, render_deck

from .conftest import ROOT, Run

CliRun = Callable[..., Run]
# The bundled deck is bilingual: one lock file and one package per language.
LOCKS = [Path("cards") / f"gradient-checkpointing.{lang}.lock" for lang in ("ko", "en")]
LOCK = LOCKS[0]
PACKAGE = Path("output") / "gradient-checkpointing.ko.apkg"


def deck_of(*notes: BasicNote, tags: tuple[str, ...] = ()) -> RenderedDeck:
    return render_deck(Deck("d", "D", Path("cards/d.yaml"), notes, tags=tags))


def basic(note_id: str, front: str = "front", back: str = "back", **kw: object) -> BasicNote:
    return BasicNote(id=note_id, line=1, front=front, back=back, **kw)  # type: ignore[arg-type]


ids = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,20}", fullmatch=True)
times = st.integers(min_value=0, max_value=2**33)


@given(
    st.dictionaries(ids, st.tuples(st.integers(1, 2**53), times), max_size=8),
    st.sampled_from(list(NoteKind)),
    times,
)
def test_lock_text_round_trips(notes: dict[str, tuple[int, int]], kind: NoteKind, t: int) -> None:
    manifest = Manifest(
        {kind: NoteTypeEntry(kind, 42, ("Front", "Back"), "ab" * 8, t)},
        {k: NoteEntry(k, nid, "0f" * 8, when) for k, (nid, when) in notes.items()},
        t,
    )
    deck = Deck("d", "D", Path("cards/d.yaml"))
    text = format_manifest(deck, manifest)
    assert parse_manifest(text, "d.lock") == manifest
    assert format_manifest(deck, parse_manifest(text, "d.lock")) == text


def test_lock_is_plain_sorted_text() -> None:
    update = update_manifest(None, deck_of(basic("b"), basic("a")), 1_700_000_000)
    text = format_manifest(deck_of(basic("a")).deck, update.manifest)
    lines = [line for line in text.splitlines() if line.startswith("note ")]
    assert [line.split()[1] for line in lines] == ["a", "b"]
    assert lines[0].endswith(" 2023-11-14T22:13:20Z")
    assert "notetype basic 2152878658763882 Front,Back " in text


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("version 1\nnote a 1 abc\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a 1 abc 2023-13-01T00:00:00Z\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a x abc 2023-11-14T22:13:20Z\n", 2, "cannot read this lock file line"),
        ("version 1\nnotetype quiz 1 A a 2023-11-14T22:13:20Z\n", 2, "cannot read"),
        ("version 1\nnote a 1 abc 2023-11-14T22:13:20\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a 1 abc 2023-11-14T22:13:20Z extra\n", 2, "cannot read"),
        ("version 1\nnote\n", 2, "cannot read this lock file line"),
        ("version 1\nnext-anki-id x\n", 2, "cannot read this lock file line"),
        (
            "version 1\nnote a 1 abc 1970-01-01T00:00:00Z\nnote a 2 abc 1970-01-01T00:00:00Z",
            3,
            "cannot read",
        ),
        ("version 1\nnotetype cloze 1 Text,Extra ab 1970-01-01T00:00:00Z\n" * 2, 4, "cannot read"),
        ("version 2\n", 1, "lock file version 2 is not supported"),
        ("note a 1 abc 2023-11-14T22:13:20Z\n", None, "not a deckbuilder lock file"),
    ],
)
def test_malformed_lock_lines_are_located(text: str, line: int | None, message: str) -> None:
    with pytest.raises(DeckError) as caught:
        parse_manifest(text, "cards/d.lock")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == ("cards/d.lock", line)
    assert message in problem.message


def test_indented_lines_and_comments_are_read() -> None:
    text = "  # a comment\n\n   \nversion 1\n#note x 1 abc 1970-01-01T00:00:00Z\n  note a 7 abc 1970-01-01T00:00:10Z  \n"
    manifest = parse_manifest(text, "d.lock")
    assert manifest.notes == {"a": NoteEntry("a", 7, "abc", 10)}
    assert manifest.notes["a"].line == 6


_NOTE = BasicNote(id="a", line=1, front="f", back="b")


@pytest.mark.parametrize(
    ("rn", "content"),
    [
        (
            RenderedNote(_NOTE, note_type(NoteKind.BASIC), ("What?", "That."), ()),
            "483f506c8f9461eb",
        ),
        (
            RenderedNote(
                _NOTE,
                note_type(NoteKind.CLOZE),
                ('say "hi" \\ \u2028 é 漢 😀 </b>', "\x00\x1f"),
                ("tag", "태그"),
            ),
            "74e01c5ffcc4d2ff",
        ),
        (
            RenderedNote(
                _NOTE,
                note_type(NoteKind.MCQ),
                ("q", "c", "A", "", "yes"),
                ("t",),
                media=("z.png", "a b.mp3", "z.png"),
            ),
            "0bb3cb24753f0ba1",
        ),
    ],
)
def test_content_hashes_are_fixed(rn: RenderedNote, content: str) -> None:
    """Users' lock files hold these: a changed hash would mark every note as changed."""
    media = {"z.png": "9" * 64, "a b.mp3": "0" * 64}
    assert note_content_hash(rn, media) == content


def test_first_build_gives_every_note_the_build_time_and_a_new_id() -> None:
    update = update_manifest(None, deck_of(basic("a"), basic("b")), 1_700_000_000)
    assert update.first_build and update.changes.added == ("a", "b")
    a, b = update.manifest.notes["a"], update.manifest.notes["b"]
    assert (a.changed, b.changed) == (1_700_000_000, 1_700_000_000)
    assert (a.anki_id, b.anki_id) == (1_700_000_000_000, 1_700_000_000_001)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda: deck_of(basic("a", front="FRONT"), basic("b")), id="field"),
        pytest.param(lambda: deck_of(basic("a", tags=("x",)), basic("b")), id="note tag"),
    ],
)
def test_a_content_change_moves_only_that_note(edit: Callable[[], RenderedDeck]) -> None:
    first = update_manifest(None, deck_of(basic("a"), basic("b")), 1_000)
    second = update_manifest(first.manifest, edit(), 2_000)
    assert second.changes.changed == ("a",) and second.changes.unchanged == ("b",)
    assert second.manifest.notes["a"].changed == 2_000
    assert second.manifest.notes["b"] == first.manifest.notes["b"]
    assert second.manifest.notes["a"].anki_id == first.manifest.notes["a"].anki_id


def test_a_replaced_image_changes_only_the_notes_that_show_it(tmp_path: Path) -> None:
    """'a.png' is a substring of 'data.png': only the note that really uses a file moves."""
    (tmp_path / "a.png").write_bytes(b"first")
    (tmp_path / "data.png").write_bytes(b"other")

    def deck() -> RenderedDeck:
        notes = (basic("uses-a", front="![x](a.png)"), basic("uses-data", front="![y](data.png)"))
        return render_deck(Deck("d", "D", tmp_path / "d.yaml", notes, media_dirs=(tmp_path,)))

    first = update_manifest(None, deck(), 1_000)
    assert deck().notes[1].media == ("data.png",)
    (tmp_path / "a.png").write_bytes(b"replaced")
    second = update_manifest(first.manifest, deck(), 2_000)
    assert second.changes.changed == ("uses-a",) and second.changes.unchanged == ("uses-data",)


def test_deck_tags_and_note_type_are_content() -> None:
    first = update_manifest(None, deck_of(basic("a")), 1_000)
    tagged = update_manifest(first.manifest, deck_of(basic("a"), tags=("t",)), 2_000)
    assert tagged.changes.changed == ("a",)
    rd = deck_of(basic("a"))
    (rn,) = rd.notes
    other_type = dataclasses.replace(rn, spec=dataclasses.replace(rn.spec, id=rn.spec.id + 1))
    retyped = update_manifest(first.manifest, dataclasses.replace(rd, notes=(other_type,)), 2_000)
    assert retyped.changes.changed == ("a",)


@pytest.mark.parametrize(("now", "expected"), [(1_000, 1_001), (999, 1_001), (5_000, 5_000)])
def test_change_time_is_strictly_after_the_previous_one(now: int, expected: int) -> None:
    """Anki ignores an equal time; a clock that stands still or goes back must not matter."""
    first = update_manifest(None, deck_of(basic("a")), 1_000)
    second = update_manifest(first.manifest, deck_of(basic("a", back="new")), now)
    assert second.manifest.notes["a"].changed == expected


def test_removed_notes_are_reported_with_their_anki_id() -> None:
    first = update_manifest(None, deck_of(basic("a"), basic("b")), 1_000)
    second = update_manifest(first.manifest, deck_of(basic("b"), basic("c")), 2_000)
    assert [e.id for e in second.changes.removed] == ["a"]
    assert second.changes.removed[0].anki_id == first.manifest.notes["a"].anki_id
    assert "a" not in second.manifest.notes


def test_a_new_note_never_takes_the_id_of_a_removed_one() -> None:
    """A learner may still have the removed note; with a clock that stands still (a fixed
    SOURCE_DATE_EPOCH) the removed note's id would otherwise be given out again."""
    first = update_manifest(None, deck_of(basic("a"), basic("b")), 1_000)
    second = update_manifest(first.manifest, deck_of(basic("a")), 1_000)
    text = format_manifest(deck_of().deck, second.manifest)
    third = update_manifest(parse_manifest(text, "d.lock"), deck_of(basic("a"), basic("c")), 1_000)
    given = {e.anki_id for e in first.manifest.notes.values()}
    assert third.manifest.notes["c"].anki_id not in given
    assert third.changes.added == ("c",)


note_ids = st.lists(
    st.text(alphabet="abcXYZ019-_.é", min_size=1, max_size=8), unique=True, max_size=12
)


@given(note_ids, note_ids)
def test_removed_notes_keep_their_ids_and_lines(old_ids: list[str], new_ids: list[str]) -> None:
    """The notes gone from the deck, sorted, exactly as the lock file had them."""
    old = Manifest({}, {i: NoteEntry(i, k, "0" * 16, 5, k + 1) for k, i in enumerate(old_ids)})
    built = update_manifest(old, deck_of(*(basic(i) for i in new_ids)), 1_700_000_000)
    expected = tuple(e for i, e in sorted(old.notes.items()) if i not in new_ids)
    assert built.changes.removed == expected
    assert [e.line for e in built.changes.removed] == [e.line for e in expected]
    assert all(e.anki_id < built.manifest.next_anki_id for e in old.notes.values())


# The command line: only a successful build writes the lock file.


def test_build_reports_changes_and_commits_nothing_when_unchanged(
    project: Path, cli: CliRun
) -> None:
    for lock in LOCKS:  # the committed lock files
        assert (project / lock).read_bytes() == (ROOT / lock).read_bytes()
    result = cli("build")
    assert result.code == 0, result.err
    for lock in LOCKS:
        stale = f"{lock} is stale: run `deckbuilder build` and commit the lock file\n{result.out}"
        assert f"lock  {lock} (unchanged)" in result.out, stale
        assert (project / lock).read_bytes() == (ROOT / lock).read_bytes()
    unchanged = "since last build: 0 added, 0 changed, 0 removed, 14 unchanged"
    assert result.out.count(unchanged) == 2, result.out


def test_first_build_writes_the_lock(project: Path, cli: CliRun) -> None:
    (project / LOCK).unlink()
    result = cli("build")
    assert result.code == 0, result.err
    assert "first build: 14 notes added" in result.out
    assert f"lock  {LOCK} (updated; commit it with the card file)" in result.out
    assert f"lock  {LOCKS[1]} (unchanged)" in result.out
    assert len(re.findall(r"^note ", (project / LOCK).read_text(), re.MULTILINE)) == 14


def test_check_never_writes_the_lock(project: Path, cli: CliRun) -> None:
    source = project / "cards" / "gradient-checkpointing.yaml"
    source.write_text(source.read_text(encoding="utf-8").replace("역전파", "backprop", 1))
    before = (project / LOCK).read_bytes()
    assert cli("check").code == 0
    assert (project / LOCK).read_bytes() == before
    (project / LOCK).unlink()
    assert cli("check").code == 0
    assert not (project / LOCK).exists()


def test_failed_build_keeps_lock_and_package(project: Path, cli: CliRun) -> None:
    assert cli("build").code == 0
    before = ((project / LOCK).read_bytes(), (project / PACKAGE).read_bytes())
    source = project / "cards" / "gradient-checkpointing.yaml"
    text = source.read_text(encoding="utf-8")
    text = text.replace("역전파", "backprop", 1)  # a real change ...
    text = text.replace("answer: D", "answer: E", 1)  # ... and an error
    source.write_text(text, encoding="utf-8")
    result = cli("build")
    assert result.code == 1 and "nothing was written" in result.err
    assert ((project / LOCK).read_bytes(), (project / PACKAGE).read_bytes()) == before


def test_corrupt_lock_fails_the_build_with_its_line(project: Path, cli: CliRun) -> None:
    lock = project / LOCK
    text = lock.read_text(encoding="utf-8").replace("note tradeoff ", "note tradeoff x", 1)
    lock.write_text(text, encoding="utf-8")
    result = cli("build")
    assert result.code == 1
    assert re.match(rf"{re.escape(str(LOCK))}:\d+: cannot read this lock file line", result.err)
    assert lock.read_text(encoding="utf-8") == text and not (project / PACKAGE).exists()


def test_source_date_epoch_gives_identical_fresh_builds(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    outputs = []
    for _ in range(2):
        (project / LOCK).unlink()
        assert cli("build").code == 0
        outputs.append(((project / PACKAGE).read_bytes(), (project / LOCK).read_bytes()))
    assert outputs[0] == outputs[1]
    assert "2023-11-14T22:13:20Z" in outputs[0][1].decode()


def test_unchanged_rebuild_is_byte_identical_whatever_the_clock(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("build").code == 0
    first = (project / PACKAGE).read_bytes()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "2000000000")
    assert cli("build").code == 0
    assert (project / PACKAGE).read_bytes() == first
