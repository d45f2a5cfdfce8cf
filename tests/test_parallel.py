"""Reading a big card file in parts (deckbuilder.parallel) gives what reading it in one
piece gives, or declines (None) so that the caller reads it in one piece."""

from __future__ import annotations

import dataclasses
import itertools
import os
import signal
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder import parallel
from deckbuilder.errors import DeckError
from deckbuilder.identity import note_guids
from deckbuilder.load import load_deck_languages
from deckbuilder.manifest import note_hashes
from deckbuilder.pipeline import check
from deckbuilder.render import NoteKeys, RenderedDeck, render_deck

from .conftest import Run

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def note_yaml(i: int, indent: str = "  ") -> str:
    """One note of each kind in turn, with Markdown, a language map when bilingual."""
    kind = i % 3
    if kind == 0:
        body = [
            f"- id: q{i}",
            f"  question: What does **step {i}** return?",
            "  choices:",
            f"    - The *cached* value {i}",
            f"    - A `tensor` of size {i % 7}",
            "    - Nothing",
            f"  answer: {'ABC'[i // 3 % 3]}",
            f"  explanation: Step {i}; see the _docs_.",
        ]
    elif kind == 1:
        body = [f"- id: c{i}", f"  text: Fact {i} is {{{{c1::answer {i}}}}}.", "  extra: Remember."]
    else:
        body = [f"- id: b{i}", f"  front: Term {i}", f"  back: Definition {i}", "  tags: [t]"]
    return "".join(f"{indent}{line}\n" for line in body)


def deck_text(notes: int, indent: str = "  ", header: str = "") -> str:
    head = f'deck: "Parts"\nid: parts\ntags: [gen]\n{header}notes:\n'
    return head + "".join(note_yaml(i, indent) for i in range(notes))


def write(tmp_path: Path, text: str, name: str = "parts.yaml") -> Path:
    (tmp_path / "cards").mkdir(parents=True, exist_ok=True)
    (tmp_path / "media").mkdir(exist_ok=True)
    path = tmp_path / "cards" / name
    path.write_text(text, encoding="utf-8")
    return path


def in_one_piece(path: Path, lang: str | None = None) -> list[RenderedDeck]:
    media = path.parent.parent / "media"
    return [render_deck(d) for d in load_deck_languages(path, media, lang=lang)]


def assert_same(got: list[RenderedDeck], want: list[RenderedDeck]) -> None:
    assert got == want
    for g, w in zip(got, want, strict=True):
        # Equality of notes leaves out where each field was written: compare it too.
        assert [n.field_lines for n in g.deck.notes] == [n.field_lines for n in w.deck.notes]
        assert [n.line for n in g.deck.notes] == [n.line for n in w.deck.notes]
        assert [rn.note for rn in g.notes] == list(g.deck.notes)
        assert g.media == w.media and list(g.media) == list(w.media)


def in_parts(
    path: Path, jobs: int = 2, lang: str | None = None, keys: bool = False
) -> list[RenderedDeck] | None:
    got = parallel.read_in_parts(
        path, path.parent.parent / "media", lang=lang, jobs=jobs, min_part_notes=3, keys=keys
    )
    if got is None:
        return None
    decks, rendered = got
    assert [rd.deck for rd in rendered] == decks
    return rendered


@pytest.mark.parametrize("jobs", [2, 3, 5])
@pytest.mark.parametrize("indent", ["  ", "", "    "])
def test_parts_equal_one_piece(tmp_path: Path, jobs: int, indent: str) -> None:
    path = write(tmp_path, deck_text(40, indent))
    plan = parallel.plan_parts(path.read_text(), jobs, 3)
    assert plan is not None and len(plan.bounds) > jobs  # the last share cut smaller
    got = in_parts(path, jobs)
    assert got is not None
    assert_same(got, in_one_piece(path))


