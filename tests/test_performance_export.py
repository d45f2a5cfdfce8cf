"""The fast paths of the serial tail of a build (GUIDs, content hashes, lock text, the
collection database) give exactly what the straightforward code gives.

Each reference below is the plain version of the code it guards, as it was before it was
made faster (see benchmarks/bench_build.py): the GUIDs, hashes and lock lines users already
have must keep matching, and packages must keep their content.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import runpy
import sqlite3
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder import export
from deckbuilder.deckconfig import apply_study
from deckbuilder.errors import DeckError, Problem
from deckbuilder.identity import _BASE91, _base91, deck_anki_id, note_guid, note_guids
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
from deckbuilder.notetypes import NoteTypeSpec, note_type
from deckbuilder.pipeline import check
from deckbuilder.render import RenderedDeck, RenderedNote, render_deck

from .conftest import DATA, ROOT

# The benchmark's own deck generator: mixed note types, Markdown, clozes.
generate_deck = runpy.run_path(str(ROOT / "benchmarks" / "bench_build.py"))["generate_deck"]

# Pieces JSON escapes (quotes, backslashes, control characters, the separators JSON leaves
# alone but JavaScript does not) and text outside ASCII, so generated text hits them often.
_PIECES = ['"', "\\", "\\u0041", "\x00", "\x1f", "\x7f", "\n", "\t", "\u2028", "é", "漢", "😀"]
_PIECES += ["a", " ", ":", ",", "{", "}", "[", "]", "</b>"]
TEXT = st.one_of(st.text(), st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))


# --- note GUIDs ----------------------------------------------------------------------------


def reference_base91(value: int) -> str:
    out = []
    while value:
        value, digit = divmod(value, len(_BASE91))
        out.append(_BASE91[digit])
    return "".join(reversed(out)) or _BASE91[0]


def reference_guid(deck_key: str, note_id: str) -> str:
    data = "\x1f".join(("deckbuilder", "note", deck_key, note_id)).encode("utf-8")
    return reference_base91(int.from_bytes(hashlib.sha256(data).digest()[:8], "big"))


_EDGES = [0, 1, 90, 91, 92, 91**2 - 1, 91**2, 91**2 + 1, 91**3 - 1, 91**3, 91**9, 91**10 - 1]


@given(st.integers(min_value=0, max_value=2**64 - 1))
@settings(max_examples=500)
def test_base91_two_digits_at_a_time_equals_one_at_a_time(value: int) -> None:
    assert _base91(value) == reference_base91(value)


@pytest.mark.parametrize("value", [*_EDGES, 2**64 - 1])
def test_base91_at_digit_boundaries(value: int) -> None:
    assert _base91(value) == reference_base91(value)


@given(TEXT, st.lists(TEXT, max_size=20))
@example("gradient-checkpointing", ["tradeoff", "", "tradeoff"])
def test_guids_equal_the_straightforward_ones(deck_key: str, note_ids: list[str]) -> None:
    expected = [reference_guid(deck_key, i) for i in note_ids]
    assert [note_guid(deck_key, i) for i in note_ids] == expected
    assert note_guids(deck_key, note_ids) == expected


# --- note content hashes ---------------------------------------------------------------------


def reference_content_hash(rn: RenderedNote, media: Mapping[str, str]) -> str:
    value = {
        "type": [rn.spec.kind.value, rn.spec.id, list(rn.spec.fields)],
        "fields": list(rn.fields),
        "tags": list(rn.tags),
        "media": {name: media[name] for name in rn.media},
    }
    data = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


@st.composite
def specs(draw: st.DrawFn) -> NoteTypeSpec:
    """A bundled note type, sometimes with other fields or another id."""
    spec = note_type(draw(st.sampled_from(list(NoteKind))))
    if draw(st.booleans()):
        spec = dataclasses.replace(spec, fields=tuple(draw(st.lists(TEXT, max_size=4))))
    if draw(st.booleans()):
        spec = dataclasses.replace(spec, id=draw(st.integers(min_value=0, max_value=2**63)))
    return spec


_HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@st.composite
def rendered_notes(draw: st.DrawFn) -> tuple[RenderedNote, dict[str, str]]:
    names = draw(st.lists(TEXT, max_size=30))  # any order, repeats included
    media = {name: draw(_HEX | TEXT) for name in names}
    rn = RenderedNote(
        note=_NOTE,
        spec=draw(specs()),
        fields=tuple(draw(st.lists(TEXT, max_size=6))),
        tags=tuple(draw(st.lists(TEXT, max_size=6))),
        media=tuple(names),
    )
    return rn, media


_DECK = check([DATA / "mixed.yaml"], DATA / "media")[0]
_NOTE = _DECK.notes[0].note


@given(rendered_notes())
@settings(max_examples=300)
def test_content_hash_equals_the_sorted_json_one(case: tuple[RenderedNote, dict[str, str]]) -> None:
    rn, media = case
    assert note_content_hash(rn, media) == reference_content_hash(rn, media)


def test_content_hash_of_every_bundled_note_is_unchanged() -> None:
    for rd in check([ROOT / "cards" / "gradient-checkpointing.yaml"], ROOT / "media"):
        media = {
            name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in rd.media.items()
        }
        assert any(rn.media for rn in rd.notes)  # the media part is exercised too
        for rn in rd.notes:
            assert note_content_hash(rn, media) == reference_content_hash(rn, media)


# --- lock file text ----------------------------------------------------------------------


def reference_iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def reference_note_lines(manifest: Manifest) -> list[str]:
    return [
        f"note {n.id} {n.anki_id} {n.content} {reference_iso(n.changed)}"
        for n in (manifest.notes[i] for i in sorted(manifest.notes))
    ]


_IDS = st.text(alphabet="abcXYZ019-_.é", min_size=1, max_size=8)
_TIMES = st.sampled_from([0, 1, 1_700_000_000, 1_700_000_001, 2**31, 4_102_444_800])


@st.composite
def manifests(draw: st.DrawFn) -> Manifest:
    ids = draw(st.lists(_IDS, unique=True, max_size=40))
    notes = {
        i: NoteEntry(i, draw(st.integers(0, 2**53)), draw(_HEX)[:16], draw(_TIMES)) for i in ids
    }
    spec = note_type(NoteKind.BASIC)
    types = {NoteKind.BASIC: NoteTypeEntry(NoteKind.BASIC, spec.id, spec.fields, "ab12", 5)}
    return Manifest(types, notes, draw(st.integers(0, 2**53)))


@given(manifests())
def test_lock_text_equals_the_straightforward_text(manifest: Manifest) -> None:
    deck = Deck("d", "D", Path("cards/d.yaml"), ())
    text = format_manifest(deck, manifest)
    lines = text.split("\n")
    assert lines[-1] == ""  # ends with one newline
    body = lines[: len(lines) - 1]
    assert body[body.index("# note ID ANKI-ID CONTENT-HASH CHANGED") + 1 :] == (
        reference_note_lines(manifest)
    )
    parsed = parse_manifest(text, "d.lock")
    assert parsed == manifest
    assert [parsed.notes[i].line for i in sorted(manifest.notes)] == [
        body.index(line) + 1 for line in reference_note_lines(manifest)
    ]


def reference_parse(text: str, file: str) -> Manifest:
    """The lock file reader as it was: every line checked in order, every time parsed."""
    problems: list[Problem] = []
    note_types: dict[NoteKind, NoteTypeEntry] = {}
    notes: dict[str, NoteEntry] = {}
    version_seen = False
    next_anki_id = 0
    kinds = {k.value: k for k in NoteKind}

    def parse_iso(text: str) -> int:
        if not text.endswith("Z"):
            raise ValueError(text)
        parsed = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        return int(parsed.timestamp())

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        try:
            if parts[0] == "version" and len(parts) == 2:
                if parts[1] != "1":
                    problems.append(Problem(file, number, f"version {parts[1]}"))
                version_seen = True
            elif parts[0] == "next-anki-id" and len(parts) == 2:
                next_anki_id = int(parts[1])
            elif parts[0] == "notetype" and len(parts) == 6 and parts[1] in kinds:
                kind = kinds[parts[1]]
                if kind in note_types:
                    raise ValueError("duplicate")
                fields = tuple(parts[3].split(","))
                when = parse_iso(parts[5])
                note_types[kind] = NoteTypeEntry(
                    kind, int(parts[2]), fields, parts[4], when, number
                )
            elif parts[0] == "note" and len(parts) == 5:
                if parts[1] in notes:
                    raise ValueError("duplicate")
                entry = NoteEntry(parts[1], int(parts[2]), parts[3], parse_iso(parts[4]), number)
                notes[parts[1]] = entry
            else:
                raise ValueError(line)
        except ValueError:
            problems.append(Problem(file, number, "bad line"))
    if not version_seen and not problems:
        problems.append(Problem(file, None, "no version"))
    if problems:
        raise DeckError(problems)
    return Manifest(note_types, notes, next_anki_id)


_LOCK_LINES = st.sampled_from(
    [
        "version 1",
        "version 2",
        "next-anki-id 17",
        "next-anki-id x",
        "# a comment",
        "",
        "   ",
        "notetype basic 2152878658763882 Front,Back ab12 2023-11-14T22:13:20Z",
        "notetype basic 2152878658763882 Front,Back ab12 2023-11-14T22:13:20",
        "notetype cloze 1 Text,Extra cd34 1970-01-01T00:00:00Z",
        "note a 1 0123456789abcdef 2023-11-14T22:13:20Z",
        "note a 2 0123456789abcdef 2023-11-14T22:13:21Z",
        "note b 3 0123456789abcdef 2023-11-14T22:13:20Z",
        "note i 10 0123456789abcdef 2024-02-29T12:00:00Z",
        "  note c 4 fedcba9876543210 2023-11-14T22:13:20Z  ",
        "note d 5 fedcba9876543210 2023-11-14T22:13:20",
        "note d 5 fedcba9876543210 2023-13-14T22:13:20Z",
        "note e x fedcba9876543210 2023-11-14T22:13:20Z",
        "note f 6 fedcba9876543210",
        "note g 7 fedcba9876543210 2023-11-14T22:13:20Z extra",
        "note 8 9 fedcba9876543210 2038-01-19T03:14:08Z",
        "nota h 9 fedcba9876543210 2023-11-14T22:13:20Z",
    ]
)


def outcome(parse: Any, text: str) -> object:
    try:
        return parse(text, "d.lock")
    except DeckError as exc:
        return [(p.file, p.line) for p in exc.problems]


@given(st.lists(_LOCK_LINES, max_size=30))
@example(["version 1", "note a 1 0123456789abcdef 2023-11-14T22:13:20Z"])
def test_lock_reader_equals_the_straightforward_reader(lines: list[str]) -> None:
    """Same entries, line numbers and lines refused, for good and broken lock files."""
    text = "\n".join(lines)
    assert outcome(parse_manifest, text) == outcome(reference_parse, text)


_NOTE_LINES = st.builds(
    "note {} {} {} {}Z".format,
    _IDS,
    st.integers(0, 99),
    st.sampled_from(["0123456789abcdef", "fedcba9876543210"]),
    st.sampled_from(["2023-11-14T22:13:20", "2024-02-29T12:00:00", "1970-01-01T00:00:00"]),
)


@given(st.lists(_NOTE_LINES, max_size=30))
def test_lock_reader_equals_the_straightforward_reader_on_good_files(lines: list[str]) -> None:
    """Notes sharing ids, hashes or times, in files that read without a problem."""
    text = "\n".join(["version 1", *lines])
    assert outcome(parse_manifest, text) == outcome(reference_parse, text)


# --- the collection database -------------------------------------------------------------


def reference_rows(
    rd: RenderedDeck, models: dict[int, Any], deck_id: int, timestamp: int, stamps: export.Stamps
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    key = rd.deck.key
    fallback = itertools.count(timestamp * 1000)
    ords_of = {spec_id: export._card_ords(model) for spec_id, model in models.items()}
    notes: list[tuple[Any, ...]] = []
    pending: list[tuple[int, int, int]] = []
    for rn in rd.notes:
        nid = stamps.note_ids.get(rn.note.id)
        if nid is None:
            nid = next(fallback)
        mod = stamps.note_mod.get(rn.note.id, timestamp)
        fields = rn.fields
        sort_field = fields[models[rn.spec.id].sort_field_index]
        tags = " " + " ".join(rn.tags) + " "
        guid = reference_guid(key, rn.note.id)
        row = (nid, guid, rn.spec.id, mod, -1, tags, "\x1f".join(fields), sort_field, 0, 0, "")
        notes.append(row)
        pending.extend((nid, ord_, mod) for ord_ in ords_of[rn.spec.id](fields))
    pending.sort(key=lambda card: card[:2])
    cards: list[tuple[Any, ...]] = []
    cid = 0
    for nid, ord_, mod in pending:
        cid = max(nid, cid + 1)
        cards.append((cid, nid, deck_id, ord_, mod, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ""))
    return notes, cards


def reference_collection(
    rd: RenderedDeck, db_path: Path, timestamp: int, stamps: export.Stamps
) -> None:
    """The collection as written with SQLite's default settings (journal, fsync, cache)."""
    import genanki

    deck_id = deck_anki_id(rd.deck.key)
    models = {spec.id: export._genanki_model(spec) for spec in rd.note_types}
    gdeck = genanki.Deck(deck_id, rd.deck.name, description=rd.description)
    for model in models.values():
        gdeck.add_model(model)
    conn = sqlite3.connect(db_path)
    try:
        cursor = conn.cursor()
        genanki.Package(gdeck).write_to_db(cursor, timestamp, itertools.count(1))
        notes, cards = reference_rows(rd, models, deck_id, timestamp, stamps)
        for note in notes:
            cursor.execute("INSERT INTO notes VALUES(?,?,?,?,?,?,?,?,?,?,?)", note)
        for card in cards:
            cursor.execute("INSERT INTO cards VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", card)
        (models_json,) = cursor.execute("SELECT models FROM col").fetchone()
        stamped = json.loads(models_json)
        for spec in rd.note_types:
            stamped[str(spec.id)]["mod"] = stamps.note_type_mod.get(spec.id, timestamp)
        cursor.execute("UPDATE col SET models = ?", (json.dumps(stamped),))
        apply_study(conn, rd.deck, deck_id, max(stamps.note_mod.values(), default=timestamp))
        conn.commit()
        cursor.execute("VACUUM")
    finally:
        conn.close()


