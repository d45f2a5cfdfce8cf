"""The documentation stays true: every console example in README.md and docs/*.md is what
the commands print, and every relative link and anchor leads somewhere.

A console example is a fenced ``console`` block, run from its first line to its last in a
fresh copy of the bundled project (cards/, media/, and output/ as ``deckbuilder build``
leaves it; the build is made once and copied). Its lines:

- ``$ deckbuilder ARGS`` runs the command; the lines after it, up to the next ``$``, are
  what it prints (standard output and error, as a terminal shows them). ``> FILE`` at
  the end sends standard output to FILE; the lines shown are then standard error alone.
- ``$ cat FILE``: the lines after it are the file's text, written to FILE for the
  commands after it to read.
- ``$ cd DIR`` changes folder, as in a shell.

Output that varies from run to run is written ``...``: a line ``...`` stands for any
lines (none included), and ``...`` inside a line for any text within it. A block must
start with a ``$`` line (output alone goes in a ``text`` block). Files an example names
that no ``cat`` shows and that no command makes are listed in ``PROVIDED``.
"""

from __future__ import annotations

import io
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from deckbuilder.cli import main
from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Example:
    page: Path
    line: int  # of the opening fence, 1-based
    lines: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclass(frozen=True)
class Fenced:
    """A fenced block of a page: its info string, first line and text lines."""

    info: str
    line: int
    lines: tuple[str, ...]


def fenced_blocks(text: str) -> tuple[list[Fenced], list[tuple[int, str]]]:
    """The page's fenced blocks, and its other lines (with their numbers), as CommonMark
    reads them: a block ends at a fence of the same character at least as long."""
    blocks: list[Fenced] = []
    prose: list[tuple[int, str]] = []
    opened: tuple[str, str, int] | None = None
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line.strip()) if len(line) - len(line.lstrip()) < 4 else None
        if opened is None:
            if fence:
                opened, body = (fence.group(1), fence.group(2).strip(), number), []
            else:
                prose.append((number, line))
        elif fence and fence.group(1)[0] == opened[0][0] and len(fence.group(1)) >= len(opened[0]):
            if not fence.group(2).strip():
                blocks.append(Fenced(opened[1], opened[2], tuple(body)))
                opened = None
                continue
            body.append(line)
        else:
            body.append(line)
    return blocks, prose


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        blocks, _ = fenced_blocks(page.read_text(encoding="utf-8"))
        found += [Example(page, b.line, b.lines) for b in blocks if b.info == "console"]
    return found


def example_params() -> list[object]:
    return [pytest.param(example, id=str(example)) for example in examples()]


def steps(example: Example) -> list[tuple[str, list[str]]]:
    """The example's commands, each with the lines shown after it."""
    assert example.lines and example.lines[0].startswith("$ "), (
        f"{example}: a console example starts with a '$ ' command line "
        "(output alone goes in a 'text' block)"
    )
    found: list[tuple[str, list[str]]] = []
    for line in example.lines:
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            found[-1][1].append(line)
    return found


def shown_pattern(shown: list[str]) -> re.Pattern[str]:
    """``shown`` as a pattern of the whole output: ``...`` is any lines or any text."""
    parts = []
    for line in shown:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def make_history(folder: Path) -> None:
    from tests.anki.test_history import make_history as generated

    generated(folder).close()


def make_shared_deck(folder: Path) -> None:
    from tests.importers.test_import_active_content import shared_deck

    shared_deck(folder / "shared-deck.apkg")


def make_edited(folder: Path) -> None:
    from tests.app.test_pull import make_edited_export

    make_edited_export(folder)


# Files the examples name that they do not show: made once, copied where an example runs.
PROVIDED: dict[str, Callable[[Path], None]] = {
    "collection.anki2": make_history,
    "shared-deck.apkg": make_shared_deck,
    "edited.apkg": make_edited,
}


def run(argv: list[str], stdout_to: Path | None) -> tuple[int, str]:
    """``deckbuilder argv`` in-process; what it prints, both streams in the order written
    (or standard error alone when standard output goes to a file)."""
    shown = io.StringIO()
    out = io.StringIO() if stdout_to else shown
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, shown
    try:
        code = main(argv)
    finally:
        sys.stdout, sys.stderr = saved
    if stdout_to:
        stdout_to.write_text(out.getvalue(), encoding="utf-8")
    return code, shown.getvalue()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bundled project after ``deckbuilder build``, made once for every example."""
    folder = tmp_path_factory.mktemp("built")
    for name in ("cards", "media"):
        shutil.copytree(ROOT / name, folder / name)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        code, printed = run(["build"], None)
    assert code == 0, printed
    yield folder


@pytest.fixture(scope="module")
def provided(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in made:
            folder = tmp_path_factory.mktemp("provided")
            PROVIDED[name](folder)
            made[name] = folder / name
        return made[name]

    return get


@pytest.mark.parametrize("example", example_params())
def test_console_example_is_what_the_commands_print(
    example: Example,
    built: Path,
    provided: Callable[[str], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Requirement (issue 32, item 5): every page's examples are run by a test, so the
    documentation shows what the tool prints now."""
    project = tmp_path / "project"
    shutil.copytree(built, project)
    for name in PROVIDED:
        if any(name in line for line in example.lines):
            shutil.copyfile(provided(name), project / name)
    monkeypatch.chdir(project)
    for command, shown in steps(example):
        words = shlex.split(command)
        if words[0] == "cat":
            (target,) = words[1:]
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            Path(target).write_text("".join(f"{line}\n" for line in shown), encoding="utf-8")
        elif words[0] == "cd":
            (folder,) = words[1:]
            monkeypatch.chdir(folder)
            assert project in [Path.cwd(), *Path.cwd().parents], f"{example}: cd out of it"
        else:
            assert words[0] == "deckbuilder", f"{example}: cannot run '{command}'"
            stdout_to = None
            if len(words) > 2 and words[-2] == ">":
                stdout_to, words = Path(words[-1]), words[:-2]
            code, printed = run(words[1:], stdout_to)
            assert code in (0, 1), f"{example}: '{command}' exited with {code}:\n{printed}"
            if not shown_pattern(shown).fullmatch(printed):
                assert printed.splitlines() == shown, f"{example}: '{command}'"


