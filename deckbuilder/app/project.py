"""``init`` and ``schema``: a new project folder, and the card format for editors."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from deckbuilder.app.requests import InitRequest
from deckbuilder.cardfile.schema import card_schema
from deckbuilder.errors import OutputError
from deckbuilder.files.atomic import atomic_write_bytes
from deckbuilder.files.bounds import link_out_of_project

_FOLDERS = ("cards", "media", "output")


@dataclass(frozen=True)
class InitResult:
    card_file: Path  # the example card file
    folders: tuple[Path, ...]  # media/ and output/


def init_project(request: InitRequest) -> InitResult:
    """Make cards/example.yaml (one note of each type), media/ and output/ in the folder
    (made if missing). Refuses to overwrite anything; a failure leaves nothing behind."""
    folder = request.folder
    target = folder / "cards" / "example.yaml"
    text = resources.files("deckbuilder").joinpath("starter/example.yaml").read_bytes()
    created: list[Path] = []
    making = folder
    _refuse_to_overwrite(folder, target)
    try:
        for sub in _FOLDERS:
            making = folder / sub
            _make_folder(making, created)
        making = target
        atomic_write_bytes(target, text, replaced=request.written)
    except BaseException as exc:
        if target in request.written:
            raise  # an interrupt once the project is complete: it stays, folders and all
        for path in reversed(created):
            with suppress(OSError):
                path.rmdir()
        if not isinstance(exc, (OSError, OutputError)):
            raise
        cause = exc if isinstance(exc, OSError) else exc.__cause__
        if isinstance(exc, OSError) and exc.filename:
            making = Path(exc.filename)
        reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else str(exc)
        raise OutputError(f"cannot create {making}: {reason}; nothing was changed") from exc
    return InitResult(target, (folder / "media", folder / "output"))


def _refuse_to_overwrite(folder: Path, target: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} exists and is not a folder; nothing was changed")
    link = link_out_of_project(target, folder)  # a shared folder's 'cards -> /elsewhere'
    if link is not None:
        raise OutputError(
            f"{folder / link[0]} is a link to '{link[1]}', outside the project; nothing was changed"
        )
    if target.exists():
        raise OutputError(f"{target} already exists; nothing was changed")
    for path in (folder / sub for sub in _FOLDERS):
        if path.exists() and not path.is_dir():
            raise OutputError(f"{path} exists and is not a folder; nothing was changed")


def _make_folder(path: Path, created: list[Path]) -> None:
    """Make ``path`` and any missing parent, adding each folder made to ``created``."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir()
        created.append(folder)


def schema() -> dict[str, Any]:
    """The JSON Schema of the card format."""
    return card_schema()
