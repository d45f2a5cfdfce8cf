"""``watch --serve``: the preview pages of a watch, served to a browser on this machine.

The server listens on 127.0.0.1 only (another interface only when asked), on a free port,
and serves nothing but the pages it holds in memory, one per deck (each carries the small
script that keeps it current): there is no file behind a path, so no path can lead out
of the project, and no folder is ever listed. Requests naming another host are
refused, so that a web page elsewhere cannot reach the server through a name that
points here (DNS rebinding).

An open page asks ``/_changes?after=N``; the answer comes when a deck is rebuilt (or
after a while, empty), with the decks' versions, the notes that changed and the problems
of a deck that failed. The page then fetches its new data and redraws the changed cards
in place (see preview/static/live.js). :class:`LivePages` makes each deck's page from its
rebuild, with the preview command's default settings.
"""

from __future__ import annotations

import html
import json
import re
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from deckbuilder.app.building import BuildResult
from deckbuilder.app.packages import PackageResult
from deckbuilder.app.previewing import lint_by_note
from deckbuilder.app.requests import PreviewRequest
from deckbuilder.errors import Problem
from deckbuilder.model import Deck
from deckbuilder.preview.page import LintNotes, Removed, preview_page
from deckbuilder.preview.report import DeckPreview, preview_deck
from deckbuilder.preview.settings import settings_for
from deckbuilder.render.deck import RenderedDeck

LOCAL = "127.0.0.1"
# A version a page may ask about: the server counts from 1 and never nears 10**18.
_VERSION = re.compile(r"[0-9]{1,18}")
# How long a page's question waits for a change before it is answered "nothing yet".
WAIT_SECONDS = 20.0


@dataclass
class _Deck:
    title: str
    page: bytes = b""
    version: int = 0
    since: int = 0  # the version of the deck's publication before this one
    changed: list[str] = field(default_factory=list)  # note ids of the last rebuild
    problems: list[str] = field(default_factory=list)  # why the last rebuild failed


class LiveSite:
    """The pages of the decks being watched, and the server that shows them."""

    def __init__(self, host: str = LOCAL, port: int = 0) -> None:
        self.decks: dict[str, _Deck] = {}
        # Card files that failed before any of their decks was built: their problems.
        self.unbuilt: dict[str, list[str]] = {}
        self.version = 0
        self.changed = threading.Condition()
        self.server = _Server((host, port), _handler(self))
        address = self.server.server_address
        self.host, self.port = str(address[0]), int(address[1])
        # Asked every 0.1 s whether to stop, so that the watch ends at once.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def page_url(self) -> str:
        """Where to open the pages: the one deck's page when there is one deck, else
        the index of them all."""
        with self.changed:
            pages = [key for key, deck in self.decks.items() if deck.page]
            alone = len(self.decks) == 1 and len(pages) == 1 and not self.unbuilt
        return f"{self.url}deck/{quote(pages[0])}.html" if alone else self.url

    def publish(
        self,
        key: str,
        title: str | None,
        page: Callable[[int], str] | None,
        changed: Sequence[str] = (),
        problems: Sequence[str] = (),
    ) -> None:
        """A deck's next version: its page, made for the version number it is given
        (None: the last page stays, its rebuild failed), its title (None: unchanged),
        the notes that changed in it, and the problems that kept it from being rebuilt."""
        with self.changed:
            self.version += 1
            deck = self.decks.setdefault(key, _Deck(title or key))
            deck.title = title or deck.title
            if page is not None:
                deck.page = page(self.version).encode()
            deck.changed, deck.problems = list(changed), list(problems)
            deck.since, deck.version = deck.version, self.version
            self.changed.notify_all()

    def unbuilt_file(self, source: str, problems: Sequence[str]) -> None:
        """The problems of a card file none of whose decks has a page yet (none: it has
        built), listed on the index page."""
        with self.changed:
            if problems:
                self.unbuilt[source] = list(problems)
            else:
                self.unbuilt.pop(source, None)

    def state(self, after: int) -> dict[str, Any]:
        """What changed since version ``after``, once something has (or after a while)."""
        with self.changed:
            self.changed.wait_for(lambda: self.version > after, timeout=WAIT_SECONDS)
            return {
                "version": self.version,
                "decks": {
                    key: {
                        "version": d.version,
                        "since": d.since,
                        "changed": d.changed,
                        "problems": d.problems,
                    }
                    for key, d in self.decks.items()
                    if d.version > after
                },
            }

    def close(self) -> None:
        with self.changed:
            self.version += 1  # answer every waiting page at once
            self.changed.notify_all()
        self.server.shutdown()
        self.server.server_close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a page's waiting question does not hold up the end

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A page that went away while it was answered is nothing to tell."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler(site: LiveSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "deckbuilder"
        sys_version = ""

        def do_GET(self) -> None:
            if not self._from_here():
                self._send(HTTPStatus.FORBIDDEN, b"this server answers only this machine\n")
                return
            url = urlsplit(self.path)
            path = url.path
            if path == "/":
                self._send(HTTPStatus.OK, self._index(), "text/html; charset=utf-8")
            elif path == "/favicon.ico":  # the pages name none; a browser may ask anyway
                self._send(HTTPStatus.NO_CONTENT, b"")
            elif path == "/_changes":
                # Any page can send this: a version is what the server gave the page, a
                # whole number of ASCII digits, and no other answer tells the terminal.
                after = parse_qs(url.query, keep_blank_values=True).get("after", ["0"])
                if len(after) != 1 or not _VERSION.fullmatch(after[0]):
                    self._send(HTTPStatus.BAD_REQUEST, b"after: not a version number\n")
                    return
                body = json.dumps(site.state(int(after[0]))).encode()
                self._send(HTTPStatus.OK, body, "application/json")
            elif path.startswith("/deck/") and path.endswith(".html"):
                deck = site.decks.get(path[len("/deck/") : -len(".html")])
                if deck is None or not deck.page:
                    self._send(HTTPStatus.NOT_FOUND, b"no such deck\n")
                else:
                    self._send(HTTPStatus.OK, deck.page, "text/html; charset=utf-8")
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n")

        def _from_here(self) -> bool:
            """Whether the request names this server, by address or as localhost."""
            host = (self.headers.get("Host") or "").rsplit(":", 1)
            name = host[0].strip("[]").lower()
            port = host[1] if len(host) == 2 else ""
            return port == str(site.port) and name in {"localhost", site.host, "127.0.0.1"}

        def _index(self) -> bytes:
            with site.changed:
                decks = sorted((key, d.title, d.problems) for key, d in site.decks.items())
                unbuilt = sorted(site.unbuilt.items())
            items = "".join(
                f'<li><a href="/deck/{html.escape(key)}.html">{html.escape(title)}</a>'
                f"{_problems(problems)}</li>"
                for key, title, problems in decks
            ) + "".join(
                f"<li>{html.escape(source)} (not built yet){_problems(problems)}</li>"
                for source, problems in unbuilt
            )
            return _INDEX.format(style=_STYLE, night=_NIGHT, items=items).encode()

        def _send(self, status: HTTPStatus, body: bytes, kind: str = "text/plain") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Library code never prints: requests are not logged."""

    return Handler


def _static(name: str) -> str:
    """A file of the preview page's own (its style, its night mode)."""
    return (resources.files("deckbuilder.preview") / "static" / name).read_text("utf-8")