def _generated(tmp_path: Path, n: int) -> RenderedDeck:
    (tmp_path / "media").mkdir()
    generate_deck(n, tmp_path / "bench.yaml")
    return check([tmp_path / "bench.yaml"], tmp_path / "media")[0]


def _stamps(rd: RenderedDeck, how: str) -> export.Stamps:
    ids = [rn.note.id for rn in rd.notes]
    if how == "none":  # every id counted from the build time
        return export.Stamps()
    if how == "reversed":  # note ids against deck order, some notes missing
        note_ids = {i: 1_700_000_000_000 + 3 * (len(ids) - k) for k, i in enumerate(ids)}
        del note_ids[ids[0]], note_ids[ids[-1]]
        return export.Stamps(
            note_ids=note_ids,
            note_mod={i: 1_600_000_000 + k % 3 for k, i in enumerate(ids)},
            note_type_mod={spec.id: 1_500_000_000 for spec in rd.note_types},
        )
    return export.Stamps(  # as a build gives them: ids in deck order
        note_ids={i: 1_699_999_000_000 + k for k, i in enumerate(ids)},
        note_mod=dict.fromkeys(ids, 1_699_999_999),
    )


def _decks(tmp_path: Path) -> list[RenderedDeck]:
    bundled = check([ROOT / "cards" / "gradient-checkpointing.yaml"], ROOT / "media")
    return [*bundled, check([DATA / "mixed.yaml"], DATA / "media")[0], _generated(tmp_path, 600)]