def test_plan_cuts_at_notes_and_numbers_their_lines() -> None:
    text = deck_text(12)
    plan = parallel.plan_parts(text, 3, 3)
    assert plan is not None
    lines = text.splitlines()
    for bound, part_lines in zip(plan.bounds[1:], plan.lines[1:], strict=True):
        assert text[bound:].startswith("  - id: ")
        assert part_lines[0] == text.count("\n", 0, bound) + 1
    all_lines = [n for part in plan.lines for n in part]
    assert all_lines == [i + 1 for i, line in enumerate(lines) if line.startswith("  - id: ")]
    assert text[: plan.header_end].endswith("notes:\n")


@pytest.mark.parametrize("parts", [2, 16, 40])
def test_last_parts_are_smaller(parts: int) -> None:
    """Equal shares, then parts that shrink towards the end (so that the processes run
    out of work close together), each with notes of its own."""
    text = deck_text(3000)
    plan = parallel.plan_parts(text, parts, 30)
    assert plan is not None
    sizes = [len(lines) for lines in plan.lines]
    assert sum(sizes) == 3000 and min(sizes) > 0
    share = 3000 / parts
    full = [size for size in sizes if size > share * 0.9]
    assert len(full) == max(parts - parallel.TAPER + 1, 0)
    assert sizes[: len(full)] == full  # the equal shares come first...
    tail = sizes[len(full) :]
    assert len(tail) >= 4
    assert tail[-1] < share / 2  # ...then smaller and smaller parts
    assert all(a >= b for a, b in itertools.pairwise(tail[:-3]))
    assert min(tail) >= share / parallel.TAPER_FLOOR * 0.8
    assert len(plan.bounds) <= parallel.MAX_PARTS


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (deck_text(3), "too few notes for two parts"),
        (deck_text(40).replace("notes:\n", "notes:   # the notes\n# a comment\n\n"), ""),
        (deck_text(40) + "description: after the notes\n", "notes is not the last key"),
        ("%YAML 1.1\n---\n" + deck_text(40), "a directive"),
        (deck_text(40) + "...\n", "a document end marker"),
        (deck_text(40).replace("notes:\n", "notes: # x\n  # y\nfoo: 1\n"), "a key under notes"),
        ("notes:\n" + deck_text(40).split("notes:\n")[1] + 'deck: "x"\n', "deck after notes"),
    ],
)
def test_plan_declines_shapes_it_does_not_understand(text: str, why: str) -> None:
    plan = parallel.plan_parts(text, 2, 3)
    if why:
        assert plan is None, why
    else:  # comments and blank lines above the first note are fine
        assert plan is not None


@pytest.mark.parametrize(
    "mutate",
    [
        # An anchor in the header used by a note in another part.
        lambda t: t.replace("tags: [gen]", "tags: &tags [gen]").replace(
            "  tags: [t]\n", "  tags: *tags\n", 1
        ),
        # The same note id in two parts (reading in one piece reports it).
        lambda t: t.replace("id: b38", "id: b2"),
        # A problem far down the file.
        lambda t: t.replace("answer: C", "answer: Z"),
        # A quoted text that runs over a line that looks like the start of a note.
        lambda t: t.replace(
            "  back: Definition 20\n", '  back: "Definition 20\n  - id: fake\n    x"\n'
        ),
        # A note that is not a mapping.
        lambda t: t.replace(
            "  - id: b35\n    front: Term 35\n", "  - just text\n  - id: b35\n    front: Term 35\n"
        ),
    ],
)
def test_parts_decline_or_agree(tmp_path: Path, mutate: Callable[[str], str]) -> None:
    path = write(tmp_path, mutate(deck_text(40)))
    assert parallel.plan_parts(path.read_text(), 2, 3) is not None or "fake" in path.read_text()
    assert in_parts(path) is None
    media = tmp_path / "media"
    try:
        want: object = check([path], media)
    except DeckError as exc:
        want = exc.problems
    try:
        got: object = check([path], media, jobs=2)
    except DeckError as exc:
        got = exc.problems
    assert got == want


def test_bilingual_deck_in_parts(tmp_path: Path) -> None:
    notes = "".join(
        f"  - id: n{i}\n    front: {{ko: 질문 {i}, en: Question {i}}}\n    back: Answer {i}\n"
        for i in range(30)
    )
    path = write(
        tmp_path, f"deck: {{ko: 한국어, en: English}}\nlanguages: [ko, en]\nnotes:\n{notes}"
    )
    for lang in (None, "en", "all"):
        got = in_parts(path, 3, lang)
        assert got is not None
        assert_same(got, in_one_piece(path, lang))


