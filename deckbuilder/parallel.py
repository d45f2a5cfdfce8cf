"""Big card files read on several cores: the same result as reading them in one piece.

A card file with thousands of notes is cut into parts at the start of notes in its
``notes:`` list, several parts per process. This process reads the first part (with
everything above ``notes:``); forked processes and this one then take the other parts in
turn from a shared queue, so a slower core simply reads fewer parts. Each part is parsed,
validated and rendered; a forked process sends each part's rendered notes back as soon as
it has them, and this process takes them in between its own parts. The parts are then
joined, in file order, into one RenderedDeck per language.

The cut is found by scanning lines, so it is checked against what the parser made of each
part: every part must parse on its own, its notes must start exactly on the lines the
scan found, and no part may use YAML anchors or aliases. Anything else (a problem or a
warning in any part, a note id or a media name in two parts, a platform without fork)
gives ``None``, and the caller reads the file in one piece, which then reports exactly
what it always reports. Reading in parts is therefore only ever a faster way to the same
result, and tests compare the two.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import re
import signal
import struct
import sys
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain, repeat
from operator import attrgetter, is_
from pathlib import Path
from typing import Generic, TypeVar, cast

from .errors import DeckError
from .identity import note_guids
from .load import MAX_NOTES, decks_from_tree, read_text
from .manifest import note_hashes
from .model import Deck, Note, NoteCounts, NoteKind
from .notetypes import note_type
from .progress import reporting, step
from .render import NoteKeys, RenderedDeck, RenderedNote, render_deck
from .yamlsource import YMap, YSeq, YValue, parse_part

__all__ = ["MIN_PART_NOTES", "Later", "plan_parts", "read_in_parts", "usable_cpus"]

A = TypeVar("A")
T = TypeVar("T")

# Below this many notes per part, a part's fixed costs (reading the deck's header, a
# message between processes) outweigh what sharing it out saves.
MIN_PART_NOTES = 2_000
# Parts per process: enough that the processes finish close together when one core is
# slower than another (as virtual machines' often are), few enough to keep the fixed costs
# small. Part numbers travel as single bytes, hence the cap.
PARTS_PER_JOB = 8
MAX_PARTS = 255
# The last parts are smaller (see plan_parts): a part is at most 1/TAPER of the text left
# after the one before it, and at least 1/TAPER_FLOOR of an equal share.
TAPER = 4
TAPER_FLOOR = 8

# Patterns over "\n" + text + "\n", so that each match starts at the "\n" before a line:
# its offset there is the line's offset in the text.
_NOTES_KEY = re.compile(r"\nnotes:[ \t]*(?:#[^\n]*)?\n")
_DOCUMENT_MARK = re.compile(r"\n(?:---|\.\.\.)[ \t\n]|\n%")
_BLANK_OR_COMMENT = re.compile(r"[ \t]*(?:#.*)?")
_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Plan:
    """Where to cut a card file: ``bounds[i]`` is the offset where part ``i`` starts (the
    first part starts at 0, with the deck's header), ``lines[i]`` the line numbers of the
    notes that start in part ``i``."""

    header_end: int  # offset of the first note: the header is text[:header_end]
    bounds: tuple[int, ...]
    lines: tuple[tuple[int, ...], ...]

    def part(self, text: str, i: int) -> str:
        end = self.bounds[i + 1] if i + 1 < len(self.bounds) else len(text)
        return text[self.bounds[i] : end]


def plan_parts(text: str, parts: int, min_part_notes: int = MIN_PART_NOTES) -> Plan | None:
    """Cut points for up to ``parts`` equal shares of at least ``min_part_notes`` notes
    each, the last shares cut into smaller and smaller parts (see below), or None when
    the file is small or its shape is not the plain one this scan understands:
    one ``notes:`` key at the left margin, the last key of the file, with a block list of
    notes under it, and no YAML directives or document markers."""
    if parts < 2:
        return None
    # YAML counts these as line breaks; the scan would not. (Four substring searches take
    # a tenth of the time of one search for a character class.)
    if any(brk in text for brk in _OTHER_BREAKS):
        return None
    lines = f"\n{text}\n"
    found = list(_NOTES_KEY.finditer(lines))
    if len(found) != 1 or _DOCUMENT_MARK.search(lines):
        return None
    body = found[0].end() - 1  # the line after 'notes:'
    if body >= len(text):
        return None
    # The first line under 'notes:' that is not blank or a comment must start a note.
    offset = body
    indent = ""
    while offset < len(text):
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end
        line = text[offset:end]
        if not _BLANK_OR_COMMENT.fullmatch(line):
            match = re.match(r"( *)-(?:[ \t]|$)", line)
            if match is None:
                return None
            indent = match.group(1)
            break
        offset = end + 1
    else:
        return None
    header_end = offset
    # Every later line at or left of the notes' indent must start a note (or be blank or a
    # comment): anything else means the list ended and another key follows.
    other = re.compile(rf"\n(?!{indent}-[ \t\n]) {{0,{len(indent)}}}[^ \t\n#]")
    if other.search(lines, header_end):
        return None
    item = re.compile(rf"\n{indent}-[ \t\n]")
    starts = [m.start() for m in item.finditer(lines, header_end)]
    count = min(parts, len(starts) // min_part_notes)
    if count < 2:
        return None
    # Cut near equal shares of the text, each at the start of a note. Parts are taken in
    # order, and the processes finish close together only if the last parts are small:
    # once less than TAPER shares are left, each part is 1/TAPER of what is left, down to
    # 1/TAPER_FLOOR of a share (a part's fixed cost is about 0.1 ms).
    share = (len(text) - header_end) / count
    bounds = [0]
    chosen = 0
    target = float(header_end)
    while len(bounds) < MAX_PARTS:
        left = len(text) - target
        size = max(min(share, left / TAPER), share / TAPER_FLOOR)
        if left - size < share / TAPER_FLOOR - 1:  # the rest makes the last part
            break
        target += size
        # The last start at or before the target (not before the previous cut).
        chosen = max(chosen, bisect_right(starts, int(target)) - 1)
        if starts[chosen] <= bounds[-1]:
            if size == share:  # a note longer than a share: read in one piece
                return None
            continue  # a small part with no note of its own: try a bigger one
        bounds.append(starts[chosen])
    # The line of each start: 1 + the line breaks before it, counted from one start to the
    # next in C (map, accumulate): this runs before the other processes start.
    breaks = map(text.count, itertools.repeat("\n"), [0, *starts[:-1]], starts)
    numbers = list(itertools.accumulate(breaks, initial=1))[1:]
    # Each part's notes: the starts from its bound to the next (starts are in order).
    firsts = [bisect_left(starts, bound) for bound in bounds] + [len(starts)]
    line_of = tuple(tuple(numbers[a:b]) for a, b in itertools.pairwise(firsts))
    return Plan(header_end, tuple(bounds), line_of)


@dataclass(frozen=True)
class _PartDeck:
    """One language's share of a part: its rendered notes, their source notes (in the same
    order) and ids, the media they use, their GUIDs and content hashes (if asked for) and
    their counts (Deck.counts()). Everything the join needs is here, worked out while the
    processes still share the reading, not after."""

    notes: tuple[RenderedNote, ...]
    sources: tuple[Note, ...]
    ids: frozenset[str]
    media: dict[str, Path]
    keys: NoteKeys | None
    counts: dict[NoteKind, tuple[int, int]]


# What reading a part gives: per language (in the order decks_from_tree gives them) its
# share of the deck.
_PartResult = list[_PartDeck]

# A RenderedNote's attributes, in order: _Packed carries each of them (a test checks that
# these are all there are).
_RENDERED_NOTE_FIELDS = ("note", "spec", "fields", "tags", "media")


def _consume(calls: Iterator[object]) -> None:
    """Run the calls a ``map`` makes (for their effect), keeping none of the results."""
    deque(calls, maxlen=0)


@dataclass(frozen=True)
class _Packed:
    """A :class:`_PartDeck` in the form a forked reader sends it, cheaper to pickle and to
    unpickle in this process, whose time is what a build waits for.

    Source notes are pickled as they are: unpickling builds them in C about as fast as
    anything written here could (measured). Around them, each RenderedNote would cost
    an object, a dictionary of its state made only to be copied and opcodes for each
    attribute's name, and each part would bring its own copy of the note types
    (templates and CSS): here the rendered notes' fields, tags and media travel as three
    lists, and this process rebuilds the RenderedNotes with ``map`` and ``zip`` (loops
    that run in C), from their attributes without calling ``__init__`` (as pickle does),
    with its own note types (note_type), as when it renders notes itself."""

    sources: tuple[Note, ...]
    fields: list[tuple[str, ...]]
    tags: list[tuple[str, ...]]
    note_media: list[tuple[str, ...]]
    ids: frozenset[str]
    media: dict[str, Path]
    keys: tuple[tuple[str, ...], tuple[str, ...]] | None  # guids, hashes
    counts: dict[NoteKind, tuple[int, int]]

    @classmethod
    def pack(cls, part: _PartDeck) -> _Packed:
        notes = part.notes
        specs = {kind: note_type(kind) for kind in NoteKind}
        if any(rn.spec is not specs[rn.note.kind] for rn in notes):  # see unpack()
            raise _NotSplittable
        return cls(
            part.sources,
            [rn.fields for rn in notes],
            [rn.tags for rn in notes],
            [rn.media for rn in notes],
            part.ids,
            part.media,
            None if part.keys is None else (part.keys.guids, part.keys.hashes),
            part.counts,
        )

    def unpack(self) -> _PartDeck:
        new, set_attribute = object.__new__, object.__setattr__
        sources = self.sources
        specs = {kind: note_type(kind) for kind in NoteKind}
        values = zip(
            sources,
            map(specs.__getitem__, map(_kind, sources)),
            self.fields,
            self.tags,
            self.note_media,
            strict=True,
        )
        rendered = tuple(map(new, repeat(RenderedNote, len(sources))))
        states = map(dict, map(zip, repeat(_RENDERED_NOTE_FIELDS), values))
        _consume(map(set_attribute, rendered, repeat("__dict__"), states))
        keys = None if self.keys is None else NoteKeys(*self.keys, rendered)
        return _PartDeck(rendered, sources, self.ids, self.media, keys, self.counts)


_kind = attrgetter("kind")
_note_of = attrgetter("note")


def _note_lines(seq: YSeq) -> tuple[int, ...]:
    return tuple(item.line for item in seq.items)


def _notes_entry(tree: YValue | None) -> tuple[int, YValue] | None:
    """(line of the key, value) of ``notes:`` if it is the tree's last key, else None."""
    if not isinstance(tree, YMap) or not tree.entries:
        return None
    key, entry = next(reversed(tree.entries.items()))
    return entry if key == "notes" else None


