"""The preview page: one self-contained HTML file showing a deck as reviewers will see it.

Every card's question and answer is rendered with Anki's template language
(:mod:`deckbuilder.preview.anki_template`, checked against the Anki backend in the tests) from the
same fields, templates and CSS the package holds. Each side is a whole document, like a
card page on AnkiDroid, shown in its own ``<iframe srcdoc>``, so the note type's CSS and
scripts run as on a client and do not mix with the page or other cards. The documents
are stored once in a JSON block (repeated CSS, scripts and media shared, see
:class:`_Sides`) and joined by the page script. Media are inlined as ``data:`` URLs and a
Content-Security-Policy forbids every request, so the file works offline and never
reaches the network. For the same reason MathJax, which Anki typesets math with, is not
loaded: formulas are turned into MathML (see :func:`_typeset`), which Chromium and the
Android WebView draw themselves.

Library code: :func:`preview_page` returns the HTML text; the CLI writes it.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import re
from collections import Counter
from functools import cache
from html import escape, unescape
from importlib import resources
from pathlib import Path

from deckbuilder.errors import Problem
from deckbuilder.model import NoteKind
from deckbuilder.preview.anki_template import RenderedCard, render_card
from deckbuilder.preview.mathml import typeset, untypeset_warnings
from deckbuilder.preview.page_chart import forecast_svg, sweep_svg
from deckbuilder.preview.report import DeckPreview, summary_notes, summary_rows
from deckbuilder.render.deck import RenderedDeck, RenderedNote

__all__ = ["PHONE_WIDTH", "preview_page"]

PHONE_WIDTH = 412  # CSS pixels: a common Android phone width

_KIND_NAMES = {NoteKind.MCQ: "multiple choice", NoteKind.CLOZE: "cloze", NoteKind.BASIC: "basic"}
_KIND_NAMES[NoteKind.TYPED] = "typed answer"
# Cards whose back depends on what the learner did on the front: the page can flip them.
_PLAYED = (NoteKind.MCQ, NoteKind.TYPED)
_SRC = re.compile(r'(<(?:img|audio|video|source)\b[^>]*?\bsrc=")([^"]*)(")', re.IGNORECASE)
_PLAY = re.compile(r"\[anki:play:([qa]):(\d+)\]")

# What the page may load: nothing from anywhere, only what is inline or a data: URL.
CSP = (
    "default-src 'none'; img-src data:; media-src data:; font-src data:; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-src 'self'"
)


# deckbuilder/static holds the page's style (page.css) and script (page.js), and the
# reviewer's own CSS around a card (card-side.css: Anki desktop's reviewer.css; AnkiDroid's
# card page is similar). page.js sets night mode the way Anki desktop and AnkiDroid set
# it: classes on the card's body (.nightMode .night_mode) and on its root (.night-mode).
@cache
def _static(name: str) -> str:
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


def _data_url(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


class _Media:
    """Media files as data: URLs, each encoded once."""

    def __init__(self, files: dict[str, Path], sides: _Sides | None = None) -> None:
        self.files = files
        self.sides = sides
        self.urls: dict[str, str] = {}

    def url(self, name: str) -> str | None:
        if name not in self.files:
            return None
        if name not in self.urls:
            self.urls[name] = _data_url(self.files[name])
            if self.sides is not None:
                self.sides.share(self.urls[name])
        return self.urls[name]

    def inline(self, html: str, card: RenderedCard) -> str:
        """Point media at data: URLs and turn ``[anki:play:..]`` into play buttons, as
        a client turns them into its own."""

        def src(m: re.Match[str]) -> str:
            url = self.url(unescape(m.group(2)))
            return m.group(0) if url is None else m.group(1) + url + m.group(3)

        def play(m: re.Match[str]) -> str:
            sounds = card.question_sounds if m.group(1) == "q" else card.answer_sounds
            index = int(m.group(2))
            name = sounds[index] if index < len(sounds) else ""
            url = self.url(name)
            if url is None:
                return m.group(0)
            return (
                f'<button type="button" class="db-preview-play" title="Play {escape(name)}" '
                f'aria-label="Play {escape(name)}" '
                'onclick="var a=this.nextElementSibling;a.currentTime=0;a.play()">&#9654;</button>'
                f'<audio preload="none" src="{url}"></audio>'
            )

        return _PLAY.sub(play, _SRC.sub(src, html))


def _side_document(css: str, ordinal: int, content: str) -> str:
    """One side as a whole document, shaped like a client's card page."""
    return (
        '<!doctype html>\n<html lang="und">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<style>\n{_static('card-side.css')}</style>\n<style>\n{css}\n</style>\n</head>\n"
        f'<body class="card card{ordinal + 1}">\n<div id="qa">\n{content}\n</div>\n'
        "</body>\n</html>\n"
    )


