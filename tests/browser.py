"""Play Anki cards in headless Chromium the way the real clients show them.

Two client models, both fed the HTML that the real Anki backend renders for a card:

* :class:`AnkiDroidPlayer`: AnkiDroid's classic reviewer (its default study screen): every
  side is a whole new document in the same tab, shaped like AnkiDroid's
  ``card_template.html`` (``<html class="mobile android linux js">``, ``<body class="card
  cardN">``, the side inside ``<div id="content" dir="auto"><div id="qa">``, as
  ``AndroidCardRenderContext.renderCard`` wraps it). ``window`` globals die between sides;
  ``sessionStorage`` survives. :class:`AnkiDroidInCardPlayer` is the same with Settings >
  Advanced > "Type answer into the card" on.
* :class:`DesktopPlayer`: Anki desktop's own reviewer page code (``reviewer.js`` and its CSS
  from the ``aqt`` wheel of the installed ``anki`` version), on one long-lived page with
  ``<div id="qa">``. ``_showQuestion`` / ``_showAnswer`` swap each side in and re-create its
  scripts, so globals persist from card to card, as on desktop.

Both handle Anki's type-answer field, ``{{type:Field}}``, which the backend leaves in a
side as ``[[type:Field]]`` for the client to fill, as the real clients do (see
:class:`TypeAnswerField`, :meth:`Player.type_answer` and each player's ``show_*``): the
front gets the client's answer box, and the back the backend's own comparison
(``col.compare_answer``) of the field with what the learner typed.

Pages are served from a made-up origin through Playwright's request routing, so nothing
listens on a port. Any request that leaves that origin is refused and recorded in
``player.external``; requests for files that do not exist are recorded in
``player.missing``; uncaught script errors land in ``player.errors``.
"""

from __future__ import annotations

import html
import mimetypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_plus

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Route

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ORIGIN = "http://cards.invalid"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1000, "height": 800}

__all__ = [
    "ARTIFACTS",
    "DESKTOP",
    "PHONE",
    "PLAYERS",
    "AnkiDroidInCardPlayer",
    "AnkiDroidPlayer",
    "CardSides",
    "Context",
    "DesktopPlayer",
    "Player",
    "TypeAnswerField",
    "card_sides",
    "chromium",
    "close_kept",
    "desktop_web_dir",
    "player",
]


# What the backend leaves for the client to fill (both clients search for it with this
# pattern: aqt/reviewer.py Reviewer.typeAnsPat; AnkiDroid cardviewer/TypeAnswer.kt PATTERN).
TYPE_ANSWER = re.compile(r"\[\[type:(.+?)\]\]")


@dataclass(frozen=True)
class TypeAnswerField:
    """The field a card's ``[[type:...]]`` compares with, looked up as both clients look it
    up when they show the question (Anki desktop: ``Reviewer.typeAnsQuestionFilter`` in
    ankitects/anki qt/aqt/reviewer.py at c32cb29, lines 706-751; AnkiDroid:
    ``TypeAnswer.updateInfo`` in ankidroid/Anki-Android
    AnkiDroid/src/main/java/com/ichi2/anki/cardviewer/TypeAnswer.kt at a644cf7, lines
    83-138): the first ``[[type:...]]`` in the question names it, after an optional
    ``cloze:`` (the card's deletion of that field) and ``nc:`` (ignore combining marks)."""

    name: str
    expected: str | None  # the field's content; None when the note type has no such field
    font: str  # the field's editor font and size, which both clients give the box
    size: int
    combining: bool
    # The backend's compare_answer(expected, provided, combining), which both clients call
    # (desktop: Reviewer.typeAnsAnswerFilter; AnkiDroid: TypeAnswer.filterAnswer).
    compare: Callable[[str, str, bool], str] = field(compare=False, repr=False)

    def comparison(self, typed: str) -> str:
        return self.compare(self.expected or "", typed, self.combining)


@dataclass(frozen=True)
class CardSides:
    """One card as the Anki backend renders it."""

    card_id: int
    ord: int
    question: str  # card.question(): the note type's <style> followed by the front
    answer: str  # card.answer()
    question_text: str  # the same without the <style> (AnkiDroid puts the CSS in <head>)
    answer_text: str
    css: str
    type_answer: TypeAnswerField | None = None  # where the question has a [[type:...]]


