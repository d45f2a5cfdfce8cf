"""`deckbuilder watch --serve` (issue "The authoring loop", 2): the open preview page redraws
a saved card in place (no reload of the page, the reader's place kept, the changed note
brought into view), shows a failed rebuild's problems while the last good package and page
stay, and the server answers only this machine, and only with its own pages."""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from deckbuilder import app
from deckbuilder.app.serving import LiveSite
from tests.browser import ARTIFACTS, DESKTOP, PHONE, Context
from tests.conftest import start_deckbuilder
from tests.preview.hostile import Recorded, assert_contained, hostile_deck, stun_server
from tests.preview.pages import side_text

NOTES = 60  # three pages of cards
DECK = "deck: One\nid: one\nnotes:\n" + "".join(
    f"  - id: n{i}\n    front: Question {i}\n    back: Answer {i}\n" for i in range(NOTES)
)
LIMIT = 2.0  # seconds from a save to the rebuilt package (see tests/app/test_watch.py)
SHOTS = ARTIFACTS / "watch-serve"

CARDS_LOADED = "() => document.documentElement.dataset.cardsLoaded === 'true'"
IN_VIEW = """id => {
  const box = document.getElementById('card-' + id + '-1').getBoundingClientRect();
  return box.bottom > 0 && box.top < window.innerHeight;
}"""


class Serving:
    """``app.watch`` with ``serve`` in a thread: the address of its pages, and its
    rebuilds on a queue."""

    def __init__(self, project: Path) -> None:
        self.stop = threading.Event()
        self.events: queue.Queue[app.Rebuild | app.Serving] = queue.Queue()
        request = app.WatchRequest(
            clock=lambda: 1_800_000_000,
            selection=app.Selection(sources=(project / "cards",), media_dir=project / "media"),
            out_dir=project / "output",
            lint=False,
            serve=True,
            stop=self.stop,
        )
        self.thread = threading.Thread(target=self._run, args=(request,), daemon=True)
        self.thread.start()
        # Where the pages are served is told once every deck has been built.
        self.built: list[app.Rebuild] = []
        while not isinstance(event := self.events.get(timeout=30), app.Serving):
            self.built.append(event)
        self.url = event.site  # the site's root
        self.told = event.url  # what the watch said to open

    def _run(self, request: app.WatchRequest) -> None:
        for event in app.watch(request):
            self.events.put(event)

    def next(self) -> app.Rebuild:
        if self.built:
            return self.built.pop(0)
        event = self.events.get(timeout=30)
        assert isinstance(event, app.Rebuild)
        return event


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for sub in ("cards", "media", "output"):
        (tmp_path / sub).mkdir()
    (tmp_path / "cards" / "one.yaml").write_text(DECK, "utf-8")
    return tmp_path


@pytest.fixture
def serving(project: Path) -> Iterator[Serving]:
    watcher = Serving(project)
    assert watcher.next().result is not None
    yield watcher
    watcher.stop.set()
    watcher.thread.join(timeout=10)
    assert not watcher.thread.is_alive()
    with pytest.raises(OSError):  # the watch's end closed the server
        socket.create_connection(("127.0.0.1", _port(watcher.url)), timeout=2).close()


def _port(url: str) -> int:
    return int(url.rstrip("/").rsplit(":", 1)[1])


@pytest.fixture
def page(browser: Any, serving: Serving) -> Iterator[Any]:
    context = Context(browser, viewport=DESKTOP)
    yield _open(context, serving.url)
    context.close()


def _open(context: Any, url: str) -> Any:
    """The deck's page, once served (it is made after the rebuild is told), with a mark
    that a reload of the page would lose: a global of the page's window."""
    opened = context.new_page()
    deadline = time.monotonic() + 60
    while opened.goto(url + "deck/one.html").status != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    _until(opened, CARDS_LOADED, None, True, 60)
    opened.evaluate("window.stillTheSamePage = true")
    return opened


def _front_text(page: Any, note: str) -> str:
    """The text of a note's first front (its frame is sandboxed: the page's own script
    cannot read it, Playwright can); "" while it is being redrawn."""
    try:
        return side_text(page, f"#card-{note}-1 .side.front iframe")
    except PlaywrightError:  # the frame went away as it was read
        return ""