class _NotSplittable(Exception):
    """The file cannot be read in parts as planned; read it in one piece."""


def _render_part(
    path: Path,
    tree: YValue | None,
    media_dir: Path | None,
    lang: str | None,
    fallback: bool,
    keys: bool,
) -> tuple[list[Deck], list[RenderedDeck]]:
    try:
        decks = decks_from_tree(path, tree, media_dir, lang, fallback)
        rendered = [render_deck(deck) for deck in decks]
    except DeckError:
        raise _NotSplittable from None
    if any(rd.warnings for rd in rendered):
        raise _NotSplittable
    if keys:
        rendered = [replace(rd, keys=_note_keys(rd)) for rd in rendered]
    return decks, rendered


def _note_keys(rd: RenderedDeck) -> NoteKeys:
    guids = note_guids(rd.deck.key, [rn.note.id for rn in rd.notes])
    return NoteKeys(tuple(guids), note_hashes(rd), rd.notes)


def _share(rd: RenderedDeck) -> _PartDeck:
    sources = rd.deck.notes
    # render_deck gives one RenderedNote per note, in order: the join relies on it.
    if len(sources) != len(rd.notes) or not all(map(is_, map(_note_of, rd.notes), sources)):
        raise _NotSplittable
    ids = frozenset([note.id for note in sources])
    return _PartDeck(rd.notes, sources, ids, rd.media, rd.keys, rd.deck.counts())