def test_the_readme_guide_runs_as_a_person_follows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 44: the guide showed a cards/example.yaml that init does not write, and
    passed here because the runner writes each file a ``cat`` shows. The guide's steps
    run in an empty folder as a person types them: each ``cat`` shows a file the
    commands made, as it is, and nothing is written for them."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Your first deck")[1]
    blocks, _ = fenced_blocks(section.split("\n## ")[0])
    (guide,) = [Example(ROOT / "README.md", b.line, b.lines) for b in blocks if b.info == "console"]
    monkeypatch.chdir(tmp_path)
    shown_files = 0
    for command, shown in steps(guide):
        words = shlex.split(command)
        if words[0] == "cat":
            (target,) = words[1:]
            assert Path(target).is_file(), f"'{command}': the guide's commands did not make it"
            assert Path(target).read_text(encoding="utf-8").splitlines() == shown, command
            shown_files += 1
        elif words[0] == "cd":
            monkeypatch.chdir(words[1])
        else:
            code, printed = run(words[1:], None)
            assert code == 0, f"'{command}' exited with {code}:\n{printed}"
            if not shown_pattern(shown).fullmatch(printed):
                assert printed.splitlines() == shown, f"'{command}'"
    assert shown_files == 1
    starter = ROOT / "deckbuilder" / "starter" / "example.yaml"
    assert (tmp_path / "my-deck" / "cards" / "example.yaml").read_bytes() == starter.read_bytes()
    assert (tmp_path / "my-deck" / "output" / "cells.apkg").is_file()


def test_every_page_has_its_examples_found() -> None:
    """The runner sees the README's examples: a page whose fences it misread would pass
    with nothing run."""
    pages = {example.page for example in examples()}
    assert ROOT / "README.md" in pages
    assert ROOT / "docs" / "preview.md" in pages


def test_the_readme_is_a_guide_a_newcomer_can_finish() -> None:
    """Issue 32: the README had grown to 1,052 lines; details belong in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300


def test_ci_runs_the_test_command_the_readme_gives() -> None:
    """The README's contributor command is the one CI runs (.ci/run), so what a newcomer
    runs on a fresh machine is what CI proves works."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Developing\n")[1]
    blocks, _ = fenced_blocks(section)
    (command,) = next(block.lines for block in blocks if block.info == "sh")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line for line in ci if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert commands == [command]


# Links: [text](target) outside code, and <a href="target">.
LINK = re.compile(r"(?<!\\)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HREF = re.compile(r"<a\s[^>]*href=\"([^\"]+)\"")
# A code span (which may wrap onto the next line) holds no link.
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)")


def blank(match: re.Match[str]) -> str:
    """The match made spaces, its line breaks kept (so that line numbers stay right)."""
    return re.sub(r"[^\n]", " ", match.group())


def heading_anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings (and its explicit ``id``s)."""
    _, prose = fenced_blocks(page.read_text(encoding="utf-8"))
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose:
        anchors.update(re.findall(r"<a\s[^>]*(?:id|name)=\"([^\"]+)\"", line))
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1))
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def relative_links() -> list[tuple[str, Path, str]]:
    """Every link to a file of the project (web addresses, ``https:``, are left out)."""
    found = []
    for page in PAGES:
        _, prose = fenced_blocks(page.read_text(encoding="utf-8"))
        # A link's text may wrap onto the next line: the page's prose is searched whole.
        numbers = [number for number, line in prose for _ in range(len(line) + 1)]
        text = CODE_SPAN.sub(blank, "\n".join(line for _, line in prose))
        for match in [*LINK.finditer(text), *HREF.finditer(text)]:
            target = match.group(1)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                where = f"{page.relative_to(ROOT)}:{numbers[match.start()]}"
                found.append((where, page, target))
    return found


LINKS = relative_links()


@pytest.mark.parametrize(("where", "page", "target"), LINKS, ids=[f"{w} {t}" for w, _, t in LINKS])
def test_relative_link_resolves(where: str, page: Path, target: str) -> None:
    """Requirement (issue 32, item 5): every link of README.md and docs/ is checked."""
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    assert file.exists(), f"{where}: '{target}': no file {file.relative_to(ROOT)}"
    assert ROOT in file.parents, f"{where}: '{target}' leaves the project"
    if anchor:
        assert file.suffix == ".md", f"{where}: '{target}': an anchor in a file not Markdown"
        assert anchor in heading_anchors(file), f"{where}: '{target}': no such heading"