@pytest.mark.parametrize("lang", [None, "en"])
def test_keys_from_the_parts_are_what_the_whole_deck_gives(
    tmp_path: Path, lang: str | None
) -> None:
    """GUIDs and content hashes worked out part by part, images and languages included."""
    text = deck_text(40).replace("front: Term 2\n", "front: '![a](a.png)'\n")
    text = text.replace("front: Term 38\n", "front: '![b](b.png)'\n")
    if lang:
        text = text.replace("id: parts\n", "id: parts\nlanguages: [ko, en]\n").replace(
            "  extra: Remember.\n", "  extra: {ko: 기억하세요., en: Remember.}\n"
        )
    path = write(tmp_path, text)
    (tmp_path / "media" / "a.png").write_bytes(PNG)
    (tmp_path / "media" / "b.png").write_bytes(PNG + b"b")
    got = in_parts(path, keys=True, lang=lang)
    assert got is not None
    for rd, whole in zip(got, in_one_piece(path, lang), strict=True):
        assert whole.keys is None and rd.known_keys() == rd.keys
        assert rd.keys == NoteKeys(
            tuple(note_guids(whole.deck.key, [rn.note.id for rn in whole.notes])),
            note_hashes(whole),
        )
    plain = in_parts(path, lang=lang)  # not asked for
    assert plain is not None and all(rd.keys is None for rd in plain)


def test_keys_for_other_notes_are_not_used(tmp_path: Path) -> None:
    path = write(tmp_path, deck_text(40))
    got = in_parts(path, keys=True)
    assert got is not None and got[0].keys is not None
    fewer = dataclasses.replace(got[0], notes=got[0].notes[:-1])
    assert fewer.keys is not None and fewer.known_keys() is None
    same_count = dataclasses.replace(got[0], notes=tuple(reversed(got[0].notes)))
    assert same_count.keys is not None and same_count.known_keys() is None
    warned = dataclasses.replace(got[0], warnings=())  # the same notes: the keys hold
    assert warned.known_keys() is got[0].keys


def test_media_in_two_parts(tmp_path: Path) -> None:
    text = deck_text(40).replace("front: Term 2\n", "front: '![a](a.png)'\n")
    text = text.replace("front: Term 38\n", "front: '![b](a.png) and ![c](b.png)'\n")
    path = write(tmp_path, text)
    (tmp_path / "media" / "a.png").write_bytes(PNG)
    (tmp_path / "media" / "b.png").write_bytes(PNG)
    got = in_parts(path)
    assert got is not None
    assert list(got[0].media) == ["a.png", "b.png"]
    assert_same(got, in_one_piece(path))
    # Names that differ only in case, in different parts: read in one piece instead.
    (tmp_path / "media" / "B.png").write_bytes(PNG + b"x")
    path.write_text(text.replace("front: Term 5\n", "front: '![d](B.png)'\n"), encoding="utf-8")
    assert in_parts(path) is None


def test_a_failing_worker_means_one_piece(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, deck_text(40))

    parent = os.getpid()
    read = parallel._PartReader.__call__

    def broken(self: parallel._PartReader, i: int) -> object:
        if os.getpid() != parent:
            raise RuntimeError("worker failed")
        time.sleep(0.05)  # let the worker take (and fail on) a part
        return read(self, i)

    monkeypatch.setattr(parallel._PartReader, "__call__", broken)
    assert in_parts(path) is None
    # ...and check() still gives the whole deck.
    assert_same(check([path], tmp_path / "media", jobs=2), in_one_piece(path))


