"""The project folder's bounds: symbolic links that lead out of it.

A deck shared in git can carry ``media -> /home/you/.ssh`` or ``output -> /etc``. What
deckbuilder reads or writes on its own account (cards/, media/, output/, lock files, a
study block's history) must stay inside the project; a path the user names on the
command line is theirs to choose.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from deckbuilder.errors import DeckError, Problem


def link_out_of_project(path: Path, root: Path | None = None) -> tuple[Path, Path] | None:
    """The first symbolic link on the way from ``root`` (default: the working folder) to
    ``path`` that leads out of ``root``, and where it leads; None when there is none, or
    when ``path`` is not under ``root`` at all."""
    base = Path(os.path.abspath(root if root is not None else Path.cwd()))
    target = Path(os.path.abspath(path))
    if not target.is_relative_to(base):
        return None
    real_base = Path(os.path.realpath(base))
    step = base
    for part in target.relative_to(base).parts:
        step = step / part
        if step.is_symlink():
            real = Path(os.path.realpath(step))  # survives a loop of links, unlike resolve()
            if not real.is_relative_to(real_base):
                return Path(os.path.relpath(step, base)), real
    return None


def project_folder(card_file: Path) -> Path:
    """The project a card file belongs to, for what it may read on its own account: the
    working folder when the card file is in it, else the card file's own folder."""
    here = Path(os.path.abspath(Path.cwd()))
    card = Path(os.path.abspath(card_file))
    return here if card.is_relative_to(here) else card.parent


def refuse_links_out(paths: Iterable[Path], doing: str) -> None:
    """Raise DeckError naming every link on the way to ``paths`` that leads out of the
    project; ``doing`` says what is not done through it ('nothing is written through it')."""
    found: dict[Path, Path] = {}
    for path in paths:
        link = link_out_of_project(path)
        if link is not None:
            found.setdefault(*link)
    if found:
        raise DeckError(
            Problem(str(link), None, f"a link to '{real}', outside the project; {doing}")
            for link, real in found.items()
        )


def real_path_outside(path: Path, real_folders: Sequence[str]) -> Path | None:
    """Where ``path`` really is when symbolic links take it outside every one of
    ``real_folders`` (each already an ``os.path.realpath``); None: it is inside one.
    A shared deck repository can carry ``media/x.png -> /etc/passwd``; nothing such a
    link points at may be read into a package."""
    real = Path(os.path.realpath(path))  # realpath, unlike Path.resolve, survives link loops
    return None if any(real.is_relative_to(folder) for folder in real_folders) else real


def folder_link_outside(folder: Path) -> Path | None:
    """Where ``folder`` really is when it is a symbolic link out of the folder that holds
    it (``media -> /etc``, ``cards -> ../../.ssh``); None otherwise. The folders above
    it are where the user chose to work, and are not judged."""
    holder = os.path.realpath(Path(os.path.abspath(folder)).parent)
    return real_path_outside(folder, [holder])