def _until(
    page: Any,
    function: str | Callable[[Any, Any], Any],
    arg: Any,
    wanted: str | bool,
    timeout: float = 10,
) -> None:
    """Wait until ``function(arg)`` in the page gives ``wanted`` (or a text holding it).
    Polled from here: the page's CSP forbids the string evaluation of Playwright's own
    waiting. ``function``: JavaScript, or a Python function of the page and ``arg``."""
    deadline = time.monotonic() + timeout
    while True:
        got = function(page, arg) if callable(function) else page.evaluate(function, arg)
        if got == wanted or (isinstance(wanted, str) and isinstance(got, str) and wanted in got):
            return
        assert time.monotonic() < deadline, f"{function}({arg!r}) is {got!r}"
        time.sleep(0.05)


def _save(card: Path, old: str, new: str) -> float:
    text = card.read_text("utf-8")
    assert old in text
    temp = card.with_name(f".{card.name}.swp")  # as editors save: a new file renamed
    temp.write_text(text.replace(old, new), "utf-8")
    os.replace(temp, card)
    return time.monotonic()


@pytest.mark.browser
def test_a_saved_card_is_redrawn_in_place(project: Path, serving: Serving, page: Any) -> None:
    """The package is rebuilt within two seconds of the save; the page's card shows the
    new text without the page reloading, the other cards keep their frames, and the
    reader's scroll position stays."""
    page.evaluate("document.getElementById('card-n7-1').scrollIntoView()")
    page.evaluate("document.querySelector('#card-n8-1 iframe').dataset.untouched = 'yes'")
    page.wait_for_timeout(300)
    before_y = page.evaluate("window.scrollY")
    assert before_y > 0
    package = project / "output" / "one.apkg"
    before = package.read_bytes()
    saved = _save(project / "cards" / "one.yaml", "Question 7\n", "Question seven\n")
    rebuild = serving.next()
    assert time.monotonic() - saved < LIMIT
    assert rebuild.result is not None and rebuild.result.packages[0].changes.changed == ("n7",)
    assert package.read_bytes() != before
    _until(page, _front_text, "n7", "Question seven")
    page.wait_for_timeout(300)  # the new frames take their height
    assert page.evaluate("window.stillTheSamePage") is True
    assert page.evaluate("document.querySelector('#card-n8-1 iframe').dataset.untouched") == "yes"
    assert abs(page.evaluate("window.scrollY") - before_y) <= 2
    assert page.evaluate(IN_VIEW, "n7")
    assert page.evaluate("document.getElementById('card-n7-1').classList.contains('target')")


@pytest.mark.browser
def test_a_change_elsewhere_is_brought_into_view(
    project: Path, serving: Serving, page: Any
) -> None:
    """A saved note on another page of cards: the page of cards turns to it and scrolls
    it into view, still without a reload."""
    _save(project / "cards" / "one.yaml", "Question 57\n", "Question fifty-seven\n")
    assert serving.next().result is not None
    _until(page, _front_text, "n57", "fifty-seven")
    assert page.evaluate("window.stillTheSamePage") is True
    page.wait_for_timeout(300)
    assert page.evaluate(IN_VIEW, "n57")
    assert "Cards 51" in page.inner_text("#found")


@pytest.mark.browser
def test_removed_notes_are_listed_with_their_search(
    project: Path, serving: Serving, page: Any
) -> None:
    """A note deleted from the card file: the page lists it with the nid: search that
    finds it in Anki (the build's own), and its card is gone; the list lasts the watch,
    until the note is back."""
    card = project / "cards" / "one.yaml"
    card.write_text(DECK.replace("  - id: n3\n    front: Question 3\n    back: Answer 3\n", ""))
    rebuild = serving.next()
    assert rebuild.result is not None
    (removed,) = rebuild.result.packages[0].changes.removed
    _until(page, "() => document.querySelector('#removed-notes section') !== null", None, True)
    text = page.inner_text("#removed-notes")
    assert "n3" in text and f"nid:{removed.anki_id}" in text
    assert page.evaluate("document.getElementById('card-n3-1')") is None
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#removed-notes").screenshot(path=str(SHOTS / "removed-desktop-day.png"))
    # The next build's lock file no longer lists it; the page still does, until it is back.
    _save(card, "Question 5\n", "Question five\n")
    assert serving.next().result is not None
    _until(page, _front_text, "n5", "Question five")
    assert f"nid:{removed.anki_id}" in page.inner_text("#removed-notes")
    card.write_text(DECK, "utf-8")
    assert serving.next().result is not None
    _until(page, "() => document.querySelector('#removed-notes').textContent === ''", None, True)
    assert page.evaluate("window.stillTheSamePage") is True


