"""init, schema, list, --json, --quiet/--verbose, and the README documenting every command."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from deckbuilder.cardfile.deck import DECK_KEYS
from deckbuilder.cardfile.notes import COMMON_NOTE_KEYS, NOTE_KEYS
from deckbuilder.cardfile.schema import EXAMPLES, card_schema
from deckbuilder.cli import app
from deckbuilder.errors import DeckError
from tests.cardfile.loading import load_deck
from tests.conftest import ROOT, Run

CliRun = Callable[..., Run]


def command_names() -> list[str]:
    import typer.main

    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def test_init_creates_a_project_that_builds(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = cli("init", tmp_path / "deck")
    assert result.code == 0, result.err
    created = sorted(str(p.relative_to(tmp_path / "deck")) for p in (tmp_path / "deck").rglob("*"))
    assert created == ["cards", "cards/example.yaml", "media", "output"]
    deck = load_deck(tmp_path / "deck" / "cards" / "example.yaml")
    assert sorted(n.kind.value for n in deck.notes) == ["basic", "cloze", "mcq", "typed"]
    assert "#" in (tmp_path / "deck" / "cards" / "example.yaml").read_text(
        encoding="utf-8"
    )  # commented
    monkeypatch.chdir(tmp_path / "deck")
    built = cli("build")
    assert built.code == 0, built.err
    assert (tmp_path / "deck" / "output" / "cells.apkg").is_file()


def test_init_refuses_to_overwrite(tmp_path: Path, cli: CliRun) -> None:
    (tmp_path / "cards").mkdir()
    mine = tmp_path / "cards" / "example.yaml"
    mine.write_text("my own work\n", encoding="utf-8")
    result = cli("init", tmp_path)
    assert result.code == 1
    assert "already exists; nothing was changed" in result.err
    assert mine.read_text(encoding="utf-8") == "my own work\n"
    assert not (tmp_path / "media").exists()


def test_init_into_a_regular_file_is_refused(tmp_path: Path, cli: CliRun) -> None:
    """Before, this was an internal error (exit 3)."""
    mine = tmp_path / "notes.txt"
    mine.write_text("my own work\n", encoding="utf-8")
    result = cli("init", mine)
    assert result.code == 1
    assert result.err == f"Error: {mine} exists and is not a folder; nothing was changed\n"
    assert mine.read_text(encoding="utf-8") == "my own work\n"


def test_init_below_a_regular_file_is_refused(tmp_path: Path, cli: CliRun) -> None:
    (tmp_path / "notes.txt").write_text("my own work\n", encoding="utf-8")
    folder = tmp_path / "notes.txt" / "deck"
    result = cli("init", folder)
    assert result.code == 1
    assert result.err == f"Error: cannot create {folder}: Not a directory; nothing was changed\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("refused", ["media", "example.yaml"])
def test_init_where_writing_is_refused_changes_nothing(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, refused: str
) -> None:
    """The folders made before the refusal are removed again. (Simulated: file
    permissions do not stop the root user that tests may run as.)"""
    import tempfile

    real_mkdir, real_mkstemp = Path.mkdir, tempfile.mkstemp

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        if self.name == refused:
            raise PermissionError(13, "Permission denied", str(self))
        real_mkdir(self, *args, **kwargs)

    def mkstemp(*, prefix: str, suffix: str, dir: Path) -> tuple[int, str]:
        if prefix.startswith(f".{refused}."):
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(prefix=prefix, suffix=suffix, dir=dir)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    folder = tmp_path / "new" / "deck"
    result = cli("init", folder)
    assert result.code == 1
    path = folder / "media" if refused == "media" else folder / "cards" / "example.yaml"
    assert result.err == f"Error: cannot create {path}: Permission denied; nothing was changed\n"
    assert list(tmp_path.iterdir()) == []


def test_schema_is_valid_draft7_and_describes_every_key(cli: CliRun) -> None:
    result = cli("schema")
    assert result.code == 0
    schema = json.loads(result.out)
    jsonschema.Draft7Validator.check_schema(schema)
    assert set(schema["properties"]) == set(DECK_KEYS)
    notes = schema["properties"]["notes"]["items"]["oneOf"]
    by_kind = {n["properties"]["type"].get("const"): n for n in notes}
    for kind, keys in NOTE_KEYS.items():
        assert set(by_kind[kind.value]["properties"]) == {*COMMON_NOTE_KEYS, *keys}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                for key, sub in node["properties"].items():
                    assert sub.get("description"), f"{path}.{key} has no description"
            for key, sub in node.items():
                if key != "examples":
                    walk(sub, f"{path}.{key}")
        elif isinstance(node, list):
            for i, sub in enumerate(node):
                walk(sub, f"{path}[{i}]")

    walk(schema, "$")


def card_files() -> list[Path]:
    return [
        ROOT / "cards" / "gradient-checkpointing.yaml",
        ROOT / "deckbuilder" / "starter" / "example.yaml",
    ]


@pytest.mark.parametrize("path", card_files(), ids=lambda p: p.name)
def test_bundled_and_example_decks_validate_against_the_schema(path: Path) -> None:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.validate(document, card_schema())


@pytest.mark.parametrize("example", EXAMPLES)
def test_schema_examples_pass_schema_and_loader(tmp_path: Path, example: dict[str, Any]) -> None:
    jsonschema.validate(example, card_schema())
    path = tmp_path / "example.yaml"
    path.write_text(yaml.safe_dump(example, allow_unicode=True), encoding="utf-8")
    deck = load_deck(path)
    assert len(deck.notes) == len(example["notes"])


@pytest.mark.parametrize(
    "document",
    [
        {"deck": "", "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {"deck": "D", "notes": []},
        {"deck": "D", "notse": [], "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {"deck": "D", "notes": [{"id": "Bad", "front": "f", "back": "b"}]},
        {"deck": "D", "notes": [{"id": "a", "front": "f"}]},
        {"deck": "D", "notes": [{"id": "a", "question": "q", "choices": ["x"], "answer": "A"}]},
        {"deck": "D", "notes": [{"id": "a", "question": "q", "choices": ["x", "y"]}]},
        {"deck": "D", "notes": [{"id": "a", "text": "no deletion here"}]},
        {"deck": "D", "notes": [{"id": "a", "type": "basic", "text": "{{c1::x}}"}]},
        {"deck": "D", "tags": ["has space"], "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {"deck": "A::::B", "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {"deck": "D", "languages": [], "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {"deck": "D", "languages": ["ko", "ko"], "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {"deck": "D", "languages": ["Korean"], "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {"deck": "D", "languages": "ko", "notes": [{"id": "a", "front": "f", "back": "b"}]},
        {
            "deck": "D",
            "languages": ["ko"],
            "notes": [{"id": "a", "front": {"ko": {"nested": "x"}}, "back": "b"}],
        },
        {"deck": "D", "languages": ["ko"], "notes": [{"id": "a", "text": {"ko": "no deletion"}}]},
        {
            "deck": {"ko": "A::::B"},
            "languages": ["ko"],
            "notes": [{"id": "a", "front": "f", "back": "b"}],
        },
        {
            "deck": "D",
            "notes": [
                {
                    "id": "a",
                    "question": "q",
                    "choices": ["x", "y"],
                    "answer": "A",
                    "shuffle": "maybe",
                }
            ],
        },
    ],
)
def test_schema_and_loader_reject_the_same_mistakes(
    tmp_path: Path, document: dict[str, Any]
) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, card_schema())
    path = tmp_path / "deck.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DeckError):
        load_deck(path)


def test_list_shows_decks_counts_and_tags(project: Path, cli: CliRun) -> None:
    result = cli("list", "--lang", "en")
    assert result.code == 0, result.err
    header, row = result.out.strip().splitlines()
    assert header.split() == [
        "DECK",
        "ID",
        "FILE",
        "MCQ",
        "CLOZE",
        "BASIC",
        "TYPED",
        "OTHER",
        "CARDS",
        "TAGS",
    ]
    assert row.startswith(
        "ML Systems::Gradient Checkpointing  gradient-checkpointing.en  cards/gradient-checkpointing.yaml"
    )
    assert re.search(r"\s8\s+6\s+0\s+0\s+0\s+21\s+ml-systems gradient-checkpointing$", row)
    both = cli("list").out.strip().splitlines()
    assert [re.findall(r"gradient-checkpointing\.\w+", line)[0] for line in both[1:]] == [
        "gradient-checkpointing.ko",
        "gradient-checkpointing.en",
    ]


def test_json_output_for_list_and_check(project: Path, cli: CliRun) -> None:
    listed = json.loads(cli("list", "--json", "--lang", "ko").out)
    (deck,) = listed["decks"]
    assert listed["ok"] is True
    assert deck["id"] == "gradient-checkpointing.ko" and deck["lang"] == "ko"
    assert deck["cards"] == 21 and deck["notes"] == 14
    assert deck["by_type"]["cloze"] == {"notes": 6, "cards": 13}
    checked = json.loads(cli("check", "--json").out)
    assert checked["ok"] is True and [d["name"] for d in checked["decks"]] == [
        "ML 시스템::그래디언트 체크포인팅",
        "ML Systems::Gradient Checkpointing",
    ]


def test_check_json_holds_the_warnings_it_tells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: CliRun
) -> None:
    """A script reading --json learns what a person reads on the terminal: a text taken
    from another language (--fallback) and a media file no card uses."""
    (tmp_path / "cards").mkdir()
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "unused.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "cards" / "bi.yaml").write_text(
        "deck: {ko: 덱, en: Deck}\nlanguages: [ko, en]\nnotes:\n"
        "  - id: a\n    front: {ko: 앞}\n    back: 뒤\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--fallback", "--json")
    assert result.code == 0, result.err
    warnings = json.loads(result.out)["warnings"]
    assert [(w["file"], w["line"], w["note"], w["code"]) for w in warnings] == [
        ("media/unused.png", None, None, "unused-media"),
        ("cards/bi.yaml", 5, "a", "fallback"),
    ]
    assert len(warnings) == len(result.err.splitlines())
    assert warnings[1]["message"] == "'front' has no 'en' text; using the 'ko' text"


def test_json_errors_are_machine_readable(tmp_path: Path, cli: CliRun) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("deck: D\nnotes:\n  - {id: a, front: f}\n", encoding="utf-8")
    result = cli("check", bad, "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data == {
        "ok": False,
        "problems": [
            {
                "file": str(bad),
                "line": 3,
                "note": "a",
                "message": "'back' is required",
                "severity": "error",
            }
        ],
    }


def test_quiet_and_verbose(project: Path, cli: CliRun) -> None:
    assert cli("--quiet", "check").out == ""
    verbose = cli("--verbose", "check").out
    assert (
        "cards/gradient-checkpointing.yaml: ML Systems::Gradient Checkpointing: 8 mcq notes (8 cards)"
        in verbose
    )


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in command_names():
        assert f"### `deckbuilder {name}" in readme, f"README has no section for '{name}'"


@pytest.mark.parametrize("name", command_names())
def test_every_command_help_ends_with_an_example(cli: CliRun, name: str) -> None:
    result = cli(name, "--help")
    assert result.code == 0
    assert re.search(r"Example: deckbuilder \S", result.out), result.out


def test_build_json_reports_packages_changes_and_preview(project: Path, cli: CliRun) -> None:
    result = cli("build", "--json", "--lang", "en")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    (deck,) = data["decks"]
    assert data["ok"] is True and deck["id"] == "gradient-checkpointing.en"
    assert deck["package"] == str(Path("output") / "gradient-checkpointing.en.apkg")
    assert deck["size"] == (project / "output" / "gradient-checkpointing.en.apkg").stat().st_size
    assert deck["media"] == ["checkpoint-chain.svg"]
    assert deck["changes"]["unchanged"] == 14 and deck["changes"]["added"] == []
    assert deck["preview"]["cards"] == 21
    again = json.loads(cli("build", "--json", "--no-preview").out)["decks"][0]
    assert "preview" not in again and again["lock_written"] is False


def test_quiet_build_prints_nothing_but_writes(project: Path, cli: CliRun) -> None:
    result = cli("-q", "build")
    assert result.code == 0 and result.out == "" and result.err == ""
    assert (project / "output" / "gradient-checkpointing.ko.apkg").is_file()
    assert (project / "output" / "gradient-checkpointing.en.apkg").is_file()


def run_on_terminal(cmd: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run ``cmd`` with a pseudo-terminal as stdin, stdout and stderr; return its exit
    status and everything it wrote."""
    import pty
    import subprocess

    leader, follower = pty.openpty()
    proc = subprocess.run(
        cmd, stdin=follower, stdout=follower, stderr=follower, env=env, check=False
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO once the child side is closed
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return proc.returncode, seen


def test_errors_are_plain_when_piped_and_coloured_on_a_terminal(tmp_path: Path) -> None:
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text("deck: D\nnotes: []\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "deckbuilder", "check", str(bad)]
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = str(ROOT)
    piped = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert piped.returncode == 1 and "\x1b[" not in piped.stderr
    assert piped.stderr.startswith(f"{bad}:2: 'notes' is empty")

    code, seen = run_on_terminal(cmd, env)
    assert code == 1
    assert b"\x1b[31m" in seen and f"{bad}:2: 'notes' is empty".encode() in seen

    code, plain = run_on_terminal(cmd, {**env, "NO_COLOR": "1"})
    assert code == 1 and b"\x1b[" not in plain and b"'notes' is empty" in plain


def test_list_columns_line_up_with_korean_deck_names(project: Path, cli: CliRun) -> None:
    """Hangul takes two terminal columns; the table pads by display width, not by length."""
    import unicodedata

    def width(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)

    lines = cli("list").out.rstrip("\n").splitlines()
    korean = next(line for line in lines if "그래디언트" in line)
    english = next(line for line in lines if line.startswith("ML Systems::"))
    id_col = [width(line[: line.index("gradient-checkpointing.")]) for line in (korean, english)]
    assert id_col[0] == id_col[1] == width(lines[0][: lines[0].index("ID")])


def test_list_columns_line_up_with_decomposed_and_combining_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: CliRun
) -> None:
    """A file name saved on macOS spells Hangul as jamo (NFD), whose vowel and final
    consonant take no column of their own, and an accent may be a combining mark: both
    show no wider than the composed text."""
    import unicodedata

    cards = tmp_path / "cards"
    cards.mkdir()
    basic = "notes:\n  - id: a\n    front: x\n    back: y\n"
    (cards / f"{unicodedata.normalize('NFD', '생물')}.yaml").write_text(f"id: bio\n{basic}")
    (cards / "accent.yaml").write_text(f"deck: Cafe\u0301\n{basic}", encoding="utf-8")
    (cards / "plain.yaml").write_text(f"deck: Plain\n{basic}")
    monkeypatch.chdir(tmp_path)
    lines = cli("list").out.rstrip("\n").splitlines()

    def columns(text: str) -> int:  # as a terminal shows it: the NFC text's columns
        composed = unicodedata.normalize("NFC", text)
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in composed)

    starts = {columns(line[: line.index(" 1  ")]) for line in lines[1:]}  # the BASIC column
    ids = {
        columns(line[: line.index(word)])
        for line, word in zip(lines, ["ID", "accent", "plain", "bio"], strict=True)
    }
    assert len(starts) == 1 and len(ids) == 1, "\n".join(lines)


