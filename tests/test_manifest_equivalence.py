"""The lock-file code gives exactly what it gave before it was made faster.

The reference below is a copy of deckbuilder/manifest.py's functions as they were before
(commit 86bfaa5), with content hashes by their definition (the sorted JSON of
tests/test_performance_export.py): the lock file bytes, the content hashes users' lock files hold, the
changes a build reports, every error message and its line, and the Anki ids and change
times of first builds, rebuilds, edits, removals and note-type changes must keep matching,
over varied manifests, decks and lock files.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import pickle
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder import export
from deckbuilder.errors import DeckError, Problem
from deckbuilder.manifest import (
    Changes,
    Manifest,
    NoteEntry,
    NoteTypeEntry,
    NoteTypeReplaced,
    Update,
    format_manifest,
    lock_path,
    note_content_hash,
    note_hashes,
    parse_manifest,
    update_manifest,
)
from deckbuilder.model import BasicNote, Deck, NoteKind
from deckbuilder.notetypes import NoteTypeSpec, note_type
from deckbuilder.pipeline import write_packages
from deckbuilder.render import NoteKeys, RenderedDeck, RenderedNote

from .test_performance_export import reference_content_hash

# --- the reference: manifest.py's functions as they were ---------------------------------


@dataclasses.dataclass(frozen=True)
class RefNoteEntry:
    """NoteEntry as it was: a frozen dataclass with the generated __init__."""

    id: str
    anki_id: int
    content: str
    changed: int
    line: int | None = dataclasses.field(default=None, compare=False)


def ref_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def ref_hash(value: object) -> str:
    return hashlib.sha256(ref_json(value).encode("utf-8")).hexdigest()[:16]


def ref_templates_hash(spec: NoteTypeSpec) -> str:
    return ref_hash([spec.name, spec.template_name, spec.front, spec.back, spec.css, spec.is_cloze])


def ref_note_hashes(rd: RenderedDeck) -> tuple[str, ...]:
    media = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in rd.media.items()}
    return tuple(reference_content_hash(rn, media) for rn in rd.notes)


def ref_iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def ref_parse_iso(text: str) -> int:
    if not text.endswith("Z"):
        raise ValueError(text)
    parsed = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return int(parsed.timestamp())


def ref_format_manifest(deck: Deck, manifest: Manifest) -> str:
    lines = [
        f"# deckbuilder lock file for deck '{deck.key}' ({deck.source.name}).",
        "# Written by `deckbuilder build`; commit it with the card file and do not edit it.",
        "# It keeps each note's modification time fixed until the note's content changes,",
        "# so re-importing a rebuilt package updates exactly the notes that changed.",
        "version 1",
        f"next-anki-id {manifest.next_anki_id}",
        "# notetype KIND ANKI-ID FIELDS TEMPLATES-HASH CHANGED",
    ]
    for kind in NoteKind:
        t = manifest.note_types.get(kind)
        if t is not None:
            fields = ",".join(t.fields)
            lines.append(
                f"notetype {kind.value} {t.anki_id} {fields} {t.templates} {ref_iso(t.changed)}"
            )
    lines.append("# note ID ANKI-ID CONTENT-HASH CHANGED")
    iso: dict[int, str] = {}
    notes = manifest.notes
    for note_id in sorted(notes):
        n = notes[note_id]
        when = iso.get(n.changed)
        if when is None:
            when = iso[n.changed] = ref_iso(n.changed)
        lines.append(f"note {n.id} {n.anki_id} {n.content} {when}")
    lines.append("")
    return "\n".join(lines)


def ref_parse_manifest(text: str, file: str) -> Manifest:
    problems: list[Problem] = []
    note_types: dict[NoteKind, NoteTypeEntry] = {}
    notes: dict[str, NoteEntry] = {}
    version_seen = False
    next_anki_id = 0
    kinds = {k.value: k for k in NoteKind}
    times: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        try:
            if parts[0] == "note" and len(parts) == 5:
                if parts[1] in notes:
                    raise ValueError("duplicate")
                changed = times.get(parts[4])
                if changed is None:
                    changed = times[parts[4]] = ref_parse_iso(parts[4])
                notes[parts[1]] = NoteEntry(parts[1], int(parts[2]), parts[3], changed, number)
            elif parts[0] == "version" and len(parts) == 2:
                if parts[1] != "1":
                    problems.append(
                        Problem(
                            file,
                            number,
                            f"lock file version {parts[1]} is not supported "
                            "(this deckbuilder writes version 1); upgrade deckbuilder",
                        )
                    )
                version_seen = True
            elif parts[0] == "next-anki-id" and len(parts) == 2:
                next_anki_id = int(parts[1])
            elif parts[0] == "notetype" and len(parts) == 6 and parts[1] in kinds:
                kind = kinds[parts[1]]
                if kind in note_types:
                    raise ValueError("duplicate")
                note_types[kind] = NoteTypeEntry(
                    kind,
                    int(parts[2]),
                    tuple(parts[3].split(",")),
                    parts[4],
                    ref_parse_iso(parts[5]),
                    number,
                )
            else:
                raise ValueError(line)
        except ValueError:
            problems.append(
                Problem(
                    file,
                    number,
                    "cannot read this lock file line; restore the file from version control "
                    "(deleting it makes every note count as changed)",
                )
            )
    if not version_seen and not problems:
        problems.append(Problem(file, None, "not a deckbuilder lock file (no 'version' line)"))
    if problems:
        raise DeckError(problems)
    return Manifest(note_types, notes, next_anki_id)


def ref_bump(previous: int, now: int) -> int:
    return max(now, previous + 1)


def ref_update_manifest(old: Manifest | None, rd: RenderedDeck, now: int) -> Update:
    prev = old or Manifest({}, {})
    lock = str(lock_path(rd.deck))
    problems: list[Problem] = []

    note_types: dict[NoteKind, NoteTypeEntry] = dict(prev.note_types)
    changed_types: list[NoteTypeSpec] = []
    replaced: list[NoteTypeReplaced] = []
    for spec in rd.note_types:
        before = prev.note_types.get(spec.kind)
        digest = ref_templates_hash(spec)
        if before is None or before.anki_id != spec.id:
            if before is not None:
                replaced.append(NoteTypeReplaced(before, spec))
            when = now if before is None else ref_bump(before.changed, now)
            note_types[spec.kind] = NoteTypeEntry(spec.kind, spec.id, spec.fields, digest, when)
        elif before.fields != spec.fields:
            problems.append(
                Problem(
                    lock,
                    before.line,
                    f"note type '{spec.name}' (id {spec.id}) now has the fields "
                    f"{', '.join(spec.fields)} but this deck was built with "
                    f"{', '.join(before.fields)}; Anki would import it as a second note type "
                    f"'{spec.name}+' and leave the existing notes on the old one. A note type's "
                    "fields may change only together with a new note type id and name "
                    "(see README, 'Updating a shared deck').",
                )
            )
        elif before.templates != digest:
            changed_types.append(spec)
            note_types[spec.kind] = NoteTypeEntry(
                spec.kind, spec.id, spec.fields, digest, ref_bump(before.changed, now)
            )
    if problems:
        raise DeckError(problems)

    known = rd.known_keys()
    hashes = known.hashes if known is not None else ref_note_hashes(rd)
    next_anki_id = max(
        [now * 1000, prev.next_anki_id, *(e.anki_id + 1 for e in prev.notes.values())]
    )
    notes: dict[str, NoteEntry] = {}
    added: list[str] = []
    changed: list[str] = []
    unchanged: list[str] = []
    for rn, content in zip(rd.notes, hashes, strict=True):
        note_id = rn.note.id
        before_note = prev.notes.get(note_id)
        if before_note is None:
            notes[note_id] = NoteEntry(note_id, next_anki_id, content, now)
            next_anki_id += 1
            added.append(note_id)
        elif before_note.content != content:
            when = ref_bump(before_note.changed, now)
            notes[note_id] = NoteEntry(note_id, before_note.anki_id, content, when)
            changed.append(note_id)
        else:
            notes[note_id] = NoteEntry(note_id, before_note.anki_id, content, before_note.changed)
            unchanged.append(note_id)
    removed = tuple(prev.notes[nid] for nid in sorted(prev.notes.keys() - notes.keys()))
    changes = Changes(
        added=tuple(sorted(added)),
        changed=tuple(sorted(changed)),
        removed=removed,
        unchanged=tuple(sorted(unchanged)),
        note_types_changed=tuple(changed_types),
        note_types_replaced=tuple(replaced),
    )
    high = max(
        [prev.next_anki_id, *(e.anki_id + 1 for e in [*prev.notes.values(), *notes.values()])]
    )
    return Update(Manifest(note_types, notes, high), changes, first_build=old is None)


def ref_stamps(manifest: Manifest) -> export.Stamps:
    """pipeline.write_packages' Stamps as they were built."""
    return export.Stamps(
        note_ids={e.id: e.anki_id for e in manifest.notes.values()},
        note_mod={e.id: e.changed for e in manifest.notes.values()},
        note_type_mod={t.anki_id: t.changed for t in manifest.note_types.values()},
    )


