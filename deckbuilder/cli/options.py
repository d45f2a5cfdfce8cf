"""Options several commands share, and what they mean."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from deckbuilder.cli.output import Session
from deckbuilder.errors import UsageError

__all__ = [
    "Fallback",
    "Jobs",
    "JsonFlag",
    "Lang",
    "MediaDir",
    "Sources",
    "build_timestamp",
    "checked_lang",
    "session_of",
    "source_paths",
]

Sources = Annotated[
    Optional[list[Path]],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Argument(
        help="Card files (.yaml) or folders of them. Default: cards/", show_default=False
    ),
]
MediaDir = Annotated[
    Path, typer.Option("--media", help="Folder of images and sounds the cards refer to.")
]
Lang = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Option(
        "--lang",
        help="Language of decks that declare 'languages:': a code (ko) or 'all'. "
        "Files without 'languages:' are unaffected.",
        show_default=False,
    ),
]
Fallback = Annotated[
    bool,
    typer.Option(
        "--fallback",
        help="A text missing the language uses the deck's default language (with a "
        "warning) instead of failing.",
    ),
]

Jobs = Annotated[
    Optional[int],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Option(
        "--jobs",
        "-j",
        help="Ignored; accepted until the next release so that scripts keep working "
        "(card files are read in one process).",
        show_default=False,
    ),
]


def checked_lang(value: str | None, default: str | None) -> str | None:
    """Check --lang; None means the deck's first language."""
    from deckbuilder.cardfile.reader import ALL_LANGUAGES, LANG_RE

    if value is None:
        return default
    value = value.strip()
    if value != ALL_LANGUAGES and not LANG_RE.match(value):
        raise UsageError(f"--lang must be a language code like ko or en, or 'all', not {value!r}")
    return value


def session_of(ctx: typer.Context) -> Session:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Session) else Session()


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object (errors too).")]


def source_paths(sources: list[Path] | None) -> list[Path]:
    return list(sources) if sources else [Path("cards")]


def build_timestamp() -> int:
    """Build time for note modification times; SOURCE_DATE_EPOCH wins (reproducible builds)."""
    from deckbuilder.lock.manifest import LAST_SECOND

    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not env:
        return int(time.time())
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    digits = env.lstrip("0")
    if not re.fullmatch(r"[0-9]+", env) or len(digits) > 12 or int(env) > LAST_SECOND:
        shown = env if len(env) <= 30 else f"{env[:20]}..."
        raise UsageError(
            f"SOURCE_DATE_EPOCH must be whole seconds from 0 (1970) to {LAST_SECOND} "
            f"(the end of year 9999, where lock file dates end), not {shown!r}"
        )
    return int(env)