def test_help_lists_commands_in_the_order_of_an_authors_day(cli: CliRun) -> None:
    out = cli("--help").out
    listed = re.findall(r"^  (\w+)\s{2,}", out.split("Commands:")[1], re.M)
    assert listed == [
        "init",
        "import",
        "check",
        "lint",
        "build",
        "watch",
        "pull",
        "preview",
        "list",
        "schema",
    ]


def test_build_outside_a_project_says_where_to_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Run]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("build")
    assert result.code == 1
    assert result.err.startswith(
        "cards: no such folder: run deckbuilder in a project folder (the one holding cards/), "
        "start one with 'deckbuilder init', or name the card files\n"
    )


@pytest.mark.parametrize("command", ["check", "build"])
def test_warnings_of_one_kind_are_counted_past_a_hundred(
    project: Path, cli: CliRun, command: str
) -> None:
    """20,000 unused media files printed 20,001 warning lines, burying the rest (issue
    45): the first hundred of a kind are shown, then how many more there were."""
    for i in range(250):
        (project / "media" / f"unused-{i:03}.png").write_bytes(b"x")
    result = cli(command, "--lang", "en")
    assert result.code == 0, result.err
    unused = [line for line in result.err.splitlines() if "[unused-media]" in line]
    assert len(unused) == 101
    assert unused[0].startswith(
        "media/unused-000.png: warning [unused-media]: no card uses this file"
    )
    assert unused[99].startswith("media/unused-099.png:")
    assert unused[100] == "and 150 more like the above [unused-media]"


def test_every_warning_a_deck_can_give_by_the_hundred_is_counted_past_a_hundred(
    tmp_path: Path, cli: CliRun
) -> None:
    """An imported deck of 468 notes whose sounds the package lacked printed 468 warning
    lines once the CLI counted warnings by code: the renderer's (a missing file, text a card
    shows otherwise than written) had none."""
    names = [f"s{i:03}.mp3" for i in range(150)]
    notes = "".join(
        f"  - {{id: n{i}, front: 'Q{i} [sound:{name}]', back: '<span onclick=x>a</span>'}}\n"
        for i, name in enumerate(names)
    )
    source = tmp_path / "cards" / "deck.yaml"
    source.parent.mkdir()
    source.write_text(
        f"deck: D\nid: d\nmissing_media: [{', '.join(names)}]\nnotes:\n{notes}", encoding="utf-8"
    )
    result = cli("check", source, "--media", tmp_path / "media")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    for code in ("missing-media", "fidelity"):
        told = [line for line in lines if f"[{code}]" in line]
        assert len(told) == 101, (code, len(told))
        assert told[100] == f"and 50 more like the above [{code}]"