def database(path: Path) -> tuple[list[Any], list[str], int, int]:
    """The schema as Anki reads it (no root pages: they only say where a table starts),
    every row of every table, and the file's page and free page counts."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        schema = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
        schema_rows = schema.fetchall()
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        (free,) = conn.execute("PRAGMA freelist_count").fetchone()
        return schema_rows, list(conn.iterdump()), pages, free
    finally:
        conn.close()


@pytest.mark.parametrize("how", ["build", "none", "reversed"])
def test_collection_equals_the_straightforward_writer(tmp_path: Path, how: str) -> None:
    """Same schema, same rows, no more pages and no free ones: the indexes made after the
    rows instead of VACUUM at the end leave a file as compact as VACUUM did."""
    for number, rd in enumerate(_decks(tmp_path)):
        stamps = _stamps(rd, how)
        ours, theirs = tmp_path / f"ours{number}.anki2", tmp_path / f"theirs{number}.anki2"
        export._write_collection(rd, ours, 1_700_000_000, stamps)
        reference_collection(rd, theirs, 1_700_000_000, stamps)
        schema, rows, pages, free = database(ours)
        assert (schema, rows) == database(theirs)[:2], rd.deck.key
        assert [name for _, name, _, _ in schema].count("ix_cards_nid") == 1
        assert (pages, free) == (database(theirs)[2], 0), rd.deck.key


def test_collection_rows_equal_the_straightforward_rows(tmp_path: Path) -> None:
    """Row by row, so that a difference names the row (the bytes test only says 'differs')."""
    for rd in _decks(tmp_path):
        models = {spec.id: export._genanki_model(spec) for spec in rd.note_types}
        for how in ("build", "none", "reversed"):
            stamps = _stamps(rd, how)
            notes, cards = reference_rows(rd, models, 5, 1_700_000_000, stamps)
            # The columns that vary; the bytes test above covers the ones that do not.
            expected = ([n[:4] + n[5:8] for n in notes], [c[:5] for c in cards])
            assert export._rows(rd, models, 5, 1_700_000_000, stamps) == expected


def test_scratch_settings_do_not_stay_in_the_collection(tmp_path: Path) -> None:
    """The journal mode and cache size are connection settings, not stored in the file."""
    rd = check([DATA / "mixed.yaml"], DATA / "media")[0]
    path = tmp_path / "c.anki2"
    export._write_collection(rd, path, 1_700_000_000, export.Stamps())
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count() FROM notes").fetchone() == (len(rd.notes),)
    finally:
        conn.close()
    assert not list(tmp_path.glob("c.anki2-*"))  # no journal left beside it


@given(st.lists(_IDS, unique=True, max_size=12), st.lists(_IDS, unique=True, max_size=12))
def test_removed_notes_are_the_old_ones_not_built_in_id_order(
    old_ids: list[str], new_ids: list[str]
) -> None:
    notes = tuple(BasicNote(id=i, line=1, front="f", back="b") for i in new_ids)
    rd = render_deck(Deck("d", "D", Path("cards/d.yaml"), notes))
    old = Manifest({}, {i: NoteEntry(i, k, "0" * 16, 5, k + 1) for k, i in enumerate(old_ids)})
    built = update_manifest(old, rd, 1_700_000_000)
    expected = tuple(e for i, e in sorted(old.notes.items()) if i not in built.manifest.notes)
    assert built.changes.removed == expected
    assert [e.line for e in built.changes.removed] == [e.line for e in expected]
