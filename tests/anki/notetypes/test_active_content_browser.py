"""Chromium is the judge of what a cleaned template runs or fetches (issue 45): each
template and CSS of test_active_content.py, and any text made of their pieces, is shown
as Anki shows a card (the note type's CSS in a ``<style>``, then the side, with every
``{{...}}`` filled in empty and with a word), and the page Chromium builds from the
cleaned text holds no script, event handler, ``javascript:`` or ``data:`` address, frame,
object, base or refresh, no style sheet rule with a remote address, and asks for nothing
from another site. The uncleaned texts are shown too, to prove that each does."""

from __future__ import annotations

import html
import random
import re
from typing import Any

import pytest

from deckbuilder.anki.notetypes.active_content import without_active_parts
from tests.anki.notetypes.test_active_content import CSS, TEMPLATES
from tests.browser import ORIGIN

pytestmark = pytest.mark.browser

# What each frame's document holds that runs or fetches, as Chromium parsed it (a frame
# whose document navigated away, by a refresh, ran something).
_ACTIVE = r"""(origin) => Array.from(document.querySelectorAll("iframe"), (frame) => {
  const doc = frame.contentDocument;
  if (!doc || doc.location.href !== "about:srcdoc") return ["navigated"];
  const out = [];
  const address = (v) => v.replace(/[\t\n\r]/g, "").replace(/^[\x00-\x20]+/, "").toLowerCase();
  const remote = /(?<![\w"'-])url\(\s*["']?\s*(https?:|\/\/|\\\\|javascript:)/i;
  const fetched = ["src", "srcset", "poster", "background", "data"];
  const addresses = [...fetched, "href", "action", "formaction", "to", "from", "values"];
  const far = /^((?!data:)[a-z][a-z0-9+.-]*:|[\/\\]{2})/i;
  for (const el of doc.querySelectorAll("*")) {
    const tag = el.localName;
    if (["script", "iframe", "frame", "object", "embed", "applet", "base"].includes(tag))
      out.push(tag);
    if (tag === "meta" && (el.getAttribute("http-equiv") || "").toLowerCase() === "refresh")
      out.push("refresh");
    for (const a of el.attributes) {
      const v = address(a.value);
      if (a.name.startsWith("on")) out.push(a.name);
      else if (/^(javascript|vbscript):/.test(v) && addresses.includes(a.localName))
        out.push(a.name + " javascript:");
      else if (/^data:/.test(v) && !/^data:\s*image\//.test(v) && addresses.includes(a.localName))
        out.push(a.name + " data:");
      else if ((fetched.includes(a.localName) || (a.localName === "href" && ["link", "image",
          "use", "feImage"].includes(tag))) && (a.localName === "srcset" ? v.split(/[\s,]+/) : [v])
          .some((u) => far.test(u)))
        out.push(a.name + " remote");
    }
    if (el.style && remote.test(el.style.cssText)) out.push("style url()");
  }
  const rules = (sheet) => {
    let list = [];
    try { list = Array.from(sheet.cssRules); } catch (e) { return; }
    for (const rule of list) {
      if (rule.href !== undefined && /^(https?:|\/\/|javascript:)/i.test(rule.href)
          && !rule.href.startsWith(origin)) out.push("@import");
      else if (remote.test(rule.cssText)) out.push("url()");
      if (rule.cssRules) rules(rule);
    }
  };
  for (const sheet of doc.styleSheets) rules(sheet);
  return out;
})"""
_TAG = re.compile(r"\{\{.*?\}\}", re.S)
_PIECES = [
    *("<", ">", "/", "=", '"', "'", " ", "\n", "\t", "\\", "-", ";", ")", "a", "</", "<!"),
    *("{{", "}}", "{{F}}", "{{#F}}", "{{/F}}", "<!--", "-->", "<![CDATA[", "]]>"),
    *("<script>", "<ScRiPt >", "</script>", "<style>", "</style>", "</STYLE >", "<iframe>"),
    *("<svg>", "<math>", "<desc>", "<foreignObject>", "<title>", "<textarea>", "<noscript>"),
    *("<xmp>", "</xmp>", "<plaintext>", "<object", "<embed", "<body", "<IMG", "<a", "<img"),
    *(" src=x", " SRC=", " onerror=y", " ONERROR=", " onload=x", " href=", " srcset="),
    *(" background=", " style=", " xlink:href=", "<link rel=stylesheet", "<link href="),
    *("<video poster=", "<input type=image src=", "<svg><use href=", "<form action="),
    *("<base href=//h/>", "<meta http-equiv=refresh content=0;url=https://h>"),
    *("javascript:", "JaVa\tScRiPt:", "java&#x09;script:", "vbscript:", "data:text/html,"),
    *("data:image/png,", "https://h/", "//h/x", '"https://h/"', "&#x73;", "&#x75;", "&lt;"),
    *("&Tab;", "&colon;", "url(", "image-set(", "background:", "@import ", "@\\69mport "),
    "\\75 ",
]


