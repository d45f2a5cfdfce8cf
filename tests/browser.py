"""Play Anki cards in headless Chromium the way the real clients show them.

Two client models, both fed the HTML that the real Anki backend renders for a card:

* :class:`AnkiDroidPlayer`: every side is a whole new document in the same tab, shaped
  like AnkiDroid's ``card_template.html`` (``<html class="mobile android linux js">``,
  ``<body class="card cardN">``, the side inside ``<div id="content">``). ``window``
  globals die between sides; ``sessionStorage`` survives.
* :class:`DesktopPlayer`: Anki desktop's own reviewer page code (``reviewer.js`` and its CSS
  from the ``aqt`` wheel of the installed ``anki`` version), on one long-lived page with
  ``<div id="qa">``. ``_showQuestion`` / ``_showAnswer`` swap each side in and re-create its
  scripts, so globals persist from card to card, as on desktop.

Pages are served from a made-up origin through Playwright's request routing, so nothing
listens on a port. Any request that leaves that origin is refused and recorded in
``player.external``; requests for files that do not exist are recorded in
``player.missing``; uncaught script errors land in ``player.errors``.
"""

from __future__ import annotations

import html
import mimetypes
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    "AnkiDroidPlayer",
    "CardSides",
    "DesktopPlayer",
    "Player",
    "card_sides",
    "chromium",
    "desktop_web_dir",
    "player",
]


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


def card_sides(col: Any, card_id: int) -> CardSides:
    """Render one card with the real backend (``col`` is an ``anki.collection.Collection``)."""
    card = col.get_card(card_id)
    out = card.render_output(reload=True)
    return CardSides(
        card_id=card_id,
        ord=card.ord,
        question=card.question(),
        answer=card.answer(),
        question_text=out.question_text,
        answer_text=out.answer_text,
        css=out.css,
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
        if media_dir is not None:
            self.site.folders.append(("/", media_dir))
        self.context: BrowserContext = browser.new_context(
            viewport=viewport or PHONE,  # type: ignore[arg-type]
            color_scheme="dark" if night else "light",
        )
        if not storage:  # some previews: touching sessionStorage throws
            self.context.add_init_script(
                "Object.defineProperty(window, 'sessionStorage', {get() {"
                " throw new DOMException('storage is disabled', 'SecurityError'); }});"
            )
        self.context.route("**/*", self.site.handle)
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on(
            "console",
            lambda msg: self.errors.append(msg.text) if msg.type == "error" else None,
        )

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

    def screenshot(self, name: str) -> Path:
        """Save the whole page as ``test-artifacts/<name>.png``."""
        path = ARTIFACTS / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        self.context.close()

    def __enter__(self) -> Player:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AnkiDroidPlayer(Player):
    """Each side is a new document in the same tab, like AnkiDroid's classic reviewer."""

    client = "ankidroid"

    def _document(self, card: CardSides, content: str) -> str:
        html_class = "mobile android linux js"
        return (
            f'<!doctype html>\n<html class="{html_class}">\n<head>\n'
            '<title>AnkiDroid Flashcard</title>\n<meta charset="utf-8">\n'
            f"<style>\n{card.css}\n</style>\n</head>\n"
            f'<body class="{html.escape(self.body_class(card))}">\n'
            f'<div id="content">\n{content}\n</div>\n</body>\n</html>\n'
        )

    def _load(self, path: str, document: str) -> None:
        self.site.pages[path] = document
        self.page.goto(ORIGIN + path, wait_until="load")

    def show_question(self, card: CardSides) -> None:
        self._load(f"/card/{card.card_id}/question.html", self._document(card, card.question_text))

    def show_answer(self, card: CardSides) -> None:
        self._load(f"/card/{card.card_id}/answer.html", self._document(card, card.answer_text))


class DesktopPlayer(Player):
    """One long-lived page running Anki desktop's reviewer.js; sides swapped into #qa."""

    client = "desktop"

    def __init__(self, browser: Browser, **options: Any) -> None:
        super().__init__(browser, **options)
        self.site.folders.insert(0, ("/_anki/", desktop_web_dir()))
        night = " nightMode night_mode" if self.night else ""
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
        self.page.goto(ORIGIN + "/_anki/reviewer.html", wait_until="load")

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

    def show_question(self, card: CardSides) -> None:
        self._run("_showQuestion", card.question, card.answer, self.body_class(card))

    def show_answer(self, card: CardSides) -> None:
        self._run("_showAnswer", card.answer)


PLAYERS: dict[str, type[Player]] = {
    AnkiDroidPlayer.client: AnkiDroidPlayer,
    DesktopPlayer.client: DesktopPlayer,
}


def player(client: str, browser: Browser, **options: Any) -> Player:
    """A player by client name: ``"ankidroid"`` or ``"desktop"``."""
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
