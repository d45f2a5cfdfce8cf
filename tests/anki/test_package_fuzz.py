"""``deckbuilder import`` of generated malformed packages ("Hostile input, round 3", item
8): whatever the zip structure, the collection's tables and columns, its JSON columns and
the media list, import ends with exit 0 or a located refusal (exit 1), never exit 3,
within a time and memory limit per package."""

from __future__ import annotations

import json
import os
import tempfile
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zstandard
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.anki.anki_files import (
    BASIC,
    CARDS,
    DECKS,
    MODELS,
    NOTES,
    TABLES,
    collection,
    media_entries,
    time_limit,
    zstd_zeros,
)
from tests.conftest import Run

CliRun = Callable[..., Run]
SECONDS_PER_PACKAGE = 30
MEGABYTES_PER_PACKAGE = 150

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
# A number SQLite can hold (a larger one fails to be written, so no package holds one).
sqlite_integer = st.integers(min_value=-(2**63), max_value=2**63 - 1)
cell = st.one_of(
    sqlite_integer,
    st.text(max_size=30),
    st.binary(max_size=30),
    st.none(),
    st.floats(allow_nan=False),
)
nested = st.integers(min_value=1, max_value=200_000).map(lambda n: "[" * n + "]" * n)


def _broken_model(draw: st.DrawFn) -> object:
    model = dict(BASIC)
    for key in draw(st.lists(st.sampled_from(sorted(BASIC)), min_size=1, max_size=3, unique=True)):
        if draw(st.booleans()):
            del model[key]
        else:
            model[key] = draw(json_values)
    return {draw(st.sampled_from(["1", "x", ""])): model}


def broken_json(draw: st.DrawFn, good: object) -> object:
    """A JSON column that is not as Anki writes it: a broken model, any JSON, text that
    is not JSON, bytes, a number, NULL, or JSON nested very deep."""
    if good is MODELS and draw(st.booleans()):
        return _broken_model(draw)
    options = [json_values.map(json.dumps), st.text(max_size=40), st.binary(max_size=40)]
    options += [sqlite_integer, st.none(), nested, st.lists(json_values, max_size=3)]
    return draw(st.one_of(*options))


def broken_rows(
    draw: st.DrawFn, good: list[tuple[object, ...]], width: int
) -> list[tuple[object, ...]]:
    """Table rows: the good ones with some cells replaced, and some rows of any cells."""
    out = [tuple(draw(cell) if draw(st.integers(0, 3)) == 0 else v for v in row) for row in good]
    out += draw(st.lists(st.tuples(*[cell] * width), max_size=2))
    return out


def broken_tables(draw: st.DrawFn) -> dict[str, str]:
    """The four tables the reader reads, one or more missing, a view (maybe recursive)
    or with a computed column."""
    found = dict(TABLES)
    for name in draw(
        st.lists(st.sampled_from(sorted(TABLES)), min_size=1, max_size=2, unique=True)
    ):
        sql = TABLES[name]
        columns = sql[sql.index("(") + 1 : -1].split(", ")
        listed = ", ".join(f"NULL AS {c}" for c in columns)
        shape = draw(st.sampled_from(["missing", "view", "recursive", "computed"]))
        if shape == "missing":
            del found[name]
        elif shape == "view":
            found[name] = f"CREATE VIEW {name} AS SELECT {listed}"
        elif shape == "recursive":
            found[name] = (
                f"CREATE VIEW {name} AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                f"SELECT n + 1 FROM r) SELECT {listed.replace('NULL', 'n', 1)} FROM r"
            )
        else:
            found[name] = (
                f"CREATE TABLE {name} ({', '.join(columns[:-1])}, x, {columns[-1]} AS (x || x))"
            )
    return found


NAMES = st.text(max_size=20) | st.sampled_from(["a.png", "../x", "a\x00b", "\x1b[2J", ".", "0"])