def test_processes_share_the_parts_each_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts are taken from one queue: every part but the first is read exactly once, by
    whichever process takes it, and a slower process takes fewer."""
    path = write(tmp_path, deck_text(40))
    log = tmp_path / "log"
    parent = os.getpid()
    read = parallel._PartReader.__call__

    def logged(self: parallel._PartReader, i: int) -> object:
        if os.getpid() == parent:
            time.sleep(0.05)  # a slow core
        with open(log, "a", encoding="utf-8") as out:  # one short write: whole lines
            out.write(f"{i} {'parent' if os.getpid() == parent else 'child'}\n")
        return read(self, i)

    monkeypatch.setattr(parallel._PartReader, "__call__", logged)
    got = in_parts(path)
    assert got is not None
    assert_same(got, in_one_piece(path))
    entries = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    parts = len(parallel.plan_parts(path.read_text(), 2 * parallel.PARTS_PER_JOB, 3).bounds)
    assert sorted(int(i) for i, _ in entries) == list(range(1, parts))
    by = [who for _, who in entries]
    assert by.count("child") > by.count("parent")


def test_block_scalars_comments_and_blank_lines(tmp_path: Path) -> None:
    note = textwrap.dedent(
        """\
          - id: n{i}
            front: |
              A literal block
              - id: not-a-note
              # not a comment
            back: >-
              folded

              text
        # a comment at the margin

          # an indented comment
        """
    )
    path = write(
        tmp_path, 'deck: "Blocks"\nnotes:\n' + "".join(note.format(i=i) for i in range(20))
    )
    got = in_parts(path, 3)
    assert got is not None
    assert_same(got, in_one_piece(path))
    assert "<li>id: not-a-note</li>" in got[0].notes[-1].fields[0]  # Markdown, not a note


# Building blocks for generated card files: notes written in the ways YAML allows.
_values = st.sampled_from(
    [
        "plain words",
        "'single quoted'",
        '"double\\n quoted"',
        "|\n      literal block\n      - id: not-a-note\n",
        ">-\n      folded\n\n      text\n",
        '"quoted over\n  - id: fake\n  lines"',
        "*emphasis* and `code`",
        "null",
        "[a, b]",
        "42",
        "|\n  - id: too-little-indent\n",
    ]
)


@st.composite
def card_files(draw: st.DrawFn) -> str:
    out = ['deck: "Generated"', "notes:"]
    for i in range(draw(st.integers(4, 14))):
        if draw(st.booleans()):
            out.append(draw(st.sampled_from(["", "# comment", "  # indented comment"])))
        kind = draw(st.sampled_from(["basic", "cloze"]))
        note_id = draw(st.sampled_from([f"n{i}", f"n{i}", f"n{i}", "n1"]))
        if kind == "basic":
            out.append(f"  - id: {note_id}")
            out.append(f"    front: {draw(_values)}")
            out.append(f"    back: {draw(_values)}")
        else:
            out.append(f"  - id: {note_id}")
            out.append(f"    text: {{{{c1::{draw(_values)}}}}}")
    if draw(st.booleans()):
        out.append(draw(st.sampled_from(["tags: [late]", "...", "  - id: last\n    front: x"])))
    return "\n".join(out) + "\n"


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=card_files(), jobs=st.integers(2, 4))
def test_generated_files_read_the_same_in_parts(tmp_path: Path, text: str, jobs: int) -> None:
    path = write(tmp_path, text)
    try:
        want: object = in_one_piece(path)
    except DeckError as exc:
        want = exc.problems
    got = in_parts(path, jobs)
    if got is not None:
        assert isinstance(want, list) and all(isinstance(rd, RenderedDeck) for rd in want)
        assert_same(got, want)


def test_build_with_jobs_writes_the_same_bytes(
    cli: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    text = deck_text(2 * parallel.MIN_PART_NOTES + 10)
    packages = []
    for jobs in ("1", "2"):
        folder = tmp_path / jobs
        path = write(folder, text)
        result = cli(
            "-q",
            "build",
            path,
            "--media",
            folder / "media",
            "--out",
            folder / "out",
            "--jobs",
            jobs,
            "--no-preview",
        )
        assert result.code == 0, result.err
        packages.append(
            ((folder / "out" / "parts.apkg").read_bytes(), (path.parent / "parts.lock").read_text())
        )
    assert parallel.read_in_parts(path, folder / "media", jobs=2) is not None  # in parts
    assert packages[0] == packages[1]


def test_jobs_must_be_positive(cli: Callable[..., Run], project: Path) -> None:
    result = cli("check", "--jobs", "0")
    assert result.code == 1
    assert "--jobs must be 1 or more, not 0" in result.err


def test_usable_cpus() -> None:
    assert 1 <= parallel.usable_cpus() <= (os.cpu_count() or 1)


def _where(arg: list[int]) -> tuple[int, int, bool]:
    return os.getpid(), sum(arg), "fractions" in sys.modules


def test_later_gives_what_calling_gives() -> None:
    parent = os.getpid()
    big = list(range(100_000))  # far more than a pipe holds at once
    job = parallel.Later(_where, prepare=lambda: __import__("fractions"), jobs=2)
    job.give(big)
    pid, total, prepared = job.result()
    assert pid != parent and total == sum(big)  # computed in another process...
    assert prepared  # ...after prepare() ran there
    inline = parallel.Later(_where, jobs=1)
    inline.give([1, 2])
    assert inline.result()[:2] == (parent, 3)


def test_later_failure_runs_it_here() -> None:
    parent = os.getpid()

    def only_here(arg: int) -> int:
        if os.getpid() != parent:
            os._exit(3)  # the child dies
        return arg + 1

    job = parallel.Later(only_here, jobs=2)
    job.give(6)
    assert job.result() == 7

    def broken(arg: int) -> int:
        raise ValueError("raised where it is asked for")

    job = parallel.Later(broken, jobs=2)
    job.give(1)
    with pytest.raises(ValueError, match="raised where"):
        job.result()


def _sigint_here(_: object) -> tuple[int, object]:
    return os.getpid(), signal.getsignal(signal.SIGINT)


@pytest.mark.parametrize("ignored", [False, True])
def test_forked_processes_keep_ctrl_c_ignored_if_the_parent_ignores_it(ignored: bool) -> None:
    """Under nohup or as a background job Ctrl-C is ignored: the children must not die
    of it while the parent goes on. Otherwise they die of it as a plain process does."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler)
    try:
        job = parallel.Later(_sigint_here, jobs=2)
        job.give(None)
        pid, handler = job.result()
    finally:
        signal.signal(signal.SIGINT, before)
    assert pid != os.getpid()
    assert handler == (signal.SIG_IGN if ignored else signal.SIG_DFL)


