"""The README stays true: its console examples are what the commands really print.

Each example below is found in README.md by its command line and run in a fresh copy of
the project; the lines the README shows must be exactly what the command prints.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Run

CliRun = Callable[..., Run]
# The README and the documents it links to: their examples are run alike.
README = "\n".join(
    path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
)


def console_blocks() -> list[list[str]]:
    return [block.splitlines() for block in re.findall(r"```console\n(.*?)```", README, re.S)]


def example(command: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The README block whose last ``$`` line is ``command``: files it shows with ``cat``
    before it, and the output it shows after it."""
    for lines in console_blocks():
        prompts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        if prompts and lines[prompts[-1]] == f"$ {command}":
            files = []
            for start, end in zip(prompts, [*prompts[1:], len(lines)], strict=True):
                if lines[start].startswith("$ cat "):
                    files.append((lines[start][len("$ cat ") :], lines[start + 1 : end]))
            return files, lines[prompts[-1] + 1 :]
    raise AssertionError(f"README has no console example ending in '$ {command}'")


EXAMPLES = [
    "deckbuilder build --lang en",
    "deckbuilder check cards/",
    "deckbuilder list --lang en",
    "deckbuilder preview --lang en",
    'deckbuilder preview --params "0.2, 1.3"',
    "deckbuilder check cards/typo.yaml",
    "deckbuilder lint cards/quiz.yaml",
    "deckbuilder import quiz.csv",
    "deckbuilder preview --lang en --sweep",
    "deckbuilder preview --lang en --exam 2026-03-01 --start 2026-01-01",
]


@pytest.mark.parametrize("command", EXAMPLES)
def test_readme_example_is_what_the_command_prints(
    project: Path, cli: CliRun, command: str
) -> None:
    files, shown = example(command)
    for name, content in files:
        (project / name).write_text("\n".join(content) + "\n", encoding="utf-8")
    result = cli(*shlex.split(command)[1:])
    printed = (result.out + result.err).rstrip("\n").splitlines()
    assert printed == shown


def test_a_built_package_imports_back_as_the_readme_shows(project: Path, cli: CliRun) -> None:
    command = "deckbuilder import output/gradient-checkpointing.en.apkg --out cards/from-anki.yaml"
    _, shown = example(command)
    assert cli("build", "--lang", "en").code == 0
    result = cli(*shlex.split(command)[1:])
    assert (result.out + result.err).rstrip("\n").splitlines() == shown
    assert cli("check", "cards/from-anki.yaml").code == 0


def test_first_deck_path_builds_the_package_it_names(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quick start's "from first card to phone": init, the card file it shows, check and
    build give the package it names."""
    section = README.split("### Your own deck, from first card to phone", 1)[1].split("\n## ")[0]
    (card_file,) = re.findall(r"```yaml\n(.*?)```", section, re.S)
    monkeypatch.chdir(tmp_path)
    assert cli("init", "my-deck").code == 0
    monkeypatch.chdir(tmp_path / "my-deck")
    lines = [line[3:] if line.startswith("   ") else line for line in card_file.splitlines()]
    Path("cards/example.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    checked = cli("check")
    assert checked.code == 0, checked.err
    built = cli("build")
    assert built.code == 0, built.err
    (package,) = re.findall(r"writes `(output/[a-z0-9-]+\.apkg)`", section)
    assert Path(package).is_file()