def _type_answer_field(col: Any, card: Any, spec: str) -> TypeAnswerField:
    name, cloze, combining = spec, False, True
    if name.startswith("cloze:"):
        name, cloze = name.split(":")[1], True
    if name.startswith("nc:"):
        name, combining = name.split(":")[1], False
    for fld in card.note_type()["flds"]:
        if fld["name"] == name:
            expected = card.note()[name]
            if cloze:
                expected = col.extract_cloze_for_typing(expected, card.ord + 1) or None
            return TypeAnswerField(
                name, expected, fld["font"], fld["size"], combining, col.compare_answer
            )
    return TypeAnswerField(name, None, "", 0, combining, col.compare_answer)


def card_sides(col: Any, card_id: int) -> CardSides:
    """Render one card with the real backend (``col`` is an ``anki.collection.Collection``,
    which must stay open while a player compares a typed answer for this card)."""
    card = col.get_card(card_id)
    out = card.render_output(reload=True)
    question = card.question()
    typed = TYPE_ANSWER.search(question)
    return CardSides(
        card_id=card_id,
        ord=card.ord,
        question=question,
        answer=card.answer(),
        question_text=out.question_text,
        answer_text=out.answer_text,
        css=out.css,
        type_answer=_type_answer_field(col, card, typed.group(1)) if typed else None,
    )


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium under Playwright; fails (never skips) when it is missing."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        raise RuntimeError(f"{CHROMIUM} not found: run scripts/install-test-deps.sh")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "deckbuilder-tests"


def desktop_web_dir() -> Path:
    """Anki desktop's reviewer web files (``_aqt/data/web``) for the installed anki version.

    Downloaded once with pip from the ``aqt`` wheel of the same version into a cache folder.
    """
    anki_version = version("anki")
    target = _cache_dir() / f"aqt-{anki_version}" / "web"
    if (target / "js" / "reviewer.js").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
        subprocess.run(
            [*pip, "download", "--no-deps", f"aqt=={anki_version}", "--dest", tmp], check=True
        )
        (wheel,) = Path(tmp).glob("aqt-*.whl")
        prefix = "_aqt/data/web/"
        staging = Path(tmp) / "web"
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                if name.startswith(prefix) and not name.endswith("/"):
                    dest = staging / name[len(prefix) :]
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(zf.read(name))
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    return target


@dataclass
class _Site:
    """The made-up origin: fixed pages, plus files from folders (first match wins)."""

    pages: dict[str, str] = field(default_factory=dict)
    folders: list[tuple[str, Path]] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def handle(self, route: Route) -> None:
        url = route.request.url
        if not url.startswith(ORIGIN + "/"):
            self.external.append(url)
            route.abort("blockedbyclient")
            return
        path = url[len(ORIGIN) :].split("?", 1)[0].split("#", 1)[0]
        if path in self.pages:
            route.fulfill(body=self.pages[path], content_type="text/html; charset=utf-8")
            return
        from urllib.parse import unquote

        for prefix, folder in self.folders:
            if path.startswith(prefix):
                rel = unquote(path[len(prefix) :])
                file = (folder / rel).resolve()
                if rel and file.is_file() and file.is_relative_to(folder.resolve()):
                    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
                    route.fulfill(body=file.read_bytes(), content_type=kind)
                    return
        self.missing.append(url)
        route.fulfill(status=404, body="not found", content_type="text/plain")


# Opening a browser context costs about 1 CPU second (0.2 s while it opens, the rest in
# Chromium's processes just after), a third of a whole load of the preview page, and a new
# page in an open context very little. So the tests' contexts are kept open from test to
# test within a module: a player's tab (`Player`) and a context for pages (`Context`) go
# back to be taken again by the next test that asks for the same settings, and
# `close_kept` closes them all after each module (tests/conftest.py), so that no open page
# costs anything while other modules run.


@dataclass(eq=False)
class _Tab:
    """A player's browser context with its one page: every route, page event and binding
    is the current player's. A player that closes cleanly gives it back with the page's
    storage cleared; Anki desktop's reviewer page stays loaded, as it does from card to
    card on desktop (loading its scripts is another 350 ms)."""

    context: BrowserContext
    page: Page
    player: Player | None = None


# Kept tabs by (browser, player class, night, viewport, storage), kept contexts by
# (browser, options); tests run one at a time in a process, so nothing is wanted twice.
_KEPT_TABS: dict[tuple[object, ...], list[_Tab]] = {}
_KEPT_CONTEXTS: dict[tuple[object, ...], list[BrowserContext]] = {}


