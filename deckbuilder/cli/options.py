"""Options several commands share, and what they mean."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from deckbuilder.app import ALL_LANGUAGES, Selection
from deckbuilder.cli.output import Session
from deckbuilder.errors import RequestError

Sources = Annotated[
    Optional[list[Path]],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Argument(
        help="Card files (.yaml) or folders of them. Default: cards/", show_default=False
    ),
]
OutDir = Annotated[
    Optional[Path],  # noqa: UP045 - typer needs Optional on Python 3.10
    typer.Option("--out", "-o", help="Folder to write packages to. Default: output/"),
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


def selection(
    sources: list[Path] | None,
    lang: str | None,
    fallback: bool = False,
    media: Path | None = None,
    *,
    every_language: bool = True,
) -> Selection:
    """The card files and language the options name. Without --lang: every language
    (``every_language``), else each deck's first."""
    chosen = lang.strip() if lang is not None else (ALL_LANGUAGES if every_language else None)
    return Selection(
        sources=tuple(sources) if sources else (Path("cards"),),
        lang=chosen,
        fallback=fallback,
        media_dir=media,
    )


def session_of(ctx: typer.Context, *, as_json: bool | None = None) -> Session:
    """The invocation's session; ``as_json``: whether the command prints one JSON object."""
    obj = ctx.find_root().obj
    session = obj if isinstance(obj, Session) else Session()
    if as_json is not None:
        session.json = as_json
    return session


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object (errors too).")]


def build_timestamp() -> int:
    """Build time for note modification times; SOURCE_DATE_EPOCH wins (reproducible
    builds). The library checks its range."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not env:
        return int(time.time())
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    if not re.fullmatch(r"[0-9]+", env) or len(env.lstrip("0")) > 12:
        shown = env if len(env) <= 30 else f"{env[:20]}..."
        raise RequestError.single(
            "timestamp",
            f"must be whole seconds from 0 (1970) to the end of year 9999, not {shown!r}",
        )
    return int(env)