@pytest.mark.browser
def test_a_hostile_card_script_reaches_nothing_on_the_server(tmp_path: Path, browser: Any) -> None:
    """Issue 45: an imported note type's script on a served page (tests/preview/hostile.py)
    asks the server for another deck's page and for its index, by every means, and takes
    its frame there: no request reaches the server but the page's own, and the script
    reads nothing of the page around it. Before the sandbox it read the other deck's page
    (its frame shared the server's origin, whose requests the page's policy allows)."""
    for sub in ("media", "output"):
        (tmp_path / sub).mkdir()
    targets = ["http://exfil.invalid/steal", "/", "/deck/two.html", "/_changes?after=0"]
    with stun_server() as stun:
        hostile_deck(
            tmp_path / "cards",
            "hostile",
            targets,
            top="/deck/two.html",
            navigate_to="/deck/two.html",
            stun_port=stun.getsockname()[1],
        )
        (tmp_path / "cards" / "two.yaml").write_text(
            "deck: Two\nid: two\nnotes:\n  - {id: s, front: Deck two's secret, back: Kept}\n",
            "utf-8",
        )
        watcher = Serving(tmp_path)
        try:
            for _ in range(2):
                assert watcher.next().result is not None
            page = f"{watcher.url}deck/hostile.html"

            def own(url: str) -> bool:  # the page itself, and its question for the next build
                return url == page or url.startswith(f"{watcher.url}_changes?after=")

            tab = Recorded(browser, page, own)
            try:
                _until(tab.page, CARDS_LOADED, None, True, 60)
                assert_contained(tab, targets, stun)
                assert tab.routed and all(own(url) for url in tab.routed), tab.routed
                assert [url for url in tab.routed if "stolen" in url] == []
                assert {reason for _, reason in tab.failed} <= {"csp"}, tab.failed
                assert tab.page.url == page
            finally:
                tab.close()
        finally:
            watcher.stop.set()
            watcher.thread.join(timeout=10)


@pytest.mark.browser
def test_a_saved_template_redraws_the_cards_of_its_note_type(tmp_path: Path, browser: Any) -> None:
    """A saved template (or style) of the deck's own note type changes no note: the open
    page redrew nothing, and showed the old template until it was reloaded."""
    for sub in ("cards", "media", "output"):
        (tmp_path / sub).mkdir()
    card = tmp_path / "cards" / "one.yaml"
    card.write_text(
        "deck: One\nid: one\nnote_types:\n  vocab:\n    name: Vocab\n"
        "    fields: [Word, Meaning]\n    cards:\n      - name: Recognition\n"
        "        front: 'Say {{Word}}'\n        back: '{{FrontSide}}<hr id=answer>{{Meaning}}'\n"
        "notes:\n  - {id: w1, type: vocab, fields: {Word: hello, Meaning: greeting}}\n"
        "  - {id: n1, front: Question 1, back: Answer 1}\n",
        "utf-8",
    )
    watcher = Serving(tmp_path)
    context = Context(browser, viewport=DESKTOP)
    try:
        assert watcher.next().result is not None
        page = _open(context, watcher.url)
        assert "Say hello" in _front_text(page, "w1")
        _save(card, "Say {{Word}}", "Spell {{Word}}")
        rebuild = watcher.next()
        assert rebuild.result is not None and rebuild.result.packages[0].changes.changed == ()
        _until(page, _front_text, "w1", "Spell hello")
        assert page.evaluate("window.stillTheSamePage") is True
    finally:
        context.close()
        watcher.stop.set()
        watcher.thread.join(timeout=10)


def test_a_content_error_is_told_to_the_page(project: Path, serving: Serving) -> None:
    """Not only YAML mistakes: a note the checks refuse (two notes with one id) is told to
    the open page with its file and line, and the page and package stay as they were."""
    site = f"127.0.0.1:{_port(serving.url)}"
    deadline = time.monotonic() + 30
    while (got := _get_url(serving.url, "/deck/one.html", site))[0] != 200:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    page = got[1]
    package = (project / "output" / "one.apkg").read_bytes()
    live = re.search(rb'name="deckbuilder-live" content="(\d+)"', page)
    assert live is not None
    version = int(live[1])
    _save(project / "cards" / "one.yaml", "  - id: n9\n", "  - id: n8\n")
    assert serving.next().result is None
    status, answer = _get_url(serving.url, f"/_changes?after={version}", site)
    assert status == 200
    (problem,) = json.loads(answer)["decks"]["one"]["problems"]
    assert "one.yaml:31" in problem and "n8" in problem
    assert _get_url(serving.url, "/deck/one.html", site) == (200, page)
    assert (project / "output" / "one.apkg").read_bytes() == package