def close_kept() -> None:
    """Close every kept tab and context."""
    for tabs in _KEPT_TABS.values():
        for tab in tabs:
            tab.context.close()
    for contexts in _KEPT_CONTEXTS.values():
        for context in contexts:
            context.close()
    _KEPT_TABS.clear()
    _KEPT_CONTEXTS.clear()


class Context:
    """A browser context for a test's pages, as ``browser.new_context(**options)`` gives
    one, but taken from those kept (see above). ``close`` closes its pages, removes the
    listeners added with ``on`` and keeps it, so a test must not leave anything else in it
    (routes, init scripts, storage that outlives a page): tests of hostile pages open
    their own."""

    def __init__(self, browser: Browser, **options: Any) -> None:
        self._key = (browser, repr(sorted(options.items())))
        kept = _KEPT_CONTEXTS.get(self._key)
        self.context: BrowserContext = kept.pop() if kept else browser.new_context(**options)
        self._listeners: list[tuple[str, Callable[..., Any]]] = []

    def new_page(self) -> Page:
        return self.context.new_page()

    def on(self, event: str, listener: Callable[..., Any]) -> None:
        self._listeners.append((event, listener))
        self.context.on(event, listener)  # type: ignore[call-overload]

    def close(self) -> None:
        for page in self.context.pages:
            page.close()
        for event, listener in self._listeners:
            self.context.remove_listener(event, listener)
        _KEPT_CONTEXTS.setdefault(self._key, []).append(self.context)


class Player:
    """A tab showing card sides; see the module docstring for the two client models."""

    client = ""

    def __init__(
        self,
        browser: Browser,
        *,
        media_dir: Path | None = None,
        night: bool = False,
        viewport: dict[str, int] | None = None,
        storage: bool = True,
    ) -> None:
        self.night = night
        self.site = _Site()
        self.has_media = media_dir is not None
        if media_dir is not None:
            self.site.folders.append(("/", media_dir))
        self.errors: list[str] = []
        viewport = viewport or PHONE
        self._key = (browser, type(self), night, tuple(sorted(viewport.items())), storage)
        kept = _KEPT_TABS.get(self._key)
        self.reused = bool(kept)  # whether an earlier player had this tab
        self._tab = kept.pop() if kept else self._open_tab(browser, viewport, storage)
        self._tab.player = self
        self.context: BrowserContext = self._tab.context
        self.page: Page = self._tab.page

    def _open_tab(self, browser: Browser, viewport: dict[str, int], storage: bool) -> _Tab:
        context = browser.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            color_scheme="dark" if self.night else "light",
        )
        if not storage:  # some previews: touching sessionStorage throws
            context.add_init_script(
                "Object.defineProperty(window, 'sessionStorage', {get() {"
                " throw new DOMException('storage is disabled', 'SecurityError'); }});"
            )
        tab = _Tab(context, context.new_page())

        def to_player(route: Route) -> None:
            if tab.player is None:
                route.abort("blockedbyclient")
            else:
                tab.player.site.handle(route)

        def error(text: str) -> None:
            if tab.player is not None:
                tab.player.errors.append(text)

        context.route("**/*", to_player)
        tab.page.on("pageerror", lambda exc: error(str(exc)))
        tab.page.on("console", lambda msg: error(msg.text) if msg.type == "error" else None)
        self._prepare(tab)
        return tab

    def _prepare(self, tab: _Tab) -> None:
        """Set up a new tab for this client (a hook for subclasses)."""

    def _clear(self) -> None:
        """Leave the tab as a new one would be, for the next player."""
        self.page.evaluate("() => { try { sessionStorage.clear(); } catch (e) {} }")

    @property
    def external(self) -> list[str]:
        return self.site.external

    @property
    def missing(self) -> list[str]:
        return self.site.missing

    def body_class(self, card: CardSides) -> str:
        night = " nightMode night_mode" if self.night else ""
        return f"card card{card.ord + 1}{night}"

    def show_question(self, card: CardSides) -> None:
        raise NotImplementedError

    def show_answer(self, card: CardSides) -> None:
        raise NotImplementedError

    def tap(self, selector: str) -> None:
        """Tap the element ``selector`` finds, as a finger does: real pointer events at its
        centre, scrolled into view. Playwright's own wait for it to hold still over two
        animation frames is left out (``force``): nothing on these cards moves, and the
        wait took about 25 ms of each tap, two-thirds of a multiple-choice run. A tap
        that lands on something covering the element still reaches that, not the element,
        so a covered choice is still caught (it is not picked)."""
        self.page.click(selector, force=True)

    def type_answer(self, text: str) -> None:
        """Type ``text`` where this client takes the answer to a ``{{type:...}}`` card (the
        question must be showing): by default the in-card box, ``#typeans``."""
        self.page.fill("#typeans", text)

    def screenshot(self, name: str) -> Path:
        """Save the whole page as ``test-artifacts/<name>.png``."""
        path = ARTIFACTS / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self, *, reuse: bool = True) -> None:
        """Give the tab back (``reuse``, and only when nothing went wrong in it: a page
        that threw, or tried to leave the origin, may have left something behind), or
        close it."""
        tab, tab.player = self._tab, None
        if reuse and not self.errors and not self.external:
            self._clear()
            _KEPT_TABS.setdefault(self._key, []).append(tab)
        else:
            tab.context.close()

    def __enter__(self) -> Player:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(reuse=exc_type is None)