def _documents(side: str, css: str = "") -> list[str]:
    """The card side as Chromium gets it: after the note type's CSS, its {{...}} tags
    filled in empty, and with a word."""
    fillings = ("", "word") if "{{" in side else ("",)
    return [f"<style>{css}</style>{_TAG.sub(filled, side)}" for filled in fillings]


def _shown(browser: Any, documents: list[str]) -> list[list[str]]:
    """What runs or fetches in each document, all shown at once in frames of one page."""
    context = browser.new_context()
    page = context.new_page()
    external: dict[str, list[str]] = {}
    top = "".join(
        f'<iframe name="c{i}" srcdoc="{html.escape(doc, quote=True)}"></iframe>'
        for i, doc in enumerate(documents)
    )

    def case(frame: Any) -> str:
        while frame.parent_frame is not None and not frame.name.startswith("c"):
            frame = frame.parent_frame
        return str(frame.name)

    def serve(route: Any) -> None:
        url = route.request.url
        if url == f"{ORIGIN}/":
            route.fulfill(status=200, content_type="text/html", body=top)
        elif url.startswith(ORIGIN):
            route.fulfill(status=404, body="")
        else:
            external.setdefault(case(route.request.frame), []).append(url)
            route.abort()

    page.route("**/*", serve)
    page.on("dialog", lambda dialog: dialog.dismiss())
    page.goto(f"{ORIGIN}/", wait_until="load")
    page.wait_for_timeout(100)  # images' error events, a refresh's navigation
    inside = page.evaluate(_ACTIVE, ORIGIN)
    found = [inside[i] + external.get(f"c{i}", []) for i in range(len(documents))]
    context.close()
    return found


def test_chromium_finds_nothing_active_in_cleaned_templates(browser: Any) -> None:
    sides = [(template, "") for template, _, _ in TEMPLATES]
    sides += [("<p class=a>x</p>", css) for css, _, _ in CSS]
    cleaned = [
        (without_active_parts(side).text, without_active_parts(css, css=True).text)
        for side, css in sides
    ]
    documents = [(side, css, doc) for side, css in cleaned for doc in _documents(side, css)]
    shown = _shown(browser, [doc for _, _, doc in documents])
    assert [
        (doc, found) for (_, _, doc), found in zip(documents, shown, strict=True) if found
    ] == []


def test_each_uncleaned_template_runs_or_fetches_something(browser: Any) -> None:
    """The test texts are what they claim: shown as they are, each with parts does."""
    sides = [(template, "") for template, _, parts in TEMPLATES if parts]
    sides += [("<p class=a>x</p>", css) for css, _, parts in CSS if parts]
    documents = [(side, css, doc) for side, css in sides for doc in _documents(side, css)]
    shown = _shown(browser, [doc for _, _, doc in documents])
    active = {(side, css) for (side, css, _), found in zip(documents, shown, strict=True) if found}
    quiet = [side for side in sides if side not in active]
    assert quiet == []


def test_chromium_finds_nothing_active_in_any_cleaned_text(browser: Any) -> None:
    """Texts made of pieces of markup, CSS and Anki tags at random (seeded)."""
    rng = random.Random(45)
    texts = ["".join(rng.choices(_PIECES, k=rng.randint(1, 30))) for _ in range(100)]
    documents: list[tuple[str, str]] = []
    for i, text in enumerate(texts):
        css = i % 3 == 0
        cleaned = without_active_parts(text, css=css)
        if cleaned.clean:
            side, sheet = ("", cleaned.text) if css else (cleaned.text, "")
            documents += [(text, doc) for doc in _documents(side, sheet)]
    shown = _shown(browser, [doc for _, doc in documents])
    assert [(text, found) for (text, _), found in zip(documents, shown, strict=True) if found] == []
