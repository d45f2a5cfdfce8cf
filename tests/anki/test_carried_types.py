"""Note types kept beside a card file (``cards/<name>.notetypes.json``): a file that is
broken, or holds a note type Anki or genanki would refuse or change, is refused in one line
per problem, naming the file; never a traceback, never a package Anki refuses whole.

Anki's rules are rslib's: ``notetype/mod.rs`` (``prepare_for_update``: a name and field
names must not be empty; ``ensure_names_unique`` renames a field that matches another
without case), ``notetype/fields.rs`` (``fix_name``: ':', '{', '}' and '"' removed, '#',
'/' and '^' removed from the start) and ``template.rs`` (a conditional never closed).
Each is measured below by importing, with the real backend, a package genanki writes
with that note type.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import genanki
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.anki.notetypes import note_type
from deckbuilder.model import NoteKind
from tests.anki.anki_files import carried_json
from tests.conftest import Run

CliRun = Callable[..., Run]
GOOD = replace(note_type(NoteKind.BASIC), id=1234567, name="Basic (from Anki)")


@pytest.fixture
def deck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with one basic note and, beside its card file, an Anki note type."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "d.yaml").write_text(
        "deck: D\nnotes:\n  - {id: a, front: f, back: b}\n", encoding="utf-8"
    )
    sidecar = tmp_path / "cards" / "d.notetypes.json"
    sidecar.write_text(carried_json({NoteKind.BASIC: GOOD}), encoding="utf-8")
    return sidecar


def _entry(sidecar: Path) -> dict[str, Any]:
    entry: dict[str, Any] = json.loads(sidecar.read_text(encoding="utf-8"))["note_types"][0]
    return entry


def _write(sidecar: Path, entry: dict[str, Any]) -> None:
    sidecar.write_text(json.dumps({"note_types": [entry]}), encoding="utf-8")


def _refused(cli: CliRun) -> list[str]:
    run = cli("check")
    assert run.code == 1, run
    assert "Traceback" not in run.err
    lines = run.err.splitlines()[:-1]
    assert lines and all(line.startswith("cards/d.notetypes.json: ") for line in lines), lines
    return lines


def test_the_file_import_writes_builds(deck: Path, cli: CliRun) -> None:
    assert cli("check").code == 0
    assert cli("build").code == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" * 100_000, "JSON nested too deeply"),
        ('{"note_types": [{"id": ' + "[" * 500 + "]" * 500 + "}]}", "'kind' is missing"),
        ("\xff", "not JSON"),
        ("[]", "no list of note types"),
        ('{"note_types": [7]}', "note type 1 is not an object"),
    ],
)
def test_a_broken_file_is_one_line(deck: Path, cli: CliRun, text: str, expected: str) -> None:
    """A note types file nested 100,000 deep ended in exit 3 (RecursionError; issue 37,
    item 5)."""
    deck.write_text(text, encoding="utf-8")
    (line,) = _refused(cli)
    assert expected in line and "restore it from version control" in line


def _mutated(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(entry: dict[str, Any]) -> None:
        if key.startswith("fields."):
            entry["fields"][int(key[7:])] = value
        elif key.startswith("templates."):
            side = key.split(".")[1]
            entry["templates"][0][side] = value
        else:
            entry[key] = value

    return mutate


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("id", 1e30, "'id' is not a whole number"),
        ("id", 10**30, f"its id {10**30} is not from 1 to 9223372036854775807"),
        ("id", 10**50, "its id (over 40 digits) is not from 1 to"),
        ("id", 0, "its id 0 is not from 1 to"),
        ("id", note_type(NoteKind.MCQ).id, "is the id of deckbuilder's own note type"),
        ("id", True, "'id' is not a whole number"),
        ("name", " \u200b", "its name is empty; Anki refuses it"),
        ("fields.1", "", "field 2's name is empty; Anki refuses it"),
        ("fields.1", "front", "field names 'Front' and 'front' are the same to Anki"),
        ("fields.1", "B:x", "holds :, which Anki removes from it"),
        ("fields.1", "#Back", "starts with # / or ^, which Anki removes"),
        ("templates.front", "{{Front", "shows no field"),
        ("templates.front", "{{#Front}}{{Front}}", "opens '{{#Front}}' and never closes it"),
        ("templates.front", "{{Front}}{{/Back}}", "closes '{{/Back}}', which is not open"),
        ("templates.front", "{{>x}}{{Front}}", "which genanki reads as a file to include"),
        ("templates.front", "{{}}{{Front}}", "has an empty tag"),
        ("templates.front", "{{#a}}" * 30 + "{{Front}}" + "{{/a}}" * 30, "more than 20 deep"),
        ("templates.back", "{{Nope}}", "names 'Nope', not a field of this note type"),
        ("templates.front", "x" * 200_000, "has 200,000 characters; the limit is 131,072"),
    ],
)
def test_a_note_type_anki_or_genanki_would_refuse_is_one_line(
    deck: Path, cli: CliRun, key: str, value: Any, expected: str
) -> None:
    """A sidecar note type with an id of 10^30 or a template tag never closed ended in
    exit 3; one with id 0, an empty name or an empty field name built a package Anki
    refuses whole (issue 37, items 5 and 7)."""
    entry = _entry(deck)
    _mutated(key, value)(entry)
    _write(deck, entry)
    lines = _refused(cli)
    assert any(expected in line for line in lines), lines
    assert all(len(line) < 400 for line in lines)


def _anki_imports(tmp_path: Path, collection: Any, mid: int, name: str, fields: list[str]) -> Any:
    """The note type Anki holds after importing a package genanki writes with it, or the
    error Anki (or genanki) refuses it with."""
    model = genanki.Model(
        mid,
        name,
        fields=[{"name": field} for field in fields],
        templates=[{"name": "Card 1", "qfmt": "{{" + fields[0] + "}}", "afmt": "{{FrontSide}}"}],
    )
    deck = genanki.Deck(2059400110, "D")
    deck.add_note(genanki.Note(model=model, fields=["a"] * len(fields), guid="abcdefghij"))
    path = tmp_path / "p.apkg"
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    try:
        genanki.Package(deck).write_to_file(str(path))
        collection.import_anki_package(
            ImportAnkiPackageRequest(
                package_path=str(path), options=ImportAnkiPackageOptions(merge_notetypes=True)
            )
        )
    except Exception as exc:  # what refuses it is the measurement
        return type(exc).__name__
    (kept,) = [nt for nt in collection.models.all() if nt["id"] == mid]
    return kept["name"], [field["name"] for field in kept["flds"]]


@pytest.mark.parametrize(
    ("mid", "name", "fields", "anki"),
    [
        (1234567, "T", ["F", "B"], ("T", ["F", "B"])),
        (0, "T", ["F", "B"], "NotFoundError"),
        (2**63, "T", ["F", "B"], "OverflowError"),
        (1234567, "", ["F", "B"], "InvalidInput"),
        (1234567, "T", ["F", ""], "InvalidInput"),
        (1234567, "T", ["F", "f"], ("T", ["F", "f+"])),
        (1234567, "T", ["F", "B:x"], ("T", ["F", "Bx"])),
        (1234567, "T", ["F", "#B"], ("T", ["F", "B"])),
    ],
)
def test_what_the_rules_refuse_anki_refuses_or_changes(
    tmp_path: Path, collection: Any, mid: int, name: str, fields: list[str], anki: Any
) -> None:
    """The measurements behind the rules: each note type refused above is refused by
    Anki (or genanki) or changed on import; the good one is kept as it is."""
    assert _anki_imports(tmp_path, collection, mid, name, fields) == anki


def test_a_named_pipe_in_its_place_is_refused(deck: Path, cli: CliRun) -> None:
    """A FIFO named like the note types file would block check."""
    deck.unlink()
    os.mkfifo(deck)
    (line,) = _refused(cli)
    assert "is a named pipe (FIFO), not a file" in line
    shutil.rmtree(deck.parent)


_TEMPLATE_BITS = st.sampled_from(
    [
        "{{",
        "}}",
        "{{Front}}",
        "{{Back}}",
        "{{#Front}}",
        "{{/Front}}",
        "{{^Back}}",
        "{{/Back}}",
        "{{>x}}",
        "{{=<% %>=}}",
        "<!--",
        "-->",
        "{{cloze:Front}}",
        "{{type:Back}}",
        "{{{",
        "x",
        " ",
        "<script>x</script>",
        "<img src=x onerror=y>",
    ]
)
_JSON_VALUES = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def _sidecars(draw: st.DrawFn) -> str:
    """A note types file: a good one changed in a few places, or any JSON at all."""
    if draw(st.booleans()):
        return json.dumps(draw(_JSON_VALUES))
    entry: dict[str, Any] = json.loads(carried_json({NoteKind.BASIC: GOOD}))["note_types"][0]
    for _ in range(draw(st.integers(1, 4))):
        key = draw(
            st.sampled_from(
                ["kind", "id", "name", "fields", "templates", "css", "front", "keep_scripts"]
            )
        )
        templates = entry.get("templates")
        if key == "front" and isinstance(templates, list) and templates:
            if not isinstance(templates[0], dict):
                continue
            side = draw(st.sampled_from(["front", "back"]))
            templates[0][side] = "".join(draw(st.lists(_TEMPLATE_BITS, max_size=12)))
        elif key == "id":
            entry["id"] = draw(st.one_of(st.integers(), st.floats(), st.text(max_size=3)))
        else:
            entry[key] = draw(_JSON_VALUES)
    return json.dumps({"note_types": [entry]})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=_sidecars())
def test_any_note_types_file_is_read_or_refused_in_lines(
    deck: Path, cli: CliRun, text: str
) -> None:
    """A fuzz of the note types file: check exits 0 or 1, never 3, never a traceback,
    within seconds."""
    deck.write_text(text, encoding="utf-8")
    start = time.process_time()
    run = cli("check")
    assert run.code in (0, 1), run
    assert "Traceback" not in run.err and "Internal error" not in run.err, run.err
    assert time.process_time() - start < 10


def test_a_link_out_of_the_folder_is_not_read(deck: Path, cli: CliRun, tmp_path: Path) -> None:
    """A shared deck's 'd.notetypes.json -> /elsewhere/secret.json' was read, and its
    first bytes quoted in the message (found by the adversarial pass of issue 37)."""
    secret = tmp_path.parent / f"{tmp_path.name}-secret.json"
    secret.write_text(carried_json({NoteKind.BASIC: GOOD}), encoding="utf-8")
    deck.unlink()
    deck.symlink_to(secret)
    (line,) = _refused(cli)
    assert line == (
        f"cards/d.notetypes.json: a link to '{secret}', outside the card file's folder; it is "
        "not read"
    )
    secret.unlink()


_SCRIPTED = replace(
    GOOD,
    front='<div class="q">{{Front}}</div><script>document.title = "x";</script>',
    back="{{FrontSide}}<hr id=answer><img src=x onerror=go()>{{Back}}",
    css='@import url("https://fonts.example/f.css");\n' + GOOD.css,
)


def test_a_note_type_that_runs_or_fetches_something_is_refused_in_one_line(
    deck: Path, cli: CliRun
) -> None:
    """A note types file carried a note type's scripts into every build without a word
    (issue 45): check and build name the file, the note type, what it holds and the ways
    out."""
    deck.write_text(carried_json({NoteKind.BASIC: _SCRIPTED}), encoding="utf-8")
    (line,) = _refused(cli)
    assert line == (
        "cards/d.notetypes.json: note type 'Basic (from Anki)': its templates and CSS hold "
        "what Anki runs or fetches on every review: 1 script, 1 event handler, 1 remote CSS "
        "@import (first, in the front of card 1: '<script>document.title = \"x\";</script>'); "
        "import the package again to remove them, remove this note type from the file, or "
        'set "keep_scripts": true in it if you trust them'
    )
    assert cli("build").code == 1


def test_keep_scripts_true_keeps_them_and_is_written_only_when_true(
    deck: Path, cli: CliRun
) -> None:
    kept = carried_json({NoteKind.BASIC: replace(_SCRIPTED, keep_scripts=True)})
    assert '"name": "Basic (from Anki)",\n      "keep_scripts": true,\n' in kept
    assert "keep_scripts" not in carried_json({NoteKind.BASIC: _SCRIPTED})
    deck.write_text(kept, encoding="utf-8")
    assert cli("check").code == 0
    assert cli("build").code == 0


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
def test_keep_scripts_must_be_true_or_false(deck: Path, cli: CliRun, value: Any) -> None:
    entry = _entry(deck)
    entry["keep_scripts"] = value
    _write(deck, entry)
    (line,) = _refused(cli)
    shown = json.dumps(value)
    assert line == (
        f"cards/d.notetypes.json: note type 'Basic (from Anki)': 'keep_scripts' is {shown}, "
        "not true or false"
    )