def test_ctrl_c_during_a_rebuild_leaves_nothing_half_written(project: Path) -> None:
    """SIGINT right after a save, while the deck is being rebuilt: the watch and its
    server stop, no temporary file is left, and the package is whole (old or new)."""
    card = project / "cards" / "one.yaml"
    big = "deck: One\nid: one\nnotes:\n" + "".join(
        f"  - id: n{i}\n    front: Question {i}\n    back: Answer {i}\n" for i in range(2000)
    )
    card.write_text(big, "utf-8")
    proc = start_deckbuilder(
        ["watch", "--serve"], project, {**os.environ, "SOURCE_DATE_EPOCH": "1800000000"}
    )
    try:
        before: list[str] = []
        url = _read_url(proc, before)
        assert any("wrote output/one.apkg" in line for line in before), before
        old = (project / "output" / "one.apkg").read_bytes()
        _save(card, "Question 5\n", "Question five\n")
        time.sleep(0.5)  # the rebuild is under way (2,000 notes take longer)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert err.strip().endswith("stopped watching")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", _port(url)), timeout=2).close()
    assert [p.name for p in project.rglob("*") if ".tmp" in p.name] == []
    package = (project / "output" / "one.apkg").read_bytes()
    with zipfile.ZipFile(project / "output" / "one.apkg") as whole:
        assert whole.testzip() is None
    assert package == old or b"Question five" in _collection(project / "output" / "one.apkg")


def _collection(package: Path) -> bytes:
    with zipfile.ZipFile(package) as whole:
        return whole.read("collection.anki2")


def _read_url(proc: subprocess.Popen[str], lines: list[str] | None = None) -> str:
    """The site's root, from the address the watch prints once its deck is built: its
    one deck's page. ``lines`` gets what the watch printed before it."""
    assert proc.stdout is not None
    for _ in range(5):
        line = proc.stdout.readline()
        if line.startswith("preview page at "):
            told = line.split()[3]
            assert told.endswith("/deck/one.html"), line
            return told.removesuffix("deck/one.html")
        if lines is not None:
            lines.append(line)
    raise AssertionError("no address printed")


@pytest.mark.browser
def test_a_broken_save_shows_on_the_page_and_in_the_terminal(project: Path, browser: Any) -> None:
    """`deckbuilder watch --serve`: the address is printed; a YAML mistake leaves the last
    good package and page and shows the problem in a banner on the page and on stderr;
    the next good save clears it; Ctrl-C stops the server and leaves no temporary file."""
    proc = start_deckbuilder(
        ["watch", "--serve"], project, {**os.environ, "SOURCE_DATE_EPOCH": "1800000000"}
    )
    context = Context(browser, viewport=PHONE)
    try:
        url = _read_url(proc)
        assert url.startswith("http://127.0.0.1:")
        package = project / "output" / "one.apkg"
        opened = _open(context, url)
        good = package.read_bytes()
        card = project / "cards" / "one.yaml"
        card.write_text(DECK.replace("  - id: n3\n", "  - id: n3\n\tbad: tab\n"), "utf-8")
        banner = opened.locator(".live-banner")
        banner.wait_for(state="visible", timeout=10_000)
        assert "one.yaml:14" in banner.inner_text() and "tab" in banner.inner_text()
        assert package.read_bytes() == good
        assert _front_text(opened, "n0").strip().startswith("Question 0")
        for night in (False, True):
            if night:
                opened.click("#night")
            SHOTS.mkdir(parents=True, exist_ok=True)
            opened.screenshot(path=str(SHOTS / f"problem-phone-{'night' if night else 'day'}.png"))
        card.write_text(DECK.replace("Question 0\n", "Question zero\n"), "utf-8")
        banner.wait_for(state="hidden", timeout=10_000)
        _until(opened, _front_text, "n0", "Question zero")
        assert opened.evaluate("window.stillTheSamePage") is True
        opened.screenshot(path=str(SHOTS / "redrawn-phone-night.png"))
        opened.click("#night")
        opened.evaluate("document.getElementById('card-n0-1').scrollIntoView()")
        opened.screenshot(path=str(SHOTS / "redrawn-phone-day.png"))
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        context.close()
        proc.kill()
    assert proc.returncode == 0, err
    assert "one.yaml:14" in err and "nothing was written" in err
    assert err.strip().endswith("stopped watching")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", _port(url)), timeout=2).close()
    left = [p.name for p in project.rglob("*") if ".tmp" in p.name or p.name.startswith(".")]
    assert left == []
    with zipfile.ZipFile(package) as whole:
        assert whole.testzip() is None


