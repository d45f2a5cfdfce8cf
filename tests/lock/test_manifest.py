"""The lock file: its format, its change rules, and who may write it."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.anki.notetypes import note_type
from deckbuilder.cli.output import problem_line
from deckbuilder.errors import DeckError
from deckbuilder.lock.format import (
    LAST_SECOND,
    MAX_ANKI_ID,
    Manifest,
    NoteEntry,
    NoteTypeEntry,
    format_manifest,
    parse_manifest,
)
from deckbuilder.lock.manifest import note_content_hash, update_manifest
from deckbuilder.model import BasicNote, Deck, NoteKind, TypedAnswer, TypedNote
from deckbuilder.render.deck import RenderedDeck, RenderedNote, render_deck
from tests.conftest import ROOT, Run

CliRun = Callable[..., Run]
# The bundled deck is bilingual: one lock file and one package per language.
LOCKS = [Path("cards") / f"gradient-checkpointing.{lang}.lock" for lang in ("ko", "en")]
LOCK = LOCKS[0]
PACKAGE = Path("output") / "gradient-checkpointing.ko.apkg"


def deck_of(*notes: BasicNote, tags: tuple[str, ...] = ()) -> RenderedDeck:
    return render_deck(Deck("d", "D", Path("cards/d.yaml"), notes, tags=tags))


def basic(note_id: str, front: str = "front", back: str = "back", **kw: object) -> BasicNote:
    return BasicNote(id=note_id, line=1, front=front, back=back, **kw)  # type: ignore[arg-type]


# Any token the reader splits out of a line: no spaces, no line breaks, no control characters.
tokens = st.text(st.characters(blacklist_categories=("C", "Z")), min_size=1, max_size=10)
field_names = st.text(
    st.characters(blacklist_categories=("C", "Z"), blacklist_characters=","), min_size=1
)
anki_ids = st.integers(1, MAX_ANKI_ID)
times = st.integers(0, LAST_SECOND)
decks = st.builds(
    lambda key, name: Deck(key, "D", Path("cards") / name),
    st.from_regex(r"[a-z0-9][a-z0-9_-]{0,10}(\.[a-z]{2})?", fullmatch=True),
    st.text(min_size=1).filter(lambda s: "/" not in s and "\0" not in s and s not in {".", ".."}),
)


@st.composite
def manifests(
    draw: st.DrawFn,
    note_ids: st.SearchStrategy[str] = tokens,
    ids: st.SearchStrategy[int] = anki_ids,
    when: st.SearchStrategy[int] = times,
) -> Manifest:
    """Any manifest the lock file can hold."""
    anki_hashes = st.just("") | st.from_regex(r"[0-9a-f]{16}", fullmatch=True)
    notes = draw(st.dictionaries(note_ids, st.tuples(ids, tokens, when, anki_hashes), max_size=8))
    kinds = draw(st.lists(st.sampled_from(list(NoteKind)), unique=True))
    fields = st.lists(field_names, min_size=1, max_size=4).map(tuple)
    return Manifest(
        {k: NoteTypeEntry(k, draw(ids), draw(fields), draw(tokens), draw(when)) for k in kinds},
        {
            k: NoteEntry(k, anki, content, at, anki=copy)
            for k, (anki, content, at, copy) in notes.items()
        },
        draw(st.integers(0, MAX_ANKI_ID + 1) | st.sampled_from([0, MAX_ANKI_ID + 1])),
    )


@given(manifests(), decks)
def test_any_valid_lock_round_trips(manifest: Manifest, deck: Deck) -> None:
    """The writer never writes a line its own reader rejects, or reads back otherwise."""
    text = format_manifest(deck, manifest)
    parsed = parse_manifest(text, "d.lock")
    assert parsed == manifest and not parsed.warnings
    assert parsed.header is not None and parsed.header.key == deck.key
    assert format_manifest(deck, parsed) == text


_WORDS = [
    *("version", "1", "note", "notetype", "next-anki-id", "mcq", "cloze", "Front,Back"),
    *("0", "-1", "+5", "²", "١٢٣", str(MAX_ANKI_ID), str(MAX_ANKI_ID + 1), str(2**63), "9" * 5000),
    *("1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
    *("0000-01-01T00:00:00Z", "2023-02-30T00:00:00Z", "2023-1-1T0:0:0Z"),
    *("<<<<<<<", "=======", ">>>>>>>", "|||||||", "#", "\u2028", "\x1f", "\r"),
]
lock_lines = st.one_of(
    st.text(max_size=30),
    st.just("version 1"),
    st.lists(st.sampled_from(_WORDS) | st.text(max_size=4), max_size=7).map(" ".join),
)


@given(st.lists(lock_lines, max_size=12).map("\n".join))
def test_any_text_reads_as_a_lock_or_fails_with_problems(text: str) -> None:
    """Never another exception: whatever is in the file, the build says what is wrong."""
    try:
        manifest = parse_manifest(text, "d.lock")
    except DeckError as exc:
        assert exc.problems and all(p.file == "d.lock" for p in exc.problems)
        return
    assert format_manifest(Deck("d", "D", Path("cards/d.yaml")), manifest)


edge_ids = st.sampled_from([1, 2, MAX_ANKI_ID - 1, MAX_ANKI_ID]) | anki_ids
edge_times = st.sampled_from([0, 1, LAST_SECOND - 1, LAST_SECOND]) | times


@given(
    manifests(st.sampled_from("abcde"), edge_ids, edge_times),
    st.lists(st.sampled_from("abcdef"), unique=True, max_size=6),
    edge_times,
)
@settings(deadline=None)
def test_a_build_writes_only_what_it_reads_back(old: Manifest, ids: list[str], now: int) -> None:
    """Whatever a readable lock file holds and whatever the clock, a build either fails with
    the lines at fault or writes a lock file its reader reads back, one note per Anki id."""
    rd = deck_of(*(basic(i) for i in ids))
    lock = "cards/d.lock"
    old = parse_manifest(format_manifest(rd.deck, old), lock)
    try:
        update = update_manifest(old, rd, now)
    except DeckError as exc:
        assert all(p.file == lock and p.line for p in exc.problems), exc
        return
    new = update.manifest
    assert parse_manifest(format_manifest(rd.deck, new), lock) == new
    given_ids = [entry.anki_id for entry in new.notes.values()]
    assert len(set(given_ids)) == len(given_ids)
    assert all(new.notes[i].anki_id >= old.id_floor() for i in update.changes.added)
    assert {entry.anki_id for entry in update.changes.removed}.isdisjoint(given_ids)
    assert new.id_floor() >= old.id_floor()


def test_a_change_after_the_end_of_9999_is_located_not_a_crash() -> None:
    """Anki updates a note only for a strictly later time, and lock file times end at
    9999-12-31T23:59:59Z: a note last changed then cannot change again."""
    first = update_manifest(None, deck_of(basic("a"), basic("b")), LAST_SECOND)
    old = parse_manifest(format_manifest(deck_of().deck, first.manifest), "cards/d.lock")
    with pytest.raises(DeckError) as caught:
        update_manifest(old, deck_of(basic("a", back="new"), basic("b")), LAST_SECOND)
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.note) == ("cards/d.lock", 10, "a")
    assert problem.message.startswith("last changed at 9999-12-31T23:59:59Z:")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (f"version 1\nnext-anki-id 1\nnote a {MAX_ANKI_ID} {'0' * 16} 1970-01-01T00:00:00Z\n", 3),
        (
            f"version 1\nnext-anki-id {MAX_ANKI_ID + 1}\nnote a 1 {'0' * 16} 1970-01-01T00:00:00Z\n",
            2,
        ),
    ],
)
def test_no_id_left_for_a_new_note_is_located_not_a_crash(text: str, line: int) -> None:
    old = parse_manifest(text, "cards/d.lock")
    with pytest.raises(DeckError) as caught:
        update_manifest(old, deck_of(basic("a"), basic("b")), 1_000)
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == ("cards/d.lock", line)
    assert "which leaves none for new notes" in problem.message


@pytest.mark.parametrize("now", [-1, LAST_SECOND + 1])
def test_a_build_time_outside_1970_to_9999_is_a_programming_error(now: int) -> None:
    with pytest.raises(ValueError, match="outside 1970 to 9999"):
        update_manifest(None, deck_of(basic("a")), now)


def test_adding_notes_leaves_the_next_anki_id_line_as_it_is() -> None:
    """Two branches that add notes must not both change one line (git would conflict);
    only a note that leaves the lock file raises it."""
    first = update_manifest(None, deck_of(basic("a"), basic("b")), 1_000)
    assert first.manifest.next_anki_id == 1_000_002  # a first build: above its ids
    added = update_manifest(first.manifest, deck_of(basic("a"), basic("b"), basic("c")), 2_000)
    assert added.manifest.notes["c"].anki_id == 2_000_000
    assert added.manifest.next_anki_id == 1_000_002
    removed = update_manifest(added.manifest, deck_of(basic("a"), basic("b")), 3_000)
    assert removed.manifest.next_anki_id == 2_000_001
    again = update_manifest(removed.manifest, deck_of(basic("a"), basic("d")), 3_000)
    assert again.manifest.notes["d"].anki_id == 3_000_000
    assert again.manifest.next_anki_id == 2_000_001  # b is gone too, but below the line


def test_lock_is_plain_sorted_text() -> None:
    update = update_manifest(None, deck_of(basic("b"), basic("a")), 1_700_000_000)
    text = format_manifest(deck_of(basic("a")).deck, update.manifest)
    lines = [line for line in text.splitlines() if line.startswith("note ")]
    assert [line.split()[1] for line in lines] == ["a", "b"]
    assert lines[0].split()[4] == "2023-11-14T22:13:20Z"
    assert re.fullmatch(r"[0-9a-f]{16}", lines[0].split()[5])  # the hash of Anki's copy
    assert "notetype basic 2152878658763882 Front,Back " in text


def test_a_version_1_lock_file_is_read_and_its_notes_have_no_anki_copy_yet() -> None:
    """Lock files written before pull have no ANKI-HASH column: they are read (a pull then
    asks for a build first), and the next build writes version 2 with the column."""
    old = parse_manifest("version 1\nnote a 1 abc 2023-11-14T22:13:20Z\n", "d.lock")
    assert old.notes["a"].anki == ""
    deck = deck_of(basic("a"))
    update = update_manifest(old, deck, 1_800_000_000)
    entry = update.manifest.notes["a"]
    assert entry.anki and entry.changed == 1_800_000_000  # its content hash was "abc"
    text = format_manifest(deck.deck, update.manifest)
    assert "\nversion 2\n" in text
    assert text.rstrip().endswith(f" {entry.anki}")


def test_an_unchanged_note_keeps_the_anki_copy_a_pull_recorded() -> None:
    deck = deck_of(basic("a"))
    first = update_manifest(None, deck, 1_800_000_000).manifest
    pulled = dataclasses.replace(
        first, notes={"a": dataclasses.replace(first.notes["a"], anki="0123456789abcdef")}
    )
    again = update_manifest(pulled, deck, 1_900_000_000).manifest
    assert again.notes["a"] == pulled.notes["a"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("version 1\nnote a 1 abc\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a 1 abc 2023-13-01T00:00:00Z\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a x abc 2023-11-14T22:13:20Z\n", 2, "cannot read this lock file line"),
        ("version 1\nnotetype Quiz! 1 A a 2023-11-14T22:13:20Z\n", 2, "cannot read"),
        ("version 1\nnote a 1 abc 2023-11-14T22:13:20\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a 1 abc 2023-11-14T22:13:20Z extra\n", 2, "cannot read"),
        ("version 1\nnote\n", 2, "cannot read this lock file line"),
        ("version 1\nnext-anki-id x\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a ² abc 1970-01-01T00:00:00Z\n", 2, "cannot read this lock file"),
        ("version 1\nnote a 1 abc 2023-1-1T0:0:0Z\n", 2, "cannot read this lock file line"),
        ("version 1\nnote a 1 abc 0000-01-01T00:00:00Z\n", 2, "cannot read this lock file"),
        ("version 3\n", 1, "lock file version 3 is not supported"),
        ("note a 1 abc 2023-11-14T22:13:20Z\n", None, "not a deckbuilder lock file"),
    ],
)
def test_malformed_lock_lines_are_located(text: str, line: int | None, message: str) -> None:
    with pytest.raises(DeckError) as caught:
        parse_manifest(text, "cards/d.lock")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == ("cards/d.lock", line)
    assert message in problem.message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("note a 0 abc 1970-01-01T00:00:00Z", "Anki note id 0 is out of range"),
        ("note a -1 abc 1970-01-01T00:00:00Z", "Anki note id -1 is out of range"),
        (f"note a {2**53} abc 1970-01-01T00:00:00Z", f"Anki note id {2**53} is out of range"),
        (f"note a {2**63} abc 1970-01-01T00:00:00Z", "Anki note id 9223372036854775808 is"),
        pytest.param(
            "note a " + "9" * 5000 + " x 1970-01-01T00:00:00Z", "Anki note id 999", id="long"
        ),
        (f"notetype basic {2**53} Front,Back ab 1970-01-01T00:00:00Z", "note type id 9007"),
        (f"next-anki-id {2**53 + 1}", "next-anki-id 9007199254740993 is out of range"),
        ("next-anki-id -1", "next-anki-id -1 is out of range"),
        ("note a 1 abc 1969-12-31T23:59:59Z", "time 1969-12-31T23:59:59Z is outside 1970"),
    ],
)
def test_values_out_of_range_are_located(line: str, message: str) -> None:
    """Anki's clients hold ids as JavaScript numbers (exact up to 2**53 - 1), far below
    SQLite's 2**63 - 1; the lock file's times are 1970 to 9999."""
    with pytest.raises(DeckError) as caught:
        parse_manifest(f"version 1\n{line}\n", "cards/d.lock")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == ("cards/d.lock", 2)
    assert problem.message.startswith(message)
    assert "restore the file from version control" in problem.message
    assert len(str(problem)) < 300


def test_values_at_the_ends_of_their_range_are_read() -> None:
    text = (
        f"version 1\nnext-anki-id {2**53}\nnote a {2**53 - 1} x 9999-12-31T23:59:59Z\n"
        "note b 1 x 1970-01-01T00:00:00Z\n"
    )
    manifest = parse_manifest(text, "d.lock")
    assert manifest.next_anki_id == 2**53
    assert manifest.notes["a"] == NoteEntry("a", 2**53 - 1, "x", LAST_SECOND)
    assert manifest.notes["b"] == NoteEntry("b", 1, "x", 0)


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


def test_a_note_whose_type_changes_is_warned_once() -> None:
    """Issue 32: Anki's normal import keeps a note whose note type changed under the same
    id (tests/lock/test_reimport.py shows it); the build says so where the note is. The
    lock file does not record each note's type: a note whose type no note had before is
    the change it can know."""
    first = update_manifest(None, deck_of(basic("a"), basic("b")), 1_000)
    retyped = TypedNote(id="a", line=7, question="q", answers=(TypedAnswer(text="x"),))
    rd = render_deck(Deck("d", "D", Path("cards/d.yaml"), (retyped, basic("b"))))
    second = update_manifest(first.manifest, rd, 2_000)
    assert second.changes.changed == ("a",)
    (warning,) = second.warnings
    assert (warning.file, warning.line, warning.note) == ("cards/d.yaml", 7, "a")
    assert "changed its note type (now 'deckbuilder Typed Answer')" in warning.message
    assert '"Merge note types"' in warning.message and "a new id" in warning.message
    edited = dataclasses.replace(retyped, question="q2")
    rd = render_deck(Deck("d", "D", Path("cards/d.yaml"), (edited, basic("b"))))
    third = update_manifest(second.manifest, rd, 3_000)
    assert third.changes.changed == ("a",) and third.warnings == ()


def test_a_content_change_is_no_type_change() -> None:
    first = update_manifest(None, deck_of(basic("a")), 1_000)
    second = update_manifest(first.manifest, deck_of(basic("a", back="new")), 2_000)
    assert second.changes.changed == ("a",) and second.warnings == ()


def test_a_note_type_with_a_new_id_is_warned_at_its_lock_line() -> None:
    """A new id for a kind's note type (fields renamed, as a new version) moves every note
    of that kind to another note type: each is conflicting on a normal import."""
    rd = deck_of(basic("a"))
    first = update_manifest(None, rd, 1_000)
    text = format_manifest(rd.deck, first.manifest)
    old = parse_manifest(text, "cards/d.lock")
    (rn,) = rd.notes
    spec = dataclasses.replace(rn.spec, id=rn.spec.id + 1, fields=("Prompt", "Response"))
    moved = dataclasses.replace(rd, notes=(dataclasses.replace(rn, spec=spec),))
    second = update_manifest(old, moved, 2_000)
    (warning,) = second.warnings
    line = text.splitlines().index(next(t for t in text.splitlines() if t.startswith("notetype")))
    assert (warning.file, warning.line) == ("cards/d.lock", line + 1)
    assert f"now have note type 'deckbuilder Basic' (id {spec.id}" in warning.message
    assert f"not id {rn.spec.id} (fields Front, Back)" in warning.message


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


def renamed_warnings(before: RenderedDeck, after: RenderedDeck) -> list[str]:
    first = update_manifest(None, before, 1_000)
    return [problem_line(w) for w in update_manifest(first.manifest, after, 2_000).warnings]


def test_a_renamed_note_is_a_warning_with_what_to_do() -> None:
    before = deck_of(basic("a", "one"), basic("b", "two"))
    after = deck_of(basic("a", "one"), dataclasses.replace(basic("b2", "two"), line=7))
    assert renamed_warnings(before, after) == [
        "cards/d.yaml:7: note 'b2': warning [renamed]: looks like 'b' was renamed to 'b2'; its review "
        "history stays with the old id. To keep it, change the id back to 'b' (unless "
        "learners already have 'b2')"
    ]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # Renamed and edited: not the same content.
        (["a:one"], ["b:one, edited"], []),
        # Removed and added with different content.
        (["a:one", "b:two"], ["a:one", "c:three"], []),
        # Two old ids or two new ids with that content: no telling which became which.
        (["a:x", "b:x"], ["c:x"], []),
        (["a:x"], ["b:x", "c:x"], []),
        # Content also kept by a note that stays does not matter.
        (["a:x", "b:x"], ["a:x", "c:x"], [("c", "b")]),
        # Two renames at once, in the order of the deck.
        (["a:one", "b:two"], ["z:two", "y:one"], [("z", "b"), ("y", "a")]),
        # Nothing gone, nothing added.
        (["a:one"], ["a:one"], []),
    ],
)
def test_only_a_note_whose_content_moved_to_one_new_id_looks_renamed(
    before: list[str], after: list[str], expected: list[tuple[str, str]]
) -> None:
    def deck(notes: list[str]) -> RenderedDeck:
        return deck_of(*(basic(i, front) for i, front in (n.split(":") for n in notes)))

    found = [
        re.match(r".*note '(.+)': warning \[renamed\]: looks like '(.+)' was renamed", w)
        for w in renamed_warnings(deck(before), deck(after))
    ]
    assert [(m.group(1), m.group(2)) for m in found if m] == expected
    assert len(found) == len(expected)


def test_changing_the_id_back_warns_the_other_way() -> None:
    """The lock file forgets a removed id, so going back to it looks like a rename as well;
    the message says when to ignore it."""
    first = update_manifest(None, deck_of(basic("a")), 1_000)
    renamed = update_manifest(first.manifest, deck_of(basic("b")), 2_000)
    back = update_manifest(renamed.manifest, deck_of(basic("a")), 3_000)
    (warning,) = back.warnings
    assert "looks like 'b' was renamed to 'a'" in warning.message
    assert warning.message.endswith("(unless learners already have 'a')")


def traded_warnings(before: list[str], after: list[str]) -> list[str]:
    """The warnings of a rebuild from notes ``id:front`` to others (each on its own line)."""

    def deck(notes: list[str]) -> RenderedDeck:
        pairs = (n.split(":") for n in notes)
        notes = (basic(i, front) for i, front in pairs)
        return deck_of(*(dataclasses.replace(note, line=n) for n, note in enumerate(notes, 1)))

    first = update_manifest(None, deck(before), 1_000)
    return [problem_line(w) for w in update_manifest(first.manifest, deck(after), 2_000).warnings]


def test_two_notes_that_traded_ids_are_a_warning_with_what_to_do() -> None:
    """Swapping two notes' ids while their text stays moved each review history to the
    other question with nothing said but "2 changed" (issue 45)."""
    assert traded_warnings(["a:one", "b:two", "c:three"], ["a:two", "b:one", "c:three"]) == [
        "cards/d.yaml:1: note 'a': warning [traded]: notes 'a' and 'b' (line 2) traded contents "
        "('a' now has what 'b' had, and 'b' what 'a' had), as when their ids are swapped. "
        "Anki knows a note by its id: each note keeps its review history and takes the "
        "other's text, so learners get '2 updated' and each history now schedules the other "
        "question. To keep each history with its question, swap the ids back and build again"
    ]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # Three notes passing their contents round are told once.
        (["a:1", "b:2", "c:3"], ["a:2", "b:3", "c:1"], ["a"]),
        # Two swaps, two warnings.
        (["a:1", "b:2", "c:3", "d:4"], ["a:2", "b:1", "c:4", "d:3"], ["a", "c"]),
        # One note took another's text, which got new text: an edit, not a trade.
        (["a:1", "b:2"], ["a:2", "b:new"], []),
        # Two notes with the same text: no telling which went where.
        (["a:1", "b:1", "c:2"], ["a:2", "b:1", "c:1"], []),
        # Edited, not swapped.
        (["a:1", "b:2"], ["a:1 edited", "b:2 edited"], []),
    ],
)
def test_only_notes_whose_contents_went_round_are_told(
    before: list[str], after: list[str], expected: list[str]
) -> None:
    found = [
        re.match(r".*note '(.+)': warning \[traded\]: notes", w)
        for w in traded_warnings(before, after)
    ]
    assert [m.group(1) for m in found if m] == expected
    assert len(found) == len(expected)


def test_notes_that_passed_their_contents_round_are_all_named() -> None:
    (warning,) = traded_warnings(["a:1", "b:2", "c:3"], ["a:2", "b:3", "c:1"])
    assert warning.startswith(
        "cards/d.yaml:1: note 'a': warning [traded]: notes 'a', 'b' (line 2) and 'c' (line 3) traded "
        "contents ('a' now has what 'b' had, 'b' what 'c' had, and 'c' what 'a' had), as when "
        "ids are passed round."
    )
    assert warning.endswith("give each note its id back and build again")


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
    assert all(e.anki_id < built.manifest.id_floor() for e in old.notes.values())
    assert all(e.anki_id < built.manifest.next_anki_id for e in built.changes.removed)


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


@pytest.mark.parametrize(
    "value", ["-1", "253402300800", "99999999999999999999", "9" * 5000, "²", "١٢٣", "1.5", "1e9"]
)
def test_source_date_epoch_outside_1970_to_9999_is_refused(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    result = cli("build", "--no-preview")
    assert result.code == 1, result.err
    (line,) = result.err.splitlines()
    assert line.startswith("Error: SOURCE_DATE_EPOCH: must be whole seconds from 0 (1970) to ")
    assert len(line) < 200 and not (project / PACKAGE).exists()


@pytest.mark.parametrize(
    ("value", "stamp"), [("0", "1970-01-01T00:00:00Z"), ("00253402300799", "9999-12-31T23:59:59Z")]
)
def test_source_date_epoch_at_the_ends_of_its_range_builds(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, value: str, stamp: str
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    (project / LOCK).unlink()
    result = cli("build", "--no-preview")
    assert result.code == 0, result.err
    assert f" {stamp}\n" in (project / LOCK).read_text(encoding="utf-8")