def test_later_cancelled_before_it_is_given_leaves_no_process() -> None:
    job = parallel.Later(_where, jobs=2)
    pid = job.pid
    assert pid
    job.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: not a zombie
    with pytest.raises(RuntimeError, match="before give"):
        job.result()


@pytest.mark.parametrize("brk", ["\r", "\x85", "\u2028", "\u2029"])
def test_other_line_breaks_mean_one_piece(tmp_path: Path, brk: str) -> None:
    # YAML counts these as line breaks; in the last note of the first part, a scan that
    # counts only '\n' would number every later note one line too early.
    text = deck_text(40)
    plan = parallel.plan_parts(text, 2, 3)
    assert plan is not None
    last = text.rindex("  - id: ", 0, plan.bounds[1])
    marked = text[:last] + text[last:].replace("\n", f" # x{brk}# y\n", 1)
    path = write(tmp_path, marked)
    assert parallel.plan_parts(marked, 2, 3) is None
    assert in_parts(path) is None
    assert_same(check([path], tmp_path / "media", jobs=2), in_one_piece(path))


def test_unreadable_file_is_reported_with_the_others(tmp_path: Path) -> None:
    good = write(tmp_path, deck_text(40).replace("  back: Definition 5\n", "", 1), "a.yaml")
    (good.parent / "b.yaml").write_bytes(b"deck: x\nnotes: \xff\n")
    problems = []
    for jobs in (1, 2):
        with pytest.raises(DeckError) as caught:
            check([good.parent], tmp_path / "media", jobs=jobs)
        problems.append(caught.value.problems)
    assert problems[0] == problems[1]
    assert {p.file for p in problems[0]} == {str(good), str(good.parent / "b.yaml")}