# -- what the server answers ---------------------------------------------------------


@pytest.fixture
def site() -> Iterator[LiveSite]:
    live = LiveSite()
    live.publish("one", "One", lambda version: f"<!doctype html><p>page {version}</p>")
    yield live
    live.close()


def _get(site: LiveSite, path: str, host: str | None = None) -> tuple[int, bytes]:
    return _get_url(site.url, path, host)


def _get_url(url: str, path: str, host: str | None = None) -> tuple[int, bytes]:
    """A GET of ``path`` exactly as written (no client tidies it), naming ``host``."""
    conn = http.client.HTTPConnection("127.0.0.1", _port(url), timeout=30)
    try:
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_the_server_listens_on_this_machine_only(site: LiveSite) -> None:
    """Bound to 127.0.0.1 itself: another address, even one of the loopback network
    (127.0.0.2), finds nothing listening."""
    assert site.server.socket.getsockname()[0] == "127.0.0.1"
    assert site.url == f"http://127.0.0.1:{site.port}/"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.2", site.port), timeout=2).close()


@pytest.mark.parametrize(
    "host",
    [None, "evil.example:{port}", "evil.example", "127.0.0.1:1", "127.0.0.1.evil.example:{port}"],
)
def test_a_request_naming_another_host_is_refused(site: LiveSite, host: str | None) -> None:
    """A page elsewhere whose name points here (DNS rebinding) gets nothing."""
    named = None if host is None else host.format(port=site.port)
    status, body = _get(site, "/deck/one.html", named)
    assert status == 403 and b"page" not in body


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_this_machine_is_answered(site: LiveSite, host: str) -> None:
    assert _get(site, "/deck/one.html", host.format(port=site.port)) == (
        200,
        b"<!doctype html><p>page 1</p>",
    )


@pytest.mark.parametrize(
    "path",
    [
        "/../pyproject.toml",
        "/pyproject.toml",
        "/cards/",
        "/cards/one.yaml",
        "/output/",
        "/deck/",
        "/deck/../../x",
        "/deck/../../x.html",
        "/deck/%2e%2e/%2e%2e/pyproject.toml",
        "/deck/one.html/../../pyproject.toml",
        "/_live.js",
        "//etc/passwd",
        "/deck/two.html",
    ],
)
def test_only_the_pages_are_served(site: LiveSite, path: str) -> None:
    """No path leads to a file or lists a folder: there is no file behind any path."""
    status, body = _get(site, path, f"127.0.0.1:{site.port}")
    assert status in (403, 404) and b"<li>" not in body and b"[tool" not in body


def test_a_failed_rebuild_is_answered_to_the_waiting_page(site: LiveSite) -> None:
    """The long poll: a page waiting after version 1 is answered with the deck's
    problems; its page stays the last good one."""
    answers: queue.Queue[dict[str, Any]] = queue.Queue()
    waiting = threading.Thread(target=lambda: answers.put(site.state(1)), daemon=True)
    waiting.start()
    time.sleep(0.2)
    site.publish("one", None, None, problems=["cards/one.yaml:3: mistake"])
    state = answers.get(timeout=5)
    assert state["version"] == 2
    assert state["decks"]["one"] == {
        "version": 2,
        "since": 1,
        "changed": [],
        "problems": ["cards/one.yaml:3: mistake"],
    }
    assert (
        _get(site, "/deck/one.html", f"localhost:{site.port}")[1] == b"<!doctype html><p>page 1</p>"
    )


def test_a_card_file_never_built_is_listed_with_its_problems(site: LiveSite) -> None:
    """The index names a card file none of whose decks has a page yet, with its problems
    as text (a problem quotes the card file, which may hold markup)."""
    site.unbuilt_file("cards/two.yaml", ["cards/two.yaml:2: '<script>alert(1)</script>'"])
    status, index = _get(site, "/", f"127.0.0.1:{site.port}")
    assert status == 200
    assert b'<a href="/deck/one.html">One</a>' in index
    assert b"cards/two.yaml (not built yet)" in index
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in index and b"<script>alert" not in index
    assert index.count(b"<script>") == 1  # the pages' own night mode, as on each page
    site.unbuilt_file("cards/two.yaml", [])
    assert b"two.yaml" not in _get(site, "/", f"127.0.0.1:{site.port}")[1]