class _PartReader:
    """Reads parts other than the first: each is parsed, validated and rendered under the
    deck's header (parsed once)."""

    def __init__(
        self,
        path: Path,
        text: str,
        plan: Plan,
        media_dir: Path | None,
        lang: str | None,
        fallback: bool,
        keys: bool,
    ) -> None:
        self.path, self.text, self.plan = path, text, plan
        self.media_dir, self.lang, self.fallback = media_dir, lang, fallback
        self.keys = keys
        self._header: tuple[YMap, int] | None = None

    def header(self) -> tuple[YMap, int]:
        """The parsed header and the line of its ``notes:`` key."""
        if self._header is None:
            try:
                header, aliased = parse_part(self.text[: self.plan.header_end], str(self.path))
            except DeckError:
                raise _NotSplittable from None
            notes = _notes_entry(header)
            if aliased or notes is None:
                raise _NotSplittable
            assert isinstance(header, YMap)
            self._header = header, notes[0]
        return self._header

    def __call__(self, i: int) -> _PartResult:
        """Part ``i`` (> 0): per language, its share of the deck."""
        header, key_line = self.header()
        try:
            # The part starts with its first note.
            seq, aliased = parse_part(
                self.plan.part(self.text, i), str(self.path), self.plan.lines[i][0]
            )
        except DeckError:
            raise _NotSplittable from None
        if aliased or not isinstance(seq, YSeq) or _note_lines(seq) != self.plan.lines[i]:
            raise _NotSplittable
        # The header ends with 'notes:' and nothing under it: give it this part's notes.
        notes = YSeq(seq.items, self.plan.lines[0][0])
        tree = YMap({**header.entries, "notes": (key_line, notes)}, header.line)
        _, rendered = _render_part(
            self.path, tree, self.media_dir, self.lang, self.fallback, self.keys
        )
        return [_share(rd) for rd in rendered]