# --- what is compared: everything, line numbers and dict order included --------------------


def exactly(value: object) -> object:
    """``value`` with what == leaves out (entry lines, dict order) made visible."""
    if isinstance(value, NoteEntry | NoteTypeEntry):
        return (type(value).__name__, repr(value))
    if isinstance(value, Mapping):
        return [(exactly(k), exactly(v)) for k, v in value.items()]
    if isinstance(value, tuple | list):
        return [exactly(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__] + [
            (f.name, exactly(getattr(value, f.name))) for f in dataclasses.fields(value)
        ]
    return (type(value).__name__, value)


def outcome(function: Any, *args: object) -> object:
    """What a call gives: its value, or the problems (file, line, message) it raises."""
    try:
        return exactly(function(*args))
    except DeckError as exc:
        return ["DeckError", [(p.file, p.line, p.message, p.note) for p in exc.problems]]


# --- decks and manifests -----------------------------------------------------------------

DECK = Deck("d", "D", Path("cards/d.yaml"))
# Few ids, so that decks and old manifests share many (kept, changed and removed notes).
NOTE_IDS = st.sampled_from(["a", "b", "c", "q1", "q10", "q2", "B", "é", "z-9", "_x", "n.1"])
HASHES = st.sampled_from(["0123456789abcdef", "fedcba9876543210", "00000000aaaaaaaa"])
TIMES = st.sampled_from([0, 1, 999, 1_000, 1_700_000_000, 1_700_000_001, 2**31, 4_102_444_800])
ANKI_IDS = st.one_of(st.integers(0, 2**53), st.sampled_from([1_000_000, 1_700_000_000_000]))
TEXT = st.text(st.sampled_from(["a", "é", "漢", '"', "\\", "\n", "\x00", " ", ":", "😀"]))


@st.composite
def specs(draw: st.DrawFn) -> NoteTypeSpec:
    """A bundled note type, sometimes with another id, other fields or other templates."""
    spec = note_type(draw(st.sampled_from(list(NoteKind))))
    changes: dict[str, Any] = {}
    if draw(st.booleans()):
        changes["id"] = draw(st.sampled_from([spec.id + 1, 7]))
    if draw(st.booleans()):
        changes["fields"] = draw(st.sampled_from([("Front",), (*spec.fields, "Extra")]))
    if draw(st.booleans()):
        changes["css"] = spec.css + ".x {}"
    return dataclasses.replace(spec, **changes)


@st.composite
def decks(draw: st.DrawFn, media_dir: Path | None = None) -> RenderedDeck:
    """Rendered notes, sometimes with ids repeated (the loader refuses that, but the
    functions take any deck), sometimes with content hashes worked out ahead."""
    ids = draw(st.lists(NOTE_IDS, max_size=14, unique=draw(st.booleans())))
    by_kind = {spec.kind: spec for spec in draw(st.lists(specs(), min_size=1, max_size=3))}
    kinds = list(by_kind)
    names = sorted(path.name for path in media_dir.iterdir()) if media_dir else []
    notes = tuple(
        RenderedNote(
            note=BasicNote(id=note_id, line=1),
            spec=by_kind[draw(st.sampled_from(kinds))],
            fields=tuple(draw(st.lists(TEXT, max_size=3))),
            tags=tuple(draw(st.lists(st.sampled_from(["t", "x", "é"]), max_size=2))),
            media=tuple(draw(st.lists(st.sampled_from(names), max_size=3))) if names else (),
        )
        for note_id in ids
    )
    media = {name: media_dir / name for name in names} if media_dir else {}
    rd = RenderedDeck(DECK, notes, media)
    if draw(st.booleans()):
        keys = NoteKeys(("g",) * len(notes), tuple(draw(HASHES) for _ in notes), notes)
        rd = dataclasses.replace(rd, keys=keys)
    return rd


@st.composite
def manifests(draw: st.DrawFn) -> Manifest:
    """Any manifest: notes in any order, any ids, hashes and times."""
    ids = draw(st.lists(NOTE_IDS, unique=True, max_size=14))
    notes = {
        i: NoteEntry(i, draw(ANKI_IDS), draw(HASHES), draw(TIMES), draw(st.none() | TIMES))
        for i in ids
    }
    types = {}
    for kind in draw(st.lists(st.sampled_from(list(NoteKind)), unique=True)):
        spec = note_type(kind)
        fields = draw(st.sampled_from([spec.fields, ("Front",)]))
        anki_id = draw(st.sampled_from([spec.id, spec.id + 1]))
        digest = draw(st.sampled_from([ref_templates_hash(spec), "ab12"]))
        types[kind] = NoteTypeEntry(kind, anki_id, fields, digest, draw(TIMES), draw(TIMES))
    return Manifest(types, notes, draw(st.integers(0, 2**53) | TIMES))


# --- NoteEntry ---------------------------------------------------------------------------


@given(NOTE_IDS, ANKI_IDS, HASHES, TIMES, st.none() | TIMES, NOTE_IDS, ANKI_IDS, st.none() | TIMES)
def test_note_entry_behaves_as_the_frozen_dataclass(
    i: str, a: int, c: str, t: int, line: int | None, other: str, other_a: int, ln: int | None
) -> None:
    """Equality (without the line), hash, repr, fields, replace and copies as before."""
    entry, ref = NoteEntry(i, a, c, t, line), RefNoteEntry(i, a, c, t, line)
    assert repr(entry) == repr(ref).replace("RefNoteEntry", "NoteEntry")
    for x, y in [((other, a, c, t), (i, a, c, t)), ((i, other_a, c, t), (i, a, c, t))]:
        assert (NoteEntry(*x, ln) == NoteEntry(*y, line)) == (RefNoteEntry(*x, ln) == ref)
    assert NoteEntry(i, a, c, t) == entry and hash(NoteEntry(i, a, c, t, ln)) == hash(entry)
    assert hash(entry) == hash(ref)  # the same fields go into the hash
    assert dataclasses.astuple(entry) == dataclasses.astuple(ref)
    assert [(f.name, f.compare, f.default) for f in dataclasses.fields(NoteEntry)] == [
        (f.name, f.compare, f.default) for f in dataclasses.fields(RefNoteEntry)
    ]
    moved = dataclasses.replace(entry, anki_id=other_a)
    assert repr(moved) == repr(dataclasses.replace(ref, anki_id=other_a)).replace("Ref", "")
    for copied in (pickle.loads(pickle.dumps(entry)), copy.copy(entry), copy.deepcopy(entry)):
        assert repr(copied) == repr(entry)
    assert NoteEntry(i, a, c, t) == NoteEntry(id=i, anki_id=a, content=c, changed=t, line=None)


@pytest.mark.parametrize("name", ["id", "anki_id", "content", "changed", "line"])
def test_note_entry_stays_frozen(name: str) -> None:
    entry = NoteEntry("a", 1, "c", 2, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(entry, name, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(entry, name)
    assert entry == NoteEntry("a", 1, "c", 2) and entry.line == 3


# --- content hashes ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def media_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("media")
    for name, data in [("a.png", b"first"), ("data.png", b"other"), ("é 1.mp3", b"")]:
        (folder / name).write_bytes(data)
    return folder


@given(data=st.data())
@settings(max_examples=200)
def test_content_hashes_equal_the_reference(media_dir: Path, data: st.DataObject) -> None:
    rd = data.draw(decks(media_dir))
    expected = ref_note_hashes(rd)
    assert note_hashes(rd) == expected
    media = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in rd.media.items()}
    assert tuple(note_content_hash(rn, media) for rn in rd.notes) == expected


# --- update_manifest ---------------------------------------------------------------------


def updates_agree(old: Manifest | None, rd: RenderedDeck, now: int) -> None:
    try:
        expected = ref_update_manifest(old, rd, now)
    except DeckError:
        assert outcome(update_manifest, old, rd, now) == outcome(ref_update_manifest, old, rd, now)
        return
    update = update_manifest(old, rd, now)
    # The one difference, on purpose: an unchanged note's entry is the old entry itself
    # (equal to the new one the reference made, and keeping the line it was read from, as
    # an unchanged note type's entry always did); every other entry is new, without a line.
    lines: dict[str, int | None] = {}
    for note_id, entry in update.manifest.notes.items():
        if old is not None and entry is old.notes.get(note_id):
            lines[note_id] = entry.line
        else:
            assert entry.line is None
    notes = {
        i: dataclasses.replace(e, line=lines[i]) if i in lines else e
        for i, e in expected.manifest.notes.items()
    }
    expected = dataclasses.replace(
        expected, manifest=dataclasses.replace(expected.manifest, notes=notes)
    )
    assert exactly(update) == exactly(expected)


@given(decks(), TIMES)
@settings(max_examples=300)
def test_first_build_equals_the_reference(rd: RenderedDeck, now: int) -> None:
    updates_agree(None, rd, now)


@given(manifests(), decks(), TIMES)
@settings(max_examples=300)
@example(Manifest({}, {}, 5), RenderedDeck(DECK, (), {}), 0)  # no old note, none added
def test_update_of_any_manifest_equals_the_reference(
    old: Manifest, rd: RenderedDeck, now: int
) -> None:
    updates_agree(old, rd, now)


@given(decks(), decks(), TIMES, TIMES, st.booleans())
@settings(max_examples=300)
def test_rebuilds_equal_the_reference(
    first: RenderedDeck, second: RenderedDeck, then: int, now: int, through_text: bool
) -> None:
    """A build after a build: notes kept, edited, added and removed, note types changed or
    replaced, the clock standing still, going back or on; the old manifest as the last
    build made it or as read back from its lock file (with line numbers)."""
    old = ref_update_manifest(None, first, then).manifest
    if through_text:
        old = ref_parse_manifest(ref_format_manifest(DECK, old), "cards/d.lock")
    updates_agree(old, second, now)


# --- the lock file text ------------------------------------------------------------------


@given(manifests(), st.sampled_from([DECK, Deck("x.en", "X", Path("/a b/x.yaml"))]))
@settings(max_examples=300)
def test_lock_text_equals_the_reference(manifest: Manifest, deck: Deck) -> None:
    text = format_manifest(deck, manifest)
    assert text == ref_format_manifest(deck, manifest)
    assert outcome(parse_manifest, text, "l") == outcome(ref_parse_manifest, text, "l")


# Lines of good and broken lock files: odd whitespace (str.split and str.splitlines
# treat \x0b, \x1c, \x85, \u2028 and others as such), numbers int() reads in unusual
# forms, duplicates, wrong counts, comments, unknown note types.
_LINES = st.sampled_from(
    [
        "version 1",
        "version 2",
        "version 1 x",
        "next-anki-id 17",
        "next-anki-id -3",
        "next-anki-id x",
        "# a comment",
        "  # an indented comment",
        "#",
        "",
        "   ",
        "\t",
        "notetype basic 2152878658763882 Front,Back ab12 2023-11-14T22:13:20Z",
        "notetype basic 2152878658763882 Front,Back ab12 2023-11-14T22:13:21Z",
        "notetype basic 2152878658763882 Front,Back ab12 2023-11-14T22:13:20",
        "notetype cloze 1 Text,Extra cd34 1970-01-01T00:00:00Z",
        "notetype quiz 1 A ab 2023-11-14T22:13:20Z",
        "note a 1 0123456789abcdef 2023-11-14T22:13:20Z",
        "note a 2 0123456789abcdef 2023-11-14T22:13:21Z",
        "note b 3 0123456789abcdef 2023-11-14T22:13:20Z",
        "note b\t3\t0123456789abcdef\t2023-11-14T22:13:20Z",
        "  note c 4 fedcba9876543210 2023-11-14T22:13:20Z  ",
        "note\xa0c2 4 fedcba9876543210 2023-11-14T22:13:20Z",
        "note c3 +4 x 2023-11-14T22:13:20Z",
        "note c4 1_000 x 2023-11-14T22:13:20Z",
        "note c5 \u0663 x 2023-11-14T22:13:20Z",
        "note c6 4 x 2023-11-14T22:13:20Z\x0bnote c7 5 x 2023-11-14T22:13:20Z",
        "note c8 4 x\x1c2023-11-14T22:13:20Z",
        "note c9 4 x 2023-11-14T22:13:20Z\u2028# after a line separator",
        "note c10 4 x 2023-11-14T22:13:20Z\r\nnote c11 5 x 2023-11-14T22:13:20Z\r",
        "note d 5 fedcba9876543210 2023-11-14T22:13:20",
        "note d 5 fedcba9876543210 2023-13-14T22:13:20Z",
        "note d 5 fedcba9876543210 2023-11-14T22:13:20+00:00Z",
        "note e x fedcba9876543210 2023-11-14T22:13:20Z",
        "note f 6 fedcba9876543210",
        "note g 7 fedcba9876543210 2023-11-14T22:13:20Z extra",
        "note # 9 fedcba9876543210 2038-01-19T03:14:08Z",
        "#note h 9 fedcba9876543210 2023-11-14T22:13:20Z",
        "nota h 9 fedcba9876543210 2023-11-14T22:13:20Z",
        "Note h 9 fedcba9876543210 2023-11-14T22:13:20Z",
    ]
)


@given(st.lists(_LINES, max_size=30), st.sampled_from(["\n", "\r\n", "\r"]))
@settings(max_examples=500)
@example(["version 1", "note a 1 0123456789abcdef 2023-11-14T22:13:20Z"], "\n")
@example(["note a 1 0123456789abcdef 2023-11-14T22:13:20Z"], "\n")  # no version line
@example([], "\n")
def test_lock_reader_equals_the_reference(lines: list[str], newline: str) -> None:
    """Same entries, line numbers, problems and messages, for good and broken files."""
    text = newline.join(lines)
    assert outcome(parse_manifest, text, "cards/d.lock") == outcome(
        ref_parse_manifest, text, "cards/d.lock"
    )


# --- the package's ids and times (pipeline.write_packages) -------------------------------


def test_write_packages_stamps_equal_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ids and times a build gives the package: a first build, then a rebuild with an
    edit, a removal and an addition (write_package itself runs as always)."""
    given_stamps: list[export.Stamps] = []
    real = export.write_package

    def recording(*args: Any, stamps: export.Stamps, **kw: Any) -> export.PackageInfo:
        given_stamps.append(stamps)
        return real(*args, stamps=stamps, **kw)

    monkeypatch.setattr(export, "write_package", recording)
    deck = Deck("d", "D", tmp_path / "d.yaml")
    spec = note_type(NoteKind.BASIC)

    def rendered(*notes: tuple[str, str]) -> RenderedDeck:
        rns = tuple(
            RenderedNote(BasicNote(id=i, line=1), spec, (front, "back"), ()) for i, front in notes
        )
        return RenderedDeck(deck, rns, {})

    builds = [
        (rendered(("b", "1"), ("a", "2"), ("c", "3")), 1_700_000_000),
        (rendered(("c", "3"), ("a", "edited"), ("d", "4")), 1_700_000_500),
    ]
    for rd, now in builds:
        expected = ref_update_manifest(parse_or_none(lock_path(deck)), rd, now).manifest
        (result,) = write_packages([rd], tmp_path / "out", timestamp=now)
        assert result.lock.read_text(encoding="utf-8") == ref_format_manifest(deck, expected)
        assert exactly(given_stamps.pop()) == exactly(ref_stamps(expected))


def parse_or_none(path: Path) -> Manifest | None:
    return (
        ref_parse_manifest(path.read_text(encoding="utf-8"), str(path)) if path.exists() else None
    )