@pytest.mark.parametrize(
    "after",
    ["x", "-1", "1.5", "", "%C2%B2", "%D9%A1", "1" * 19, "9" * 5000, "1&after=2", "0x10"],
)
def test_an_odd_version_is_a_bad_request_without_a_traceback(
    site: LiveSite, after: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """Any web page can ask ``/_changes?after=``: a version that is not a whole number the
    server could have given (a superscript two, an Arabic-Indic one, 5,000 digits past
    Python's int limit)
    printed a traceback in the watch's terminal (issue 45)."""
    status, body = _get(site, f"/_changes?after={after}", f"127.0.0.1:{site.port}")
    assert status == 400 and body == b"after: not a version number\n"
    assert _get(site, "/_changes?after=0", f"127.0.0.1:{site.port}")[0] == 200
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err + captured.out


def test_a_history_the_preview_cannot_use_keeps_the_watch_serving(project: Path) -> None:
    """A study block's history with a review dated 2**62 ms on made the page's forecast
    overflow and ended the watch (issue 45): the page is served with the default
    parameters, as build's preview uses them."""
    from tests.anki.anki_files import collection

    day = 86_400_000
    rows = [
        (1_600_000_000_000 + card * 1000 + k * 3 * day, card, 3, int(k > 0), 2500)
        for card in range(20)
        for k in range(6)
    ]
    collection(project / "cards" / "far.anki2", revlog=[*rows, (1 << 62, 19, 3, 1, 2500)])
    card = project / "cards" / "one.yaml"
    card.write_text(DECK.replace("id: one\n", "id: one\nstudy:\n  history: far.anki2\n"), "utf-8")
    watcher = Serving(project)
    try:
        assert watcher.next().result is not None
        deadline = time.monotonic() + 30
        while (status := _get_url(watcher.url, "/deck/one.html", _host(watcher))[0]) != 200:
            assert time.monotonic() < deadline and watcher.thread.is_alive(), status
            time.sleep(0.1)
        assert watcher.thread.is_alive()
    finally:
        watcher.stop.set()
        watcher.thread.join(timeout=10)


# -- issue 44 ------------------------------------------------------------------------
def test_with_one_deck_the_watch_tells_that_decks_page(serving: Serving) -> None:
    """Issue 44: it printed the address of the index even when there was one deck."""
    assert serving.told == f"{serving.url}deck/one.html"


def test_with_several_decks_the_watch_tells_the_index(project: Path) -> None:
    (project / "cards" / "two.yaml").write_text(DECK.replace("id: one", "id: two"), "utf-8")
    watcher = Serving(project)
    try:
        assert watcher.told == watcher.url
        assert len(watcher.built) == 2
    finally:
        watcher.stop.set()
        watcher.thread.join(timeout=10)


def _host(watcher: Serving) -> str:
    return f"127.0.0.1:{_port(watcher.url)}"


def test_the_index_is_styled_as_the_pages_and_asks_for_no_icon(site: LiveSite) -> None:
    """Issue 44: the index was unstyled, and the browser asked for a missing
    /favicon.ico."""
    status, index = _get(site, "/", f"127.0.0.1:{site.port}")
    assert status == 200
    text = index.decode()
    assert "header.top, main { max-width: 1200px;" in text  # the page's own style
    assert '<link rel="icon" href="data:,">' in text
    assert "Content-Security-Policy" in text and 'class="top"' in text
    assert _get(site, "/favicon.ico", f"127.0.0.1:{site.port}") == (204, b"")


@pytest.mark.browser
def test_the_browser_asks_for_nothing_but_the_page(
    project: Path, serving: Serving, browser: Any
) -> None:
    """No request for /favicon.ico (or anything else) from the deck's page or the index."""
    context = Context(browser, viewport=DESKTOP)
    asked: list[str] = []
    context.on("request", lambda request: asked.append(request.url))
    try:
        opened = _open(context, serving.url)
        opened.goto(serving.url)
        opened.wait_for_timeout(500)
    finally:
        context.close()
    assert not [url for url in asked if "favicon" in url], asked
    assert {url.removeprefix(serving.url).split("?")[0] for url in asked} <= {
        "deck/one.html",
        "_changes",
        "",
    }