# AnkiDroid's card page functions for its in-card box (AnkiDroid/src/main/assets/scripts/
# card.js at a644cf7: taFocus line 74, taChange line 103, taKey line 110, showAnswer line
# 81) send the app a URL, which AbstractFlashcardViewer.shouldOverrideUrlLoading reads.
# Here the URL goes to the player through a binding instead of a navigation.
_ANKIDROID_CARD_JS = """<script>
function taFocus() {}
function taChange(itag) { window.__ankidroidUrl("typechangetext:" + encodeURI(itag.value)); }
function taKey(itag, e) {
  if (e.keyCode !== 13) { return true; }
  window.__ankidroidUrl("typeentertext:" + encodeURI(itag.value));
  return false;
}
function showAnswer() { window.__ankidroidUrl("signal:show_answer"); }
</script>"""


class AnkiDroidPlayer(Player):
    """Each side is a new document in the same tab, like AnkiDroid's classic reviewer.

    ``{{type:...}}`` as AnkiDroid handles it, from ankidroid/Anki-Android at a644cf7:
    AbstractFlashcardViewer.kt (displayCardQuestion lines 1328-1356, displayCardAnswer
    1358-1397, the in-card box's URLs 2481-2491, decodeUrl 2670) and cardviewer/
    TypeAnswer.kt (updateInfo 83-138, filterQuestion 148-181, filterAnswer 192-223). With
    the default settings the question shows ``<span id="typeans" class="typePrompt">``
    and the learner types into the native box under the card (:meth:`type_answer`); with
    "Type answer into the card" on (:class:`AnkiDroidInCardPlayer`), into an ``<input
    id="typeans">`` whose every change the page sends the app, URL-encoded (``+`` comes
    back a space). The back has the backend's comparison of the field with that text.
    """

    client = "ankidroid"
    in_card = False  # the "useInputTag" preference: "Type answer into the card"

    def __init__(self, browser: Browser, *, extras: bool = False, **options: Any) -> None:
        """``extras``: the page also loads what AnkiDroid's card_template.html loads from
        Anki (its head's ``reviewer_extras.css`` and ``reviewer_extras_bundle.js``,
        built from ankitects/anki ts/reviewer/reviewer_extras.ts): the image occlusion API,
        ``anki.imageOcclusion``, and its CSS. The aqt wheel has no such bundle; its
        reviewer.js holds the same API, from the same ts/routes/image-occlusion/review.ts,
        and its reviewer.css the same image occlusion rules, which the page takes."""
        super().__init__(browser, **options)
        self.extras = ""
        if extras:
            web = desktop_web_dir()
            self.site.folders.insert(0, ("/_anki/", web))
            css = (web / "css" / "reviewer.css").read_text(encoding="utf-8")
            rules = re.findall(r"#image-occlusion-[^{}]*\{[^}]*\}", css)
            self.extras = (
                f"<style>\n{chr(10).join(rules)}\n</style>\n"
                "<script>window.bridgeCommand = function () { return false; };</script>\n"
                '<script src="/_anki/js/reviewer.js"></script>\n'
            )
        self.typed = ""  # TypeAnswer.input: the text the back is compared with
        self.native_box = False  # whether the native answer box shows under the card
        self.native_text = ""  # what is in it
        self.asked: list[str] = []  # what the card page asked the app to do
        self._correct: str | None = None  # TypeAnswer.correct
        self._field: TypeAnswerField | None = None

    def _prepare(self, tab: _Tab) -> None:
        def url(_source: object, text: str) -> None:
            if isinstance(tab.player, AnkiDroidPlayer):
                tab.player._url(text)

        tab.context.expose_binding("__ankidroidUrl", url)

    def _clear(self) -> None:
        super()._clear()
        self.page.goto("about:blank")  # the next player's first side is a new document

    def _url(self, url: str) -> None:
        for prefix in ("typechangetext:", "typeentertext:"):
            if url.startswith(prefix):
                self.typed = unquote_plus(url[len(prefix) :])  # java.net.URLDecoder
                if prefix == "typeentertext:":
                    self.asked.append("show_answer")
        if url == "signal:show_answer":
            self.asked.append("show_answer")

    def _document(self, card: CardSides, content: str) -> str:
        html_class = "mobile android linux js"
        return (
            f'<!doctype html>\n<html class="{html_class}">\n<head>\n'
            '<title>AnkiDroid Flashcard</title>\n<meta charset="utf-8">\n'
            # AnkiDroid loads a side with its media server's address as the base URL
            # (loadDataWithBaseURL): a card's pictures come from the media folder.
            + (f'<base href="{ORIGIN}/">\n' if self.has_media else "")
            + f"<style>\n{card.css}\n</style>\n{self.extras}{_ANKIDROID_CARD_JS}\n</head>\n"
            f'<body class="{html.escape(self.body_class(card))}">\n'
            f'<div id="content" dir="auto">\n<div id="qa">{content}</div>\n</div>\n'
            "</body>\n</html>\n"
        )

    def _load(self, path: str, document: str) -> None:
        self.site.pages[path] = document
        self.page.goto(ORIGIN + path, wait_until="load")

    def _question_box(self, field: TypeAnswerField) -> str:
        if not self.in_card:
            return '<span id="typeans" class="typePrompt">........</span>'
        style = ""
        if field.font and field.size > 0:
            style = f"style=\"font-family: '{field.font}'; font-size: {field.size}px;\" "
        return (
            '<center>\n<input type="text" name="typed" id="typeans" data-focus="true" '
            "onfocus=\"taFocus();\" oninput='taChange(this);' "
            'onKeyPress="return taKey(this, event)" autocomplete="off" '
            f"{style}>\n</center>\n"
        )

    def show_question(self, card: CardSides) -> None:
        self.typed = ""
        self.native_text = ""
        field = self._field = card.type_answer
        self._correct = field.expected or None if field else None
        content = card.question_text
        if field is not None:
            if field.expected is None:
                warning = f"Type answer: unknown field {field.name}"
                content = TYPE_ANSWER.sub(lambda _: warning, content, count=1)
            else:
                box = self._question_box(field)
                content = TYPE_ANSWER.sub(lambda _: box, content)
        self.native_box = not self.in_card and self._correct is not None
        self._load(f"/card/{card.card_id}/question.html", self._document(card, content))

    def type_answer(self, text: str) -> None:
        if self.in_card:
            super().type_answer(text)
            return
        assert self.native_box, "AnkiDroid shows no answer box for this card"
        self.native_text = text

    def show_answer(self, card: CardSides) -> None:
        if not self.in_card:
            self.typed = self.native_text
        else:  # every URL the question page sent has reached _url once this returns
            self.page.evaluate("() => window.__ankidroidUrl('')")
        content = card.answer_text
        field = self._field
        if field is not None:
            compared = field.compare(self._correct or "", self.typed, field.combining)
            content = TYPE_ANSWER.sub(lambda _: compared, content)
        self._load(f"/card/{card.card_id}/answer.html", self._document(card, content))