def _card_label(rn: RenderedNote, card: RenderedCard) -> str:
    """Which card of the note: c1, c2... for clozes (nothing for one-card notes)."""
    return f"card c{card.ordinal + 1}" if rn.spec.is_cloze else ""


class _Sides:
    """Every side document of the page, stored once in a JSON block and joined by the
    page script into each frame's ``srcdoc``. Strings that repeat across sides (the note
    types' CSS, the templates' scripts, media as data: URLs) are stored once and
    referred to by number, so the page does not grow with copies of them; joining the
    parts gives back each document exactly."""

    def __init__(self) -> None:
        self.shared: list[str] = []
        self.index: dict[str, int] = {}
        self.sides: list[list[str | int]] = []

    def share(self, text: str) -> None:
        if len(text) >= 200 and text not in self.index:
            self.index[text] = len(self.shared)
            self.shared.append(text)

    def add(self, document: str) -> int:
        parts: list[str | int] = []
        if self.index:
            pattern = "|".join(re.escape(t) for t in sorted(self.index, key=len, reverse=True))
            pos = 0
            for m in re.finditer(pattern, document):
                if m.start() > pos:
                    parts.append(document[pos : m.start()])
                parts.append(self.index[m.group(0)])
                pos = m.end()
            if pos < len(document):
                parts.append(document[pos:])
        else:
            parts.append(document)
        self.sides.append(parts)
        return len(self.sides) - 1

    def json(self) -> str:
        data = json.dumps(
            {"shared": self.shared, "sides": self.sides}, ensure_ascii=False, separators=(",", ":")
        )
        # Safe inside <script>: no "</script>" or "<!--" can end or confuse the block.
        return data.replace("<", "\\u003c")


_SCRIPT = re.compile(r"<script\b.*?</script>", re.IGNORECASE | re.DOTALL)


def _card_html(
    rn: RenderedNote, card: RenderedCard, media: _Media, sides: _Sides, untypeset: list[str]
) -> str:
    for template in (rn.spec.front, rn.spec.back):
        for script in _SCRIPT.findall(template):
            sides.share(script)
    sides.share(rn.spec.css)
    question, answer = (
        _side_document(rn.spec.css, card.ordinal, media.inline(typeset(html, untypeset), card))
        for html in (card.question, card.answer)
    )
    kind = rn.note.kind
    tags = "".join(f'<span class="tag">{escape(t)}</span>' for t in rn.tags)
    label = _card_label(rn, card)
    buttons = (
        '<button type="button" class="flip" title="Show the answer to your pick">Flip</button>'
        '<button type="button" class="again" title="Start this card again">Again</button>'
        if kind in _PLAYED
        else ""
    )
    note = escape(rn.note.id)
    return (
        f'<section class="pv-card" id="card-{note}-{card.ordinal + 1}" data-note="{note}" '
        f'data-kind="{kind.value}" data-ord="{card.ordinal}">\n'
        f'<header><span class="note-id">{note}</span>'
        f'<span class="kind">{_KIND_NAMES[kind]}</span>'
        f'<span class="which">{escape(label)}</span>{tags}'
        f'<span class="buttons">{buttons}</span></header>\n'
        '<div class="sides">\n'
        f'<figure class="side front"><figcaption>Front</figcaption>'
        f'<iframe title="{note}: front" data-side="{sides.add(question)}"></iframe></figure>\n'
        f'<figure class="side back"><figcaption>Back</figcaption>'
        f'<iframe title="{note}: back" data-side="{sides.add(answer)}"></iframe></figure>\n'
        "</div>\n</section>"
    )


def _ladder_table(p: DeckPreview) -> str:
    lad = p.ladder
    rows = (
        ("Good every time", lad.good),
        ("Hard every time", lad.hard),
        ("Easy every time", lad.easy),
        ("Again, then Good", lad.again_good),
    )
    steps = max(len(r) for _, r in rows)
    head = "".join(f"<th scope='col'>{i + 1}</th>" for i in range(steps))
    body = "".join(
        f"<tr><th scope='row'>{label}</th>"
        + "".join(f"<td>{v}</td>" for v in values)
        + "<td></td>" * (steps - len(values))
        + "</tr>"
        for label, values in rows
    )
    # The caption stands outside the box that scrolls a wide ladder sideways, so it wraps
    # to the screen instead of being cut off with the table; the box takes the keyboard.
    return (
        '<figure class="ladder-figure"><figcaption id="ladder-caption">Interval ladder of a '
        "new card: column n is the days from the n-th answer to the next review (FSRS, no "
        "fuzz, no learning steps)</figcaption>"
        '<div class="ladder-wrap" role="region" aria-labelledby="ladder-caption" tabindex="0">'
        '<table class="ladder">'
        f"<thead><tr><th scope='col'>Answers</th>{head}</tr></thead><tbody>{body}</tbody></table>"
        "</div></figure>"
    )


