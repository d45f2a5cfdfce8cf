"""Symbolic links out of the project: a shared deck repository can carry
``media/x.png -> /etc/passwd`` or ``cards -> ../../.ssh``. Nothing they point at outside
may be read, listed or packaged; links that stay inside are fine."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.cardfile.reader import find_sources, read_text
from deckbuilder.cli.output import problem_line
from deckbuilder.errors import DeckError
from tests.app_calls import build_packages, check_decks
from tests.conftest import DATA, Run

PNG = (DATA / "media" / "square.png").read_bytes()
SECRET = b"\x89PNG-not-really: the private bytes of someone else's file"
DECK = "deck: D\nnotes:\n  - id: a\n    front: f\n    back: '![x](x.png)'\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``outside/`` (private files, not part of any project) beside ``proj/`` (the
    project: cards/, media/, the current folder)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(SECRET)
    (outside / "deck.yaml").write_text(DECK, encoding="utf-8")
    (outside / "more.png").write_bytes(SECRET + b"2")
    proj = tmp_path / "proj"
    (proj / "cards").mkdir(parents=True)
    (proj / "media").mkdir()
    monkeypatch.chdir(proj)
    return proj


def link(at: Path, target: str | Path) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(target)


def write_deck(proj: Path, back: str = "'![x](x.png)'") -> Path:
    source = proj / "cards" / "deck.yaml"
    source.write_text(f"deck: D\nnotes:\n  - id: a\n    front: f\n    back: {back}\n")
    return source


def problems(sources: list[Path]) -> list[str]:
    with pytest.raises(DeckError) as info:
        check_decks(sources, media_dir=Path("media"))
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize(
    ("where", "target", "back"),
    [
        ("media/x.png", "{outside}/secret.png", "'![x](x.png)'"),  # absolute link
        ("media/x.png", "../../outside/secret.png", "'![x](x.png)'"),  # relative link
        ("cards/x.png", "../../outside/secret.png", "'![x](x.png)'"),  # beside the card file
        ("media/x.mp3", "{outside}/secret.png", "'[sound:x.mp3]'"),
        ("media/sub", "{outside}", "'![x](sub/secret.png)'"),  # a linked folder
        ("media/hop.png", "../../outside/secret.png", "'![x](x.png)'"),  # a chain of links
    ],
)
def test_a_media_link_out_of_the_project_is_refused_at_its_line(
    home: Path, where: str, target: str, back: str
) -> None:
    link(home / where, target.format(outside=home.parent / "outside"))
    if where == "media/hop.png":
        link(home / "media" / "x.png", "hop.png")
    write_deck(home, back)
    (found,) = problems([Path("cards")])
    assert found.startswith("cards/deck.yaml:5: note 'a': media file '"), found
    assert f"is a link to '{home.parent / 'outside'}" in found
    assert "outside media/ and cards/; only files inside them are packaged" in found


def test_a_media_folder_that_links_out_is_refused(home: Path) -> None:
    (home / "media").rmdir()
    link(home / "media", "../outside")
    write_deck(home, "'![x](secret.png)'")
    (found,) = problems([Path("cards")])
    assert found == (
        f"cards/deck.yaml:5: note 'a': media folder 'media' is a link to "
        f"'{home.parent / 'outside'}', outside the project"
    )


def test_the_card_folder_cannot_lend_a_file_through_a_media_folder_link(home: Path) -> None:
    """``media -> /elsewhere`` makes /elsewhere no part of the project, so a link from the
    card folder into it is refused too."""
    (home / "media").rmdir()
    link(home / "media", "../outside")
    link(home / "cards" / "x.png", "../../outside/secret.png")
    write_deck(home)
    (found,) = problems([Path("cards")])
    assert "media file 'x.png' is a link to" in found
    assert "outside cards/; only files inside them are packaged" in found


@pytest.mark.parametrize(
    ("where", "target", "reference"),
    [
        ("media/x.png", "real.png", "x.png"),  # beside it
        ("media/x.png", "../cards/pics/real.png", "x.png"),  # from media/ into the card folder
        ("cards/x.png", "../media/real.png", "x.png"),  # from the card folder into media/
        ("media/sub", "media-real", "sub/real.png"),  # a folder link within media/
    ],
)
def test_links_that_stay_inside_are_packaged(
    home: Path, where: str, target: str, reference: str
) -> None:
    for folder in ("media", "cards/pics", "media/media-real"):
        (home / folder).mkdir(parents=True, exist_ok=True)
        (home / folder / "real.png").write_bytes(PNG)
    link(home / where, target)
    write_deck(home, f"'![x]({reference})'")
    (rd,) = check_decks([Path("cards")], media_dir=Path("media"))
    (name,) = rd.media
    assert rd.media[name].read_bytes() == PNG


def test_a_card_file_linking_out_of_its_folder_is_refused(home: Path) -> None:
    link(home / "cards" / "deck.yaml", "../../outside/deck.yaml")
    (found,) = problems([Path("cards")])
    assert found == (
        f"cards/deck.yaml: card file is a link to '{home.parent / 'outside' / 'deck.yaml'}', "
        "outside the folder it is in; it is not read (name the real place itself if you trust it)"
    )
    # Named on the command line, the link is refused as well.
    assert problems([Path("cards/deck.yaml")]) == [found]


def test_a_card_folder_linking_out_is_refused_and_not_walked(home: Path) -> None:
    (home / "cards").rmdir()
    link(home / "cards", "../outside")
    (found,) = problems([Path("cards")])
    assert found.startswith(f"cards: this folder is a link to '{home.parent / 'outside'}'")
    # The file the link points at is the user's own choice when named as it really is.
    (deck,) = [p.resolve() for p in find_sources([home.parent / "outside"])]
    assert deck == (home.parent / "outside" / "deck.yaml").resolve()


def test_card_links_inside_the_folder_are_read(home: Path) -> None:
    (home / "cards" / "real").mkdir()
    (home / "cards" / "real" / "deck.yaml").write_text(
        "deck: D\nnotes:\n  - {id: a, front: f, back: b}\n"
    )
    link(home / "cards" / "alias.yaml", "real/deck.yaml")
    assert find_sources([Path("cards")]) == [Path("cards/alias.yaml")]
    assert find_sources([Path("cards/alias.yaml")]) == [Path("cards/alias.yaml")]


def test_unused_media_warning_does_not_follow_links_out(home: Path) -> None:
    (home / "media" / "used.png").write_bytes(PNG)
    link(home / "media" / "x.png", "../../outside/secret.png")
    link(home / "media" / "elsewhere", "../../outside")  # a folder of someone else's files
    write_deck(home, "'![x](used.png)'")
    (rd,) = check_decks([Path("cards")], media_dir=Path("media"))
    outside = home.parent / "outside"
    assert [problem_line(w) for w in rd.warnings] == [
        f"media/elsewhere: warning: a link to '{outside}', outside media/ and the card folders;"
        " nothing is packaged through it",
        f"media/x.png: warning: a link to '{outside / 'secret.png'}', outside media/ and the"
        " card folders; nothing is packaged through it",
    ]


def test_a_media_folder_linking_out_is_one_warning_not_a_listing(home: Path) -> None:
    (home / "media").rmdir()
    link(home / "media", "../outside")
    write_deck(home, "b")
    (rd,) = check_decks([Path("cards")], media_dir=Path("media"))
    assert [problem_line(w) for w in rd.warnings] == [
        f"media: warning: this folder is a link to '{home.parent / 'outside'}', outside the "
        "project; nothing in it is packaged"
    ]


def test_a_build_never_packages_a_file_from_outside(home: Path, cli: Callable[..., Run]) -> None:
    (home / "media" / "inside.png").write_bytes(PNG)
    link(home / "media" / "alias.png", "inside.png")
    link(home / "media" / "x.png", "../../outside/secret.png")
    source = write_deck(home, "'![x](x.png) ![y](alias.png)'")
    refused = cli("build")
    assert refused.code == 1
    assert "cards/deck.yaml:5: note 'a': media file 'x.png' is a link to" in refused.err
    assert "Traceback" not in refused.err
    assert not (home / "output").exists() or list((home / "output").iterdir()) == []

    source.write_text(source.read_text().replace("![x](x.png) ", ""))
    built = cli("build")
    assert built.code == 0, built.err
    package = home / "output" / "deck.apkg"
    with zipfile.ZipFile(package) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    assert members["media"] == b'{"0": "alias.png"}'
    assert members["0"] == PNG
    assert all(SECRET not in data for data in members.values())
    assert "media/x.png: warning: a link to" in built.err


def test_build_refuses_links_out_before_writing(home: Path) -> None:
    link(home / "cards" / "x.png", str(home.parent / "outside" / "secret.png"))
    write_deck(home)
    with pytest.raises(DeckError):
        build_packages(
            [Path("cards")], Path("output"), timestamp=1_700_000_000, media_dir=Path("media")
        )
    assert not (home / "output").exists()


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_a_file_reporting_no_size_is_read_no_further_than_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """/proc files say they are empty; the reader must still stop at the limit."""
    assert os.stat("/proc/self/status").st_size == 0
    monkeypatch.setattr("deckbuilder.cardfile.reader.MAX_FILE_BYTES", 16)
    with pytest.raises(DeckError) as info:
        read_text(Path("/proc/self/status"))
    assert str(info.value) == "/proc/self/status: file is longer than the limit of 16 bytes"
