"""The collection database is byte for byte what the writer gave before it was made faster.

The reference below is the writer as it was (deckbuilder/export.py before the rows were
made a column at a time): ``_rows`` and ``_card_ords`` copied unchanged apart from names,
in the writer ``_write_collection``, which did not change. Decks: the bundled one in both its languages (every note kind,
an image), the test deck with one of everything, a generated one; note ids as a build
gives them, none, and against deck order with some missing.
"""

from __future__ import annotations

import itertools
import re
import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import genanki
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder import export
from deckbuilder.export import Stamps
from deckbuilder.identity import note_guids
from deckbuilder.model import NoteKind
from deckbuilder.notetypes import note_type
from deckbuilder.pipeline import check
from deckbuilder.progress import reporting
from deckbuilder.render import RenderedDeck

from .conftest import DATA, ROOT

generate_deck = runpy.run_path(str(ROOT / "benchmarks" / "bench_build.py"))["generate_deck"]

# --- the writer as it was ------------------------------------------------------------------


def reference_collection(rd: RenderedDeck, db_path: Path, timestamp: int, stamps: Stamps) -> None:
    """The collection as the writer wrote it: only the rows (and the card ordinals they
    use) were changed since, so the writer runs as it is with its rows made as they were.
    (tests/test_performance_export.py checks the rest against a writer of its own.)"""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(export, "_rows", reference_rows)
        export._write_collection(rd, db_path, timestamp, stamps)


# genanki's reading of a cloze note type: the fields its first template shows as clozes,
# and the deletions ({{cN::...}}) in them, one card per number.
CLOZE_FIELD = (r"{{[^}]*?cloze:(?:[^}]?:)*(.+?)}}", "<%cloze:(.+?)%>")
CLOZE_NUMBER = re.compile(r"{{c(\d+)::.+?}}", re.DOTALL)


def reference_card_ords(model: Any) -> Callable[[tuple[str, ...]], list[int]]:
    """The card ordinals genanki gives a note of ``model`` with these fields."""
    if model.model_type == model.CLOZE:
        qfmt = model.templates[0]["qfmt"]
        names = {name for pattern in CLOZE_FIELD for name in re.findall(pattern, qfmt)}
        where = [i for i, f in enumerate(model.fields) if f["name"] in names]

        def cloze(fields: tuple[str, ...]) -> list[int]:
            ords = {
                int(m) - 1 for i in where for m in CLOZE_NUMBER.findall(fields[i]) if int(m) > 0
            }
            return sorted(ords)

        return cloze
    req = [(ord_, {"any": any, "all": all}[op], needed) for ord_, op, needed in model._req]

    def front_back(fields: tuple[str, ...]) -> list[int]:
        return [ord_ for ord_, op, needed in req if op(fields[i] for i in needed)]

    return front_back