def _summary(p: DeckPreview) -> str:
    """The settings and the summary, in the words and figures of the text report."""
    s = p.settings
    limit = "none" if s.review_limit is None else f"{s.review_limit} a day"
    items = [
        ("Desired retention", f"{s.desired_retention:g}"),
        ("New cards a day", str(s.new_per_day)),
        ("Review limit", limit),
        ("Days simulated", str(p.summary.days)),
        *((label[0].upper() + label[1:], value) for label, value in summary_rows(p.summary)),
    ]
    rows = "".join(f"<dt>{k}</dt><dd>{escape(v)}</dd>" for k, v in items)
    notes = "".join(f'<p class="origin note">{escape(note)}</p>' for note in summary_notes())
    return (
        f'<dl class="summary">{rows}</dl>{notes}'
        f'<p class="origin">Settings from {escape(p.origin)}.</p>'
    )


def _counts(rd: RenderedDeck) -> str:
    rows = "".join(
        f"<tr><th scope='row'>{_KIND_NAMES[kind]}</th><td>{notes}</td><td>{cards}</td></tr>"
        for kind, (notes, cards) in rd.deck.counts().items()
    )
    total_cards = rd.deck.card_count
    return (
        '<table class="counts"><thead><tr><th scope="col">Note type</th>'
        '<th scope="col">Notes</th><th scope="col">Cards</th></tr></thead>'
        f"<tbody>{rows}</tbody><tfoot><tr><th scope='row'>total</th><td>{len(rd.notes)}</td>"
        f"<td>{total_cards}</td></tr></tfoot></table>"
    )


def _tags(rd: RenderedDeck) -> str:
    counts = Counter(tag for rn in rd.notes for tag in rn.tags)
    if not counts:
        return '<p class="tags none">No tags.</p>'
    items = "".join(
        f'<li><span class="tag">{escape(tag)}</span> <span class="n">{n}</span></li>'
        for tag, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f'<ul class="tags" aria-label="Tags and how many notes have each">{items}</ul>'


def _cards(rd: RenderedDeck, warnings: list[Problem]) -> tuple[list[str], _Sides]:
    sides = _Sides()
    media = _Media(rd.media, sides)
    out = []
    for rn in rd.notes:
        fields = dict(zip(rn.spec.fields, rn.fields, strict=True))
        untypeset: list[str] = []
        for ordinal in rn.note.card_ordinals:
            card = render_card(*rn.spec.sides(ordinal), fields, ordinal)
            out.append(_card_html(rn, card, media, sides, untypeset))
        warnings += untypeset_warnings(str(rd.deck.source), rn.note, untypeset)
    return out, sides


def preview_page(rd: RenderedDeck, p: DeckPreview, warnings: list[Problem] | None = None) -> str:
    """The whole preview page of one deck, as HTML text (deterministic). Formulas it
    cannot typeset are shown as TeX, each with a warning added to ``warnings``."""
    deck = rd.deck
    warnings = [] if warnings is None else warnings
    untypeset: list[str] = []
    description = typeset(rd.description, untypeset)
    warnings += untypeset_warnings(str(deck.source), None, untypeset)
    cards, sides = _cards(rd, warnings)
    count = len(cards)
    description = f'<div class="description">{description}</div>' if description else ""
    state = json.dumps({"phoneWidth": PHONE_WIDTH})
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="deckbuilder">
<title>{escape(deck.name)}: preview</title>
<style>
{_static("page.css")}
</style>
</head>
<body>
<header class="top">
<h1>{escape(deck.name)}</h1>
<p class="meta">Deck id <code>{escape(deck.key)}</code> from <code>{escape(str(deck.source))}</code>:
{len(rd.notes)} notes, <span id="card-count">{count}</span> cards.</p>
{description}
<div class="controls" role="toolbar" aria-label="View">
<button type="button" id="night" aria-pressed="false">Night mode</button>
<button type="button" id="phone" aria-pressed="false">Phone width ({PHONE_WIDTH} px)</button>
</div>
</header>
<main>
<section class="overview">
<div><h2>Notes and cards</h2>{_counts(rd)}<h2>Tags</h2>{_tags(rd)}</div>
<div><h2>Study forecast</h2>{_summary(p)}</div>
</section>
<section class="forecast-section">
<h2>Forecast</h2>
{forecast_svg(p)}{sweep_svg(p)}
{_ladder_table(p)}
</section>
<h2 id="cards">Cards</h2>
<p class="hint">Each side is shown as Anki renders it, with the note type's CSS and scripts.
Multiple-choice cards: pick on the front, then Flip to see the verdict on the back.
Typed-answer cards: type on the front, then press Enter or Flip.
Math is drawn here from MathML; Anki draws it with MathJax, so fonts and spacing may differ a little.</p>
<div class="card-list">
{chr(10).join(cards)}
</div>
</main>
<script type="application/json" id="pv-sides">{sides.json()}</script>
<script>
var PREVIEW = {state};
{_static("page.js")}</script>
</body>
</html>
"""
