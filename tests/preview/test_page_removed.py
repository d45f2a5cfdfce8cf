"""The preview page lists the notes a build drops (issue "The authoring loop", 4): those of
the lock file the card file no longer has, with the `nid:` search that finds them in Anki,
whose import never deletes a note."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run

CliRun = Callable[..., Run]

NOTES = "".join(f"  - id: {n}\n    front: {n.upper()}?\n    back: {n.upper()}.\n" for n in "abc")


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cards").mkdir()
    card = tmp_path / "cards" / "small.yaml"
    card.write_text(f"deck: Small\nid: small\nnotes:\n{NOTES}", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return card


def _anki_ids(lock: Path) -> dict[str, str]:
    return dict(re.findall(r"^note (\S+) (\d+) ", lock.read_text(encoding="utf-8"), re.M))


def test_the_page_lists_the_notes_the_next_build_drops(small: Path, cli: CliRun) -> None:
    assert cli("build", "--no-preview").code == 0
    ids = _anki_ids(small.with_suffix(".lock"))
    result = cli("preview", "--html")
    assert result.code == 0, result.err
    page = Path("output/small.html").read_text(encoding="utf-8")
    assert '<div id="removed-notes"></div>' in page  # nothing dropped yet

    text = small.read_text(encoding="utf-8")
    small.write_text(re.sub(r"  - id: [ac]\n.*\n.*\n", "", text), encoding="utf-8")
    assert cli("preview", "--html").code == 0
    page = Path("output/small.html").read_text(encoding="utf-8")
    section = re.search(r'<div id="removed-notes">(.*?)</div>', page, re.S)
    assert section is not None
    assert "Removed notes" in section.group(1) and "a, c" in section.group(1)
    search = f'"deck:Small" -"deck:Small::*" nid:{ids["a"]},{ids["c"]}'
    assert f"<code>{search}</code>" in section.group(1)

    # The build then drops them, and prints the same search.
    built = cli("build", "--no-preview")
    assert f"nid:{ids['a']},{ids['c']}" in built.out