_STYLE = _static("page.css")
_NIGHT = _static("night.js")
# The index of the pages, in the pages' own style (day and night), asking for no icon.
_INDEX = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>deckbuilder watch</title>
<style>
{style}
</style>
</head>
<body>
<script>{night}</script>
<header class="top"><h1>Decks being watched</h1>
<p class="meta">Each page redraws the cards you save.</p></header>
<main><ul class="index">{items}</ul></main>
</body>
</html>
"""


def _problems(problems: Sequence[str]) -> str:
    if not problems:
        return ""
    return "<ul>" + "".join(f"<li>{html.escape(p)}</li>" for p in problems) + "</ul>"


class LivePages:
    """What ``watch --serve`` shows: each deck's preview page after each rebuild (with
    the preview command's default settings), or the problems that kept it from being
    rebuilt, beside its last good page."""

    def __init__(self, site: LiveSite, lint: bool = True) -> None:
        self.site = site
        self.lint = lint
        self.request = PreviewRequest(today=date.today())
        self.keys: dict[Path, list[str]] = {}  # card file -> the keys of its decks
        self.forecasts: dict[str, DeckPreview] = {}  # deck key -> its last forecast
        self.removed: dict[str, dict[str, int]] = {}  # deck key -> note id -> Anki note id

    def show(self, source: Path, result: BuildResult | None, problems: Sequence[Problem]) -> None:
        """Publish a card file's rebuild: its decks' new pages, or its problems."""
        if result is None:
            told = [str(problem) for problem in problems]
            keys = self.keys.get(source, [])
            for key in keys:
                self.site.publish(key, None, None, problems=told)
            self.site.unbuilt_file(str(source), [] if keys else told)
            return
        self.site.unbuilt_file(str(source), [])
        rendered = [package.rendered for package in result.packages]
        lint = lint_by_note(rendered) if self.lint else {}
        for package in result.packages:
            rd, changes = package.rendered, package.changes
            notes = lint.get(str(rd.deck.source), {})
            page = partial(_live_page, rd, self._forecast(rd.deck), notes, self._removed(package))
            # A note type's new templates or style change none of its notes, but all of
            # their cards.
            restyled = {spec.type_key for spec in changes.note_types_changed} | {
                replaced.new.type_key for replaced in changes.note_types_replaced
            }
            redrawn = [rn.note.id for rn in rd.notes if rn.spec.type_key in restyled]
            changed = [*changes.added, *changes.changed, *redrawn]
            self.site.publish(rd.deck.key, rd.deck.name, page, list(dict.fromkeys(changed)))
        self.keys[source] = [package.rendered.deck.key for package in result.packages]

    def _removed(self, package: PackageResult) -> list[Removed]:
        """The notes the deck's builds dropped since the watch began (each build's lock
        file forgets the notes it dropped), but those added back."""
        deck = package.rendered.deck
        removed = self.removed.setdefault(deck.key, {})
        for entry in package.changes.removed:
            removed[entry.id] = entry.anki_id
        for note in deck.notes:
            removed.pop(note.id, None)
        return list(removed.items())

    def _forecast(self, deck: Deck) -> DeckPreview:
        """The deck's forecast: the last one while its card count and settings hold
        (a saved wording changes neither, and a forecast takes a second)."""
        # A study-block history the preview cannot use gives the defaults, as build's
        # preview does (the page says so): the watch goes on.
        chosen = settings_for(deck, self.request.study, strict=False)
        last = self.forecasts.get(deck.key)
        if last is not None and last.deck.card_count == deck.card_count and last.chosen == chosen:
            forecast = replace(last, deck=deck)
        else:
            forecast = preview_deck(deck, chosen, self.request.days, self.request.seed)
        self.forecasts[deck.key] = forecast
        return forecast


def _live_page(
    rd: RenderedDeck, p: DeckPreview, lint: LintNotes, removed: Sequence[Removed], version: int
) -> str:
    return preview_page(rd, p, None, lint, removed, live=version)