_NO_PART = -1  # what _claim gives once the queue is empty


def _claim(queue: int) -> int:
    """The next part nobody has taken yet (one byte from the shared queue), or -1."""
    got = os.read(queue, 1)
    return got[0] if got else _NO_PART


# A forked reader's message for each part it read: part number, offset and length of the
# pickled result in the reader's memory file. A message is shorter than PIPE_BUF, so it is
# written whole, and a pipe holds far more of them than there can be parts.
_MESSAGE = struct.Struct("=IQQ")


def _read_parts_here(read_part: _PartReader, queue: int, messages: int, store: int) -> None:
    """A forked reader: take parts from the queue until it is empty, storing each result
    in ``store`` and telling the parent where it is."""
    offset = 0
    while (i := _claim(queue)) != _NO_PART:
        packed = [_Packed.pack(part) for part in read_part(i)]
        data = pickle.dumps(packed, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            written = os.pwrite(store, view, offset + len(data) - len(view))
            view = view[written:]
        os.write(messages, _MESSAGE.pack(i, offset, len(data)))
        offset += len(data)


@dataclass
class _Reader:
    """A forked reader of parts, as the parent sees it."""

    pid: int
    messages: int  # read end of its message pipe (non-blocking)
    store: int  # its memory file of pickled results
    pending: bytes = b""

    def collect(self, into: dict[int, _PartResult], wait: bool) -> bool:
        """Move the results announced so far into ``into``; with ``wait``, until the
        reader has exited. False once the reader is done (its pipe is closed)."""
        os.set_blocking(self.messages, wait)
        while True:
            try:
                chunk = os.read(self.messages, 1 << 16)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            self.pending += chunk
            whole = len(self.pending) - len(self.pending) % _MESSAGE.size
            for i, offset, length in _MESSAGE.iter_unpack(self.pending[:whole]):
                packed = pickle.loads(os.pread(self.store, length, offset))
                into[i] = [part.unpack() for part in packed]
            self.pending = self.pending[whole:]

    def finish(self) -> bool:
        """Wait for the reader to exit: whether it succeeded."""
        pid, self.pid = self.pid, 0
        return _exit_code(pid) == 0

    def stop(self) -> None:
        fds, self.messages, self.store = (self.messages, self.store), -1, -1
        pid, self.pid = self.pid, 0
        _release(fds, pid)


def _fork(
    child: Callable[[], object], parent_only: Sequence[int], child_only: Sequence[int]
) -> int:
    """Fork; the child closes ``parent_only``, runs ``child()`` and exits (0 if it
    returned, 1 if it raised), never returning here. The parent closes ``child_only``
    and gets the child's pid."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for fd in parent_only:
                os.close(fd)
            _child_sigint()
            with reporting(None):  # only the parent draws progress
                child()
            code = 0
        except BaseException:
            pass
        finally:
            os._exit(code)
    for fd in child_only:
        os.close(fd)
    return pid


def _release(fds: Sequence[int], pid: int) -> None:
    """Close ``fds`` (-1: none) and kill and reap the child ``pid`` (0: none)."""
    for fd in fds:
        if fd >= 0:
            os.close(fd)
    if pid:
        with contextlib.suppress(ProcessLookupError):  # already gone
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):  # already reaped
            os.waitpid(pid, 0)


def _fork_reader(read_part: _PartReader, queue: int) -> _Reader:
    store = os.memfd_create("deckbuilder-parts", os.MFD_CLOEXEC)
    read_fd, write_fd = os.pipe()
    pid = _fork(partial(_read_parts_here, read_part, queue, write_fd, store), [read_fd], [write_fd])
    return _Reader(pid, read_fd, store)


class Later(Generic[A, T]):
    """``work(arg)`` in a process forked now, for an ``arg`` given later (:meth:`give`);
    :meth:`result` waits for it.

    Forking early, while this process is still small, is the point: a process forked after
    a big build has been read shares all of it, and every page either process then writes
    to (a reference count is enough) is copied, which cost more than the work itself.
    ``prepare()`` runs in the forked process while it waits (imports, for instance). With
    ``jobs`` 1, on platforms without fork, or if the process fails, ``work(arg)`` runs here
    when the result is asked for, so the result (or the exception) is always what calling
    ``work(arg)`` gives."""

    def __init__(
        self, work: Callable[[A], T], prepare: Callable[[], object] | None = None, jobs: int = 2
    ) -> None:
        self.work = work
        self.arg: A | None = None
        self.given = False
        self.pid = 0
        self.to_child = self.from_child = -1
        if jobs > 1 and _can_fork():
            self._start(prepare)

    def _start(self, prepare: Callable[[], object] | None) -> None:
        in_read, in_write = os.pipe()
        out_read, out_write = os.pipe()

        def child() -> None:
            if prepare is not None:
                prepare()
            (size,) = _SIZE.unpack(_read_exactly(in_read, _SIZE.size))
            arg = pickle.loads(_read_exactly(in_read, size))
            data = pickle.dumps(self.work(arg), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(out_write, "wb") as out:
                out.write(data)

        pid = _fork(child, [in_write, out_read], [in_read, out_write])
        self.pid, self.to_child, self.from_child = pid, in_write, out_read

    def give(self, arg: A) -> None:
        """Start the work on ``arg``."""
        self.arg, self.given = arg, True
        if self.pid:
            data = pickle.dumps(arg, protocol=pickle.HIGHEST_PROTOCOL)
            fd, self.to_child = self.to_child, -1  # closed below, whatever happens
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(_SIZE.pack(len(data)) + data)
            except OSError:  # it has gone: result() does the work here
                pass

    def result(self) -> T:
        if not self.given:
            raise RuntimeError("Later.result() before give()")
        if self.pid:
            try:
                fd, self.from_child = self.from_child, -1
                with os.fdopen(fd, "rb") as got:
                    data = got.read()
                pid, self.pid = self.pid, 0
                if _exit_code(pid) == 0 and data:
                    return cast(T, pickle.loads(data))
            finally:
                self.cancel()
        return self.work(cast(A, self.arg))

    def cancel(self) -> None:
        """Stop the forked process, if there is one."""
        fds, self.to_child, self.from_child = (self.to_child, self.from_child), -1, -1
        pid, self.pid = self.pid, 0
        _release(fds, pid)


_SIZE = struct.Struct("=Q")


def _read_exactly(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _child_sigint() -> None:
    """In a forked process: die of Ctrl-C as a plain process does, unless the parent
    ignores it (nohup, a background job), which the child then does too."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def _exit_code(pid: int) -> int:
    """Wait for the child ``pid`` to exit; its exit code (negative: the signal)."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform == "linux"


def _warm_up() -> None:
    """Build the Markdown renderer and sanitiser once, before forking, so that children
    inherit them instead of each building its own."""
    from .text import render_markdown

    render_markdown("*warm* `up`\n\n- x")


def read_in_parts(
    path: Path,
    media_dir: Path | None = None,
    *,
    lang: str | None = None,
    fallback: bool = False,
    jobs: int = 2,
    min_part_notes: int = MIN_PART_NOTES,
    keys: bool = False,
) -> tuple[list[Deck], list[RenderedDeck]] | None:
    """Load and render the card file ``path`` in up to ``jobs`` processes: the decks and
    rendered decks :func:`deckbuilder.load.load_deck_languages` and
    :func:`deckbuilder.render.render_deck` would give, or None when the file is small or
    must be read in one piece (see the module's docstring). ``keys``: also give each
    rendered deck its notes' GUIDs and content hashes (RenderedDeck.keys), worked out in
    the processes that read them, for a build."""
    if jobs < 2 or not _can_fork():
        return None
    try:
        text = read_text(path)
    except DeckError:  # reading in one piece reports it, with the other files' problems
        return None
    plan = plan_parts(text, min(MAX_PARTS, jobs * PARTS_PER_JOB), min_part_notes)
    if plan is None:
        return None
    _warm_up()
    read_part = _PartReader(path, text, plan, media_dir, lang, fallback, keys)
    sizes = [len(lines) for lines in plan.lines]
    readers: list[_Reader] = []
    queue, fill = os.pipe()
    try:
        os.write(fill, bytes(range(1, len(plan.bounds))))
        os.close(fill)
        fill = -1
        for _ in range(min(jobs, len(plan.bounds)) - 1):
            readers.append(_fork_reader(read_part, queue))
        with reporting(None):  # progress is counted in notes over the whole file below
            tree, aliased = parse_part(plan.part(text, 0), str(path))
            notes = _notes_entry(tree)
            if aliased or notes is None or not isinstance(notes[1], YSeq):
                return None
            if _note_lines(notes[1]) != plan.lines[0]:
                return None
            decks, rendered = _render_part(path, tree, media_dir, lang, fallback, keys)
            first = [_share(rd) for rd in rendered]  # now, while the readers still read
        others: dict[int, _PartResult] = {}  # part number -> result, from any process
        running = list(readers)

        def collect(wait: bool) -> None:
            """Take the readers' results so far (with ``wait``, all of them)."""
            for reader in list(running):
                if not reader.collect(others, wait):  # it has exited
                    running.remove(reader)
                    if not reader.finish():
                        raise _NotSplittable
            step("reading", sizes[0] + sum(sizes[i] for i in others), sum(sizes))

        while (i := _claim(queue)) != _NO_PART:
            collect(wait=False)
            with reporting(None):
                others[i] = read_part(i)
        collect(wait=True)
        if len(others) != len(plan.bounds) - 1:
            return None
    except (_NotSplittable, DeckError):
        return None
    finally:
        for fd in (queue, fill):
            if fd >= 0:
                os.close(fd)
        for reader in readers:
            reader.stop()
    return _join(decks, rendered, [first] + [others[i] for i in range(1, len(plan.bounds))])


def _join(
    decks: Sequence[Deck], rendered: Sequence[RenderedDeck], parts: Sequence[_PartResult]
) -> tuple[list[Deck], list[RenderedDeck]] | None:
    """One deck per language from the parts (the first one's ``decks`` and ``rendered``
    give the rest of each deck), or None when the parts overlap (a note id or a media name
    in two parts: reading in one piece decides what that means)."""
    out_decks: list[Deck] = []
    out_rendered: list[RenderedDeck] = []
    for index, (deck, first) in enumerate(zip(decks, rendered, strict=True)):
        shares = [part[index] for part in parts]
        # Joined with C-level loops (chain, map): this runs after the parallel part.
        notes = tuple(chain.from_iterable(share.notes for share in shares))
        media: dict[str, Path] = {}
        for share in shares:
            for name, file in share.media.items():
                if media.setdefault(name, file) != file:
                    return None
        if len(notes) > MAX_NOTES:
            return None
        # (Ids are unique within each part, or reading it would have failed.)
        if len(frozenset().union(*(share.ids for share in shares))) != len(notes):
            return None
        if len({name.casefold() for name in media}) != len(media):
            return None
        sources = tuple(chain.from_iterable(share.sources for share in shares))
        whole = replace(deck, notes=sources, counted=NoteCounts(_add_counts(shares), sources))
        out_decks.append(whole)
        joined = None
        if all(share.keys is not None for share in shares):
            keys = [cast(NoteKeys, share.keys) for share in shares]
            joined = NoteKeys(
                tuple(chain.from_iterable(k.guids for k in keys)),
                tuple(chain.from_iterable(k.hashes for k in keys)),
                notes,
            )
        out_rendered.append(
            RenderedDeck(whole, notes, dict(sorted(media.items())), first.description, keys=joined)
        )
    return out_decks, out_rendered


def _add_counts(shares: Sequence[_PartDeck]) -> dict[NoteKind, tuple[int, int]]:
    """The parts' counts added up, as Deck.counts() gives them for the whole deck."""
    notes = dict.fromkeys(NoteKind, 0)
    cards = dict.fromkeys(NoteKind, 0)
    for share in shares:
        for kind, (n, c) in share.counts.items():
            notes[kind] += n
            cards[kind] += c
    return {kind: (notes[kind], cards[kind]) for kind in NoteKind if notes[kind]}