class AnkiDroidInCardPlayer(AnkiDroidPlayer):
    """AnkiDroid with Settings > Advanced > "Type answer into the card" on."""

    client = "ankidroid-in-card"
    in_card = True


class DesktopPlayer(Player):
    """One long-lived page running Anki desktop's reviewer.js; sides swapped into #qa.

    ``{{type:...}}`` as Anki desktop handles it, from ankitects/anki at c32cb29,
    qt/aqt/reviewer.py: the question gets an ``<input id=typeans>`` (typeAnsQuestionFilter,
    lines 706-751); Enter in it sends "ans" over the bridge (reviewer.js _typeAnsPress);
    the answer side asks the page for the box's value (getTypedAnswer, _getTypedAnswer and
    _onTypedAnswer, lines 800-805) and puts the backend's comparison of the field with it
    in place of the back's ``[[type:...]]`` (typeAnsAnswerFilter, lines 753-795).
    """

    client = "desktop"

    def __init__(self, browser: Browser, **options: Any) -> None:
        super().__init__(browser, **options)
        self.site.folders.insert(0, ("/_anki/", desktop_web_dir()))
        night = " nightMode night_mode" if self.night else ""
        self._field: TypeAnswerField | None = None  # Reviewer.typeCorrect and its field
        # The shape of aqt's AnkiWebView.stdHtml() + Reviewer.revHtml(); bridgeCommand is
        # the Python side, stubbed as the notes in shared/ANKI-NOTES.md describe.
        self.site.pages["/_anki/reviewer.html"] = (
            f'<!doctype html>\n<html class="{"night-mode" if self.night else ""}" dir="ltr">\n'
            "<head>\n<title>main webview</title>\n"
            f'<base href="{ORIGIN}/">\n'
            '<link rel="stylesheet" type="text/css" href="/_anki/css/webview.css">\n'
            '<link rel="stylesheet" type="text/css" href="/_anki/css/reviewer.css">\n'
            "<script>window.bridgeCommand = function () { return false; };</script>\n"
            f'</head>\n<body class="isLin{night}">\n'
            '<script src="/_anki/js/webview.js"></script>\n'
            '<script src="/_anki/js/reviewer.js"></script>\n'
            '<div id="_mark" hidden>&#x2605;</div>\n<div id="_flag" hidden>&#x2691;</div>\n'
            '<div id="qa" dir="auto"></div>\n</body>\n</html>\n'
        )
        if not self.reused:
            self.page.goto(ORIGIN + "/_anki/reviewer.html", wait_until="load")

    def _clear(self) -> None:
        super()._clear()
        # The reviewer page stays, as it does from card to card on desktop; no side is shown.
        self.page.evaluate("() => { document.getElementById('qa').innerHTML = ''; }")

    def body_class(self, card: CardSides) -> str:
        night = " nightMode night_mode" if self.night else ""
        return f"card card{card.ord + 1} isLin{night}"

    def _run(self, call: str, *args: str) -> None:
        # The reviewer queues each side; a second queued action resolves once it is shown.
        self.page.evaluate(
            "([call, args]) => { window[call](...args);"
            " return new Promise((resolve) => _queueAction(resolve)); }",
            [call, list(args)],
        )

    def _question(self, card: CardSides) -> str:
        self._field = None
        field = card.type_answer
        if field is None:
            return card.question
        if field.expected is None:
            warning = f"Type answer: unknown field {field.name}"
            return TYPE_ANSWER.sub(lambda _: warning, card.question)
        if not field.expected:
            return TYPE_ANSWER.sub("", card.question)
        self._field = field
        box = (
            '\n<center>\n<input type=text id=typeans onkeypress="_typeAnsPress();"\n'
            f"   style=\"font-family: '{field.font}'; font-size: {field.size}px;\">\n"
            "</center>\n"
        )
        return TYPE_ANSWER.sub(lambda _: box, card.question)

    def _answer(self, card: CardSides) -> str:
        field = self._field
        if field is None:
            return TYPE_ANSWER.sub("", card.answer)
        typed = self.page.evaluate("() => getTypedAnswer()") or ""
        buf = card.answer.replace("<hr id=answer>", "")
        had_hr = len(buf) != len(card.answer)
        if had_hr and not TYPE_ANSWER.search(buf):
            return card.answer
        shown = (
            f"\n<div style=\"font-family: '{field.font}'; font-size: {field.size}px\">"
            f"{field.comparison(typed)}</div>"
        )
        if had_hr:  # the separator stays before the comparison
            shown = "<hr id=answer>" + shown
        return TYPE_ANSWER.sub(lambda _: shown, buf)

    def show_question(self, card: CardSides) -> None:
        self._run("_showQuestion", self._question(card), card.answer, self.body_class(card))

    def show_answer(self, card: CardSides) -> None:
        self._run("_showAnswer", self._answer(card))


PLAYERS: dict[str, type[Player]] = {
    AnkiDroidPlayer.client: AnkiDroidPlayer,
    AnkiDroidInCardPlayer.client: AnkiDroidInCardPlayer,
    DesktopPlayer.client: DesktopPlayer,
}


def player(client: str, browser: Browser, **options: Any) -> Player:
    """A player by client name: ``"ankidroid"``, ``"ankidroid-in-card"`` or ``"desktop"``."""
    return PLAYERS[client](browser, **options)


def luminance(rgb: list[float]) -> float:
    """Relative luminance of an sRGB colour (WCAG 2)."""

    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    """WCAG contrast ratio of two sRGB colours."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