def reference_rows(
    rd: RenderedDeck, models: dict[int, Any], deck_id: int, timestamp: int, stamps: Stamps
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The notes and cards table rows (the columns that vary, see export._INSERT_NOTE and
    export._INSERT_CARD), progress reports left out. Notes missing from ``stamps`` get ids counted from
    the build time, in deck order. Card ids follow their note's id (Anki shows a card id as
    the day it was added): in note id order, each card takes its note's id or the next id
    after the previous card."""
    fallback = itertools.count(timestamp * 1000)
    per_spec = {
        spec_id: (reference_card_ords(model), model.sort_field_index)
        for spec_id, model in models.items()
    }
    note_ids, note_mod = stamps.note_ids, stamps.note_mod
    rns = rd.notes
    known = rd.known_keys()
    guids = (
        known.guids if known is not None else note_guids(rd.deck.key, [rn.note.id for rn in rns])
    )
    notes: list[tuple[Any, ...]] = []
    pending: list[tuple[int, int, int]] = []  # (note id, ord, mod)
    add_note, add_card = notes.append, pending.append
    for rn, guid in zip(rns, guids, strict=True):
        author_id = rn.note.id
        nid = note_ids.get(author_id)
        if nid is None:
            nid = next(fallback)
        mod = note_mod.get(author_id, timestamp)
        fields = rn.fields
        spec_id = rn.spec.id
        ords, sort_index = per_spec[spec_id]
        tags = " ".join(rn.tags)
        sort_field = fields[sort_index]
        add_note((nid, guid, spec_id, mod, f" {tags} ", "\x1f".join(fields), sort_field))
        for ord_ in ords(fields):
            add_card((nid, ord_, mod))
    # By note id, then ord: note ids are unique (the notes table's key), so no two
    # cards tie on both and the third member never decides.
    pending.sort()
    cards: list[tuple[Any, ...]] = []
    add = cards.append
    cid = 0
    for nid, ord_, mod in pending:
        cid = nid if nid > cid else cid + 1
        add((cid, nid, deck_id, ord_, mod))
    return notes, cards


# --- the writer now ------------------------------------------------------------------------


def _generated(tmp_path: Path, n: int, jobs: int = 1) -> RenderedDeck:
    (tmp_path / "media").mkdir()
    generate_deck(n, tmp_path / "bench.yaml")
    return check([tmp_path / "bench.yaml"], tmp_path / "media", jobs=jobs, keys=True)[0]


@pytest.fixture(scope="module")
def decks(tmp_path_factory: pytest.TempPathFactory) -> list[RenderedDeck]:
    source = [ROOT / "cards" / "gradient-checkpointing.yaml"]
    bundled = [check(source, ROOT / "media", lang=lang)[0] for lang in ("ko", "en")]
    assert [rd.deck.lang for rd in bundled] == ["ko", "en"]
    mixed = check([DATA / "mixed.yaml"], DATA / "media")[0]
    # Big enough to be read in parts, whose readers work out the GUIDs (RenderedDeck.keys).
    parts = _generated(tmp_path_factory.mktemp("parts"), 4_500, jobs=2)
    assert parts.known_keys() is not None
    found = [*bundled, mixed, parts]
    assert {rn.spec.kind for rd in found for rn in rd.notes} == set(NoteKind)
    assert all(rd.media for rd in [*bundled, mixed])
    return found


def _stamps(rd: RenderedDeck, how: str) -> Stamps:
    ids = [rn.note.id for rn in rd.notes]
    if how == "none":  # every id counted from the build time
        return Stamps()
    if how == "against deck order":  # some notes missing, here and there
        note_ids = {i: 1_800_000_000_000 + 3 * (len(ids) - k) for k, i in enumerate(ids)}
        for missing in ids[::5]:
            del note_ids[missing]
        return Stamps(
            note_ids=note_ids,
            note_mod={i: 1_600_000_000 + k % 3 for k, i in enumerate(ids)},
            note_type_mod={spec.id: 1_500_000_000 for spec in rd.note_types},
        )
    return Stamps(  # as a build gives them: ids in deck order
        note_ids={i: 1_699_999_000_000 + k for k, i in enumerate(ids)},
        note_mod=dict.fromkeys(ids, 1_699_999_999),
    )


@pytest.mark.parametrize("chunk", [export._ROWS_CHUNK, 7])
@pytest.mark.parametrize("how", ["build", "none", "against deck order"])
def test_collection_bytes_equal_the_writer_as_it_was(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    decks: list[RenderedDeck],
    how: str,
    chunk: int,
) -> None:
    """Also when the rows are made in many chunks (fallback ids go on across them)."""
    monkeypatch.setattr(export, "_ROWS_CHUNK", chunk)
    for number, rd in enumerate(decks):
        stamps = _stamps(rd, how)
        ours, theirs = tmp_path / f"ours{number}.anki2", tmp_path / f"theirs{number}.anki2"
        export._write_collection(rd, ours, 1_700_000_000, stamps)
        reference_collection(rd, theirs, 1_700_000_000, stamps)
        assert ours.read_bytes() == theirs.read_bytes(), (rd.deck.key, rd.deck.lang)


def test_rows_equal_the_rows_as_they_were(decks: list[RenderedDeck]) -> None:
    """Row by row, so that a difference names the row (the bytes test only says 'differs')."""
    for rd in decks:
        models = {spec.id: export._genanki_model(spec) for spec in rd.note_types}
        for how in ("build", "none", "against deck order"):
            stamps = _stamps(rd, how)
            expected = reference_rows(rd, models, 5, 1_700_000_000, stamps)
            assert export._rows(rd, models, 5, 1_700_000_000, stamps) == expected


def test_rows_report_progress_chunk_by_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rd = _generated(tmp_path, 600)
    monkeypatch.setattr(export, "_ROWS_CHUNK", 256)
    seen: list[tuple[str, int, int]] = []
    with reporting(lambda *report: seen.append(report)):
        export._write_collection(rd, tmp_path / "c.anki2", 1_700_000_000, Stamps())
    assert seen == [("writing", 256, 600), ("writing", 512, 600), ("writing", 600, 600)]


# --- which cards a note gets -----------------------------------------------------------------

# Two templates: the first needs both fields ("all" of two), the second either ("any").
_TWO_TEMPLATES = genanki.Model(
    1_000_001,
    "Two templates",
    fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Extra"}],
    templates=[
        {"name": "Both", "qfmt": "{{#Front}}{{Back}}{{/Front}}", "afmt": "{{Extra}}"},
        {"name": "Either", "qfmt": "{{Back}}{{Extra}}", "afmt": "{{Front}}"},
    ],
)
# Clozes read from two fields.
_TWO_CLOZE_FIELDS = genanki.Model(
    1_000_002,
    "Two cloze fields",
    fields=[{"name": "Text"}, {"name": "More"}, {"name": "Extra"}],
    templates=[{"name": "Cloze", "qfmt": "{{cloze:Text}}{{cloze:More}}", "afmt": "{{Extra}}"}],
    model_type=genanki.Model.CLOZE,
)
MODELS = [export._genanki_model(note_type(kind)) for kind in NoteKind]
MODELS += [_TWO_TEMPLATES, _TWO_CLOZE_FIELDS]

_FIELD_PIECES = ["", "x", " ", "{{c1::a}}", "{{c2::b::hint}}", "{{c0::z}}", "{{c02::q}}"]
_FIELD_PIECES += ["{{c1::{{c3::n}}}}", "{{c1::}}", "{{c4::\nm}}", "{{c10::y}}", "{{c", "}}"]
FIELD = st.lists(st.sampled_from(_FIELD_PIECES), max_size=5).map("".join)
# One for all examples, as for all notes of a deck: what it keeps from one note to the
# next (the ordinals of clozes numbered alike) must not leak into the next note's answer.
ORDS = {model.name: export._card_ords(model) for model in MODELS}


@given(st.sampled_from(MODELS), st.lists(FIELD, min_size=5, max_size=5))
@settings(max_examples=400)
def test_card_ords_are_genankis(model: Any, values: list[str]) -> None:
    """What genanki.Note itself gives (and the writer as it was)."""
    fields = tuple(values[: len(model.fields)])
    ords = list(ORDS[model.name](fields))
    assert ords == reference_card_ords(model)(fields)
    note = genanki.Note(model=model, fields=list(fields), guid="g")
    assert ords == sorted(card.ord for card in note.cards)