def media_list(draw: st.DrawFn, broken: bool) -> bytes | None:
    """A media list: none, or as Anki writes it (JSON or protobuf) with names of any
    kind; broken, JSON of any shape or bytes that are no media list."""
    if not broken:
        names = draw(st.lists(NAMES, max_size=3))
        if draw(st.booleans()):
            return media_entries(names)
        listed = {str(i): name for i, name in enumerate(names)}
        return json.dumps(listed).encode("utf-8", "surrogatepass") if names else None
    choice = draw(st.integers(0, 2))
    if choice == 0:
        return json.dumps(draw(json_values)).encode()
    if choice == 1:
        return zstandard.ZstdCompressor().compress(draw(st.binary(max_size=40)))
    return draw(st.binary(max_size=40))


PARTS = [
    "models",
    "decks",
    "notes",
    "cards",
    "tables",
    "member",
    "zstd",
    "media",
    "files",
    "damage",
]


@st.composite
def packages(draw: st.DrawFn) -> dict[str, Any]:
    """A package's parts: one or two of them broken (or none), so that every part is
    reached broken."""
    broken = set(draw(st.lists(st.sampled_from(PARTS), max_size=2)))
    member = draw(st.sampled_from(["collection.anki2", "collection.anki21", "collection.anki21b"]))
    return {
        "models": broken_json(draw, MODELS) if "models" in broken else MODELS,
        "decks": broken_json(draw, DECKS) if "decks" in broken else DECKS,
        "notes": broken_rows(draw, NOTES, 6) if "notes" in broken else NOTES,
        "cards": broken_rows(draw, CARDS, 4) if "cards" in broken else CARDS,
        "tables": broken_tables(draw) if "tables" in broken else TABLES,
        "member": "collection" if "member" in broken else member,
        "zstd": member.endswith("b") != ("zstd" in broken),
        "method": draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])),
        "media": media_list(draw, "media" in broken),
        "files": draw(
            st.dictionaries(
                st.sampled_from(["0", "1", "media", "collection.anki2"]),
                st.binary(max_size=64) | st.sampled_from([zstd_zeros(64 << 20)]),
                min_size=1,
                max_size=2,
            )
        )
        if "files" in broken
        else {"0": b"\x89PNG picture"},
        "cut": draw(st.floats(0, 1)) if "damage" in broken and draw(st.booleans()) else None,
        "flips": draw(
            st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=3)
        )
        if "damage" in broken
        else [],
    }


def write(parts: dict[str, Any], folder: Path) -> Path:
    db = collection(
        folder / "c.anki2",
        models=parts["models"],
        decks=parts["decks"],
        notes=parts["notes"],
        cards=parts["cards"],
        tables=parts["tables"],
    )
    data = db.read_bytes()
    if parts["zstd"]:
        data = zstandard.ZstdCompressor().compress(data)
    path = folder / "deck.apkg"
    with zipfile.ZipFile(path, "w", parts["method"]) as zf:
        zf.writestr(parts["member"], data)
        if parts["media"] is not None:
            zf.writestr("media", parts["media"])
        for name, content in parts["files"].items():
            if name not in zf.namelist():
                zf.writestr(name, content)
    raw = bytearray(path.read_bytes())
    for where, value in parts["flips"]:
        raw[int(where * (len(raw) - 1))] = value
    if parts["cut"] is not None:
        raw = raw[: int(parts["cut"] * len(raw))]
    path.write_bytes(bytes(raw))
    return path


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(parts=packages())
def test_import_of_any_malformed_package_is_exit_0_or_1_in_bounded_time_and_memory(
    cli: CliRun, parts: dict[str, Any]
) -> None:
    before = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            path = write(parts, Path(folder))
            tracemalloc.start()
            with time_limit(SECONDS_PER_PACKAGE):
                run = cli("import", path, "--out", "cards/deck.yaml")
            peak = tracemalloc.get_traced_memory()[1] / 1e6
        finally:
            tracemalloc.stop()
            os.chdir(before)
    # what the examples came to, for --hypothesis-show-statistics
    event(f"exit {run.code}: " + " ".join(run.err.split(": ", 1)[-1].split()[:4]))
    assert run.code in (0, 1), run.err
    assert "Traceback" not in run.err
    assert peak < MEGABYTES_PER_PACKAGE, f"peak {peak:.0f} MB"
    if run.code == 1:
        assert run.err.startswith(f"{path}: ") or run.err.startswith("cards/"), run.err
