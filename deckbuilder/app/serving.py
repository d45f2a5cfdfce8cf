"""``watch --serve``: the preview pages of a watch, served to a browser on this machine.

The server listens on 127.0.0.1 only (another interface only when asked), on a free port,
and serves nothing but the pages it holds in memory, one per deck, and the small script
that keeps an open page current: there is no file behind a path, so no path can lead
out of the project, and no folder is ever listed. Requests naming another host are
refused, so that a web page elsewhere cannot reach the server through a name that
points here (DNS rebinding).

An open page asks ``/_changes?after=N``; the answer comes when a deck is rebuilt (or
after a while, empty), with the decks' versions, the notes that changed and the problems
of a deck that failed. The page then fetches its new data and redraws the changed cards
in place (see preview/static/live.js).
"""

from __future__ import annotations

import html
import json
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["LOCAL", "LiveSite"]

LOCAL = "127.0.0.1"
# How long a page's question waits for a change before it is answered "nothing yet".
WAIT_SECONDS = 20.0
_LIVE_SCRIPT = '<script src="/_live.js"></script>'


@dataclass
class _Deck:
    title: str
    page: bytes = b""
    version: int = 0
    changed: list[str] = field(default_factory=list)  # note ids of the last rebuild
    problems: list[str] = field(default_factory=list)  # why the last rebuild failed


class LiveSite:
    """The pages of the decks being watched, and the server that shows them."""

    def __init__(self, host: str = LOCAL, port: int = 0) -> None:
        self.decks: dict[str, _Deck] = {}
        self.version = 0
        self.changed = threading.Condition()
        self.server = ThreadingHTTPServer((host, port), _handler(self))
        self.server.daemon_threads = True
        address = self.server.server_address
        self.host, self.port = str(address[0]), int(address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def publish(
        self,
        key: str,
        title: str,
        page: str | None,
        changed: list[str] | tuple[str, ...] = (),
        problems: list[str] | tuple[str, ...] = (),
    ) -> None:
        """A deck's new page (None: keep the last one, its rebuild failed), the notes
        that changed in it, and the problems that kept it from being rebuilt."""
        with self.changed:
            deck = self.decks.setdefault(key, _Deck(title))
            deck.title = title
            if page is not None:
                deck.page = page.replace("</body>", f"{_LIVE_SCRIPT}\n</body>", 1).encode()
            deck.changed, deck.problems = list(changed), list(problems)
            self.version += 1
            deck.version = self.version
            self.changed.notify_all()

    def state(self, after: int) -> dict[str, Any]:
        """What changed since version ``after``, once something has (or after a while)."""
        with self.changed:
            self.changed.wait_for(lambda: self.version > after, timeout=WAIT_SECONDS)
            return {
                "version": self.version,
                "decks": {
                    key: {"version": d.version, "changed": d.changed, "problems": d.problems}
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


def _live_script() -> bytes:
    return (resources.files("deckbuilder.preview") / "static" / "live.js").read_bytes()


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
            elif path == "/_live.js":
                self._send(HTTPStatus.OK, _live_script(), "text/javascript; charset=utf-8")
            elif path == "/_changes":
                after = parse_qs(url.query).get("after", ["0"])[0]
                number = int(after) if after.isdigit() else 0
                body = json.dumps(site.state(number)).encode()
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
            items = "".join(
                f'<li><a href="/deck/{html.escape(key)}.html">{html.escape(deck.title)}</a></li>'
                for key, deck in sorted(site.decks.items())
            )
            return (
                "<!doctype html><meta charset=utf-8><title>deckbuilder watch</title>"
                f"<h1>Decks being watched</h1><ul>{items}</ul>"
            ).encode()

        def _send(self, status: HTTPStatus, body: bytes, kind: str = "text/plain") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Library code never prints: requests are not logged."""

    return Handler
