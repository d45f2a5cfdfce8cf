"""The preview page: one self-contained HTML file showing a deck as reviewers will see it.

Every card's question and answer is rendered with Anki's template language
(:mod:`deckbuilder.preview.anki_template`, checked against the Anki backend in the tests) from
the same fields, templates and CSS the package holds. Each side is a whole document, like a
card page on AnkiDroid, shown in its own ``<iframe srcdoc>``, so the note type's CSS and
scripts run as on a client and do not mix with the page or other cards.

Card scripts run where they can do no harm, whoever wrote the note type (an imported
one, or the deck's own): every side's frame has ``sandbox="allow-scripts"`` and nothing
more, so its origin is opaque, and its document carries its own Content-Security-Policy
(FRAME_CSP) that forbids every request but ``data:`` media and fonts. A card's script
cannot read or change the page or another card, send anything to the network or (under
``watch --serve``) to the server, navigate the page or its own frame elsewhere, open a
window or submit a form. The page cannot reach into a side either: the two exchange only
the messages that ``static/card-frame.js`` (each side's first script) lists. The page
takes a message only from the window of one of its own frames, about that frame: its
height (clamped), that it has loaded, changes to its card's ``sessionStorage`` (text, up
to a limit), and from a front, a request for its back. ``sessionStorage``, which throws
in an opaque origin and which deckbuilder's note types carry the learner's pick in, is a
stand-in held in memory for each card: the page writes what the front stored into the
back's document. CSP does not govern WebRTC in Chromium, so each side's first script
also removes its window's peer connection constructors (a frame a card makes inside its
own is of another opaque origin, whose constructors it cannot reach).

The page opens at once whatever the size of the deck: the cards are data in a JSON block,
and the page script shows a page of them at a time (PAGE_SIZE), found by a search, by tag,
note type and lint warning, or by note id. The data holds each side's content once, the
strings that repeat across sides (the note types' CSS, the templates' scripts, media as
``data:`` URLs, the question inside its answer) stored once and referred to by number
(:class:`_Sides`), so the page grows with the deck and is built in one pass over it. The
script joins each side back into its document exactly.

Media are inlined as ``data:`` URLs and a Content-Security-Policy forbids every request
(the page's, and each side's own), so the file works offline and never reaches the
network. For the same reason MathJax, which Anki typesets math with, is not loaded:
formulas are turned into MathML (see :func:`deckbuilder.preview.mathml.typeset`), which
Chromium and the Android WebView draw themselves.

Library code: :func:`preview_page` returns the HTML text; the caller writes it.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape, unescape
from importlib import resources
from pathlib import Path
from typing import Any

from deckbuilder.anki.search import deck_notes_search
from deckbuilder.errors import Problem, Severity, plural
from deckbuilder.model import BasicNote, Note
from deckbuilder.note_types import BUILT_IN, IO_STOCK_KIND
from deckbuilder.preview.anki_template import (
    CardContext,
    RenderedCard,
    TemplateError,
    render_card,
)
from deckbuilder.preview.mathml import typeset, untypeset_warnings
from deckbuilder.preview.page_chart import FIRST_DAYS, first_weeks_svg, forecast_svg, sweep_svg
from deckbuilder.preview.plan_report import (
    exam_rows,
    sweep_agreement,
    sweep_table_rows,
)
from deckbuilder.preview.report import (
    DeckPreview,
    shown_forecast,
    summary_notes,
    summary_rows,
)
from deckbuilder.progress import step
from deckbuilder.render.deck import RenderedDeck, RenderedNote

PHONE_WIDTH = 412  # CSS pixels: a common Android phone width
PAGE_SIZE = 25  # cards shown at a time: each side is a document of its own

# Lint warnings of the notes, by note id: (code, what is wrong and how to fix it).
LintNotes = Mapping[str, Sequence[tuple[str, str]]]
# A note the card file no longer has: its id there, and its Anki note id (what Anki's
# browser finds it by, ``nid:``).
Removed = tuple[str, int]

_SRC = re.compile(r'(<(?:img|audio|video|source)\b[^>]*?\bsrc=")([^"]*)(")', re.IGNORECASE)
_PLAY = re.compile(r"\[anki:play:([qa]):(\d+)\]")
_TAG = re.compile(r"<[^>]*>")
# What a side shares with others: a template's script, a medium as a data: URL (which
# the page writes, in double quotes), each from its start to its end.
_SHAREABLE = (("<script", "</script>"), ('"data:', '"'))
SHARED_MIN = 200  # characters: shorter strings are cheaper written out than referred to
FRONT = -1  # a side part standing for the card's question (an answer's {{FrontSide}})

# What a card side may load: nothing from anywhere, only what is inline or a data: URL.
# Its document carries this policy itself: a srcdoc document also inherits the page's,
# and a live page's allows requests to the server.
FRAME_CSP = (
    "default-src 'none'; img-src data:; media-src data:; font-src data:; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action 'none'; "
    "base-uri 'none'"
)
# What the page may load: the same. Its frames hold srcdoc documents, which no frame-src
# governs; 'none' keeps a card from taking its frame to any other address.
CSP = (
    "default-src 'none'; img-src data:; media-src data:; font-src data:; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-src 'none'"
)
# A live page (``watch --serve``) also asks the server that sent it for the next build.
LIVE_CSP = f"{CSP}; connect-src 'self'"


def _static(name: str) -> str:
    """The page's style (page.css), its script (page.js), the reviewer's own CSS around
    a card (card-side.css: Anki desktop's reviewer.css; AnkiDroid's card page is similar),
    and the first script of every side (card-frame.js: its side of the messages between
    page and card; it sets night mode the way Anki desktop and AnkiDroid set it: classes
    on the card's body (.nightMode .night_mode) and on its root (.night-mode))."""
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


def _data_url(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


class _Sides:
    """Every side's content, as parts: text, or the number of a string stored once in
    ``shared`` (the note types' CSS, the templates' scripts, media as data: URLs), or
    FRONT for the card's question inside its answer. The page script joins the parts
    back into each side exactly. Each side is split in one pass, so the page is built in
    time linear in the deck."""

    def __init__(self) -> None:
        self.shared: list[str] = []
        self.index: dict[str, int] = {}

    def share(self, text: str) -> int:
        """The number of ``text`` among the shared strings, stored if new."""
        number = self.index.get(text)
        if number is None:
            number = self.index[text] = len(self.shared)
            self.shared.append(text)
        return number

    def parts(self, content: str, front: str | None = None) -> list[str | int]:
        """``content`` as parts; ``front``: the question an answer may hold whole."""
        out: list[str | int] = []
        if front:
            at = content.find(front)
            if at >= 0:
                return [
                    *self.parts(content[:at]),
                    FRONT,
                    *self.parts(content[at + len(front) :]),
                ]
        pos = 0
        for start, end in _shareable(content):
            if start > pos:
                out.append(content[pos:start])
            out.append(self.share(content[start:end]))
            pos = end
        if pos < len(content) or not out:
            out.append(content[pos:])
        return out


def _shareable(content: str) -> list[tuple[int, int]]:
    """Where the strings worth sharing in ``content`` start and end, in order. Found with
    plain searches, one pass for each kind: a side is split in time linear in it."""
    spans = []
    for opening, closing in _SHAREABLE:
        pos = 0
        while (start := content.find(opening, pos)) >= 0:
            end = content.find(closing, start + len(opening))
            if end < 0:
                break
            pos = end + len(closing)
            if pos - start >= SHARED_MIN:
                spans.append((start, pos))
    spans.sort()
    kept: list[tuple[int, int]] = []
    for start, end in spans:  # a data: URL inside a script stays in the script
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


class _Media:
    """Media files as data: URLs, each encoded once."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files
        self.urls: dict[str, str] = {}

    def url(self, name: str) -> str | None:
        if name not in self.files:
            return None
        if name not in self.urls:
            self.urls[name] = _data_url(self.files[name])
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

        if "src=" in html:
            html = _SRC.sub(src, html)
        return _PLAY.sub(play, html) if "[anki:play:" in html else html


def _searched(rn: RenderedNote) -> str:
    """What the page's search looks in: the note's id and its fields' text."""
    return unescape(_TAG.sub(" ", " ".join((rn.note.id, *rn.fields))))


class _Cards:
    """The page's card data, gathered note by note: what the page script shows."""

    def __init__(self, rd: RenderedDeck, lint: LintNotes) -> None:
        self.rd = rd
        self.lint = lint
        self.sides = _Sides()
        self.media = _Media(rd.media)
        self.types: dict[int, int] = {}  # note type id -> its number on the page
        self.declared: dict[str, str] = {}  # a declared note type's key -> its Anki name
        self.type_rows: list[list[Any]] = []
        self.tags: dict[str, int] = {}
        self.codes: dict[str, int] = {}
        self.notes: list[list[Any]] = []
        self.cards: list[list[Any]] = []
        self.occlusion = f"<script>\n{_static('occlusion.js')}</script>\n"

    def add(self, rn: RenderedNote, warnings: list[Problem]) -> None:
        spec = rn.spec
        if spec.id not in self.types:
            self.types[spec.id] = len(self.type_rows)
            self.type_rows.append([spec.name, self.sides.share(spec.css)])
        note_number = len(self.notes)
        lint = self.lint.get(rn.note.id, ())
        if rn.note.type_key not in BUILT_IN:  # a declared note type: its Anki name
            self.declared.setdefault(rn.note.type_key, spec.name)
        self.notes.append(
            [
                rn.note.id,
                rn.note.type_key,
                self.types[spec.id],
                [self.tags.setdefault(tag, len(self.tags)) for tag in rn.tags],
                [[self.codes.setdefault(code, len(self.codes)), text] for code, text in lint],
                _searched(rn),
            ]
        )
        fields = dict(zip(spec.fields, rn.fields, strict=True))
        untypeset: list[str] = []
        for ordinal in rn.note.card_ordinals:
            name = spec.templates[0 if spec.is_cloze else ordinal][0]
            context = CardContext(
                deck=self.rd.deck.name,
                tags=rn.tags,
                note_type=spec.name,
                card=name,
                cloze=spec.is_cloze,
            )
            try:
                card = render_card(*spec.sides(ordinal), fields, ordinal, context=context)
            except TemplateError as exc:
                # Anki shows such a card (or its own error); the page says what it cannot.
                warnings.append(
                    Problem(
                        str(self.rd.deck.source),
                        rn.note.line,
                        f"card {ordinal + 1} cannot be shown on the preview page: {exc}",
                        rn.note.id,
                        severity=Severity.WARNING,
                    )
                )
                shown = f'<p class="db-preview-error">{escape(str(exc))}</p>'
                card = RenderedCard(ordinal, shown, shown, (), ())

            question, answer = (
                self.media.inline(typeset(html, untypeset), card)
                for html in (card.question, card.answer)
            )
            if spec.stock_kind == IO_STOCK_KIND:
                # What Anki's clients give an image occlusion card, the preview's own.
                question, answer = (self.occlusion + side for side in (question, answer))
            label = _card_label(rn.note, spec.is_cloze, name, ordinal)
            self.cards.append(
                [
                    note_number,
                    ordinal,
                    label,
                    self.sides.parts(question),
                    self.sides.parts(answer, question),
                ]
            )
        warnings += untypeset_warnings(str(self.rd.deck.source), rn.note, untypeset)

    def json(self) -> str:
        data = {
            "frame": _static("card-side.css"),
            "frameCsp": FRAME_CSP,
            "shim": _static("card-frame.js"),
            # What the page calls each note type, and those whose cards it can flip (their
            # back depends on what the learner did on the front).
            "kinds": {**{t.key: t.label for t in BUILT_IN.values()}, **self.declared},
            "played": [t.key for t in BUILT_IN.values() if t.played],
            "pageSize": PAGE_SIZE,
            "phoneWidth": PHONE_WIDTH,
            "shared": self.sides.shared,
            "types": self.type_rows,
            "tags": list(self.tags),
            "codes": list(self.codes),
            "notes": self.notes,
            "cards": self.cards,
        }
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        # Safe inside <script>: no "</script>" or "<!--" can end or confuse the block.
        return text.replace("<", "\\u003c")


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
        + _scrolling(
            "ladder",
            "ladder-caption",
            '<table class="ladder">'
            f"<thead><tr><th scope='col'>Answers</th>{head}</tr></thead><tbody>{body}</tbody>"
            "</table>",
        )
        + "</figure>"
    )


def _scrolling(name: str, label: str, table: str) -> str:
    """A table in a box that scrolls it sideways when the screen is narrower. The page
    script marks the box's frame while more of the table lies past its right edge
    (``data-more``), and the page's style shows a cue there."""
    return (
        f'<div class="scroll-box"><div class="scroll {name}-wrap" role="region" '
        f'aria-labelledby="{label}" tabindex="0">{table}</div></div>'
    )


def _rows(items: Sequence[tuple[str, str]]) -> str:
    return "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items)


def _summary(p: DeckPreview) -> str:
    """The settings and the summary, in the words and figures of the text report; with
    an exam plan, those of its forecast (the start to exam day), as the report shows."""
    s = p.settings.study
    limit = "none" if s.review_limit is None else f"{s.review_limit} a day"
    fc, sm = shown_forecast(p)
    new_per_day = str(s.new_per_day) if p.exam is None else f"{p.exam.new_per_day} (the exam plan)"
    items = [
        ("Desired retention", f"{s.desired_retention:g}"),
        ("New cards a day", new_per_day),
        ("Review limit", limit),
        ("Days simulated", str(fc.days) if p.exam is None else f"{fc.days}, to the exam"),
        *((label[0].upper() + label[1:], value) for label, value in summary_rows(sm)),
    ]
    notes = "".join(f'<p class="origin note">{escape(note)}</p>' for note in summary_notes())
    return (
        f'<dl class="summary">{_rows(items)}</dl>{notes}'
        f'<p class="origin">Settings from {escape(p.origin)}.</p>'
    )


def _exam(p: DeckPreview) -> str:
    if p.exam is None:
        return ""
    heading, rows = exam_rows(p.exam)
    return (
        f'<section class="exam" aria-labelledby="exam-heading"><h2 id="exam-heading">'
        f"{escape(heading)}</h2>"
        f'<dl class="summary">{_rows(rows)}</dl></section>'
    )


def _sweep(p: DeckPreview) -> str:
    if p.sweep is None:
        return ""
    head, rows = sweep_table_rows(p.sweep)
    header = "".join(f"<th scope='col'>{escape(h)}</th>" for h in head)
    body = "".join(
        f'<tr{" class=marked" if mark else ""}><th scope="row">{escape(cells[0])}</th>'
        + "".join(f"<td>{escape(c)}</td>" for c in cells[1:])
        + f"<td>{escape(mark)}</td></tr>"
        for cells, mark in rows
    )
    table = (
        f'<table class="sweep-table"><thead><tr>{header}<th scope="col"></th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )
    agreement = "".join(
        f'<p class="origin">{escape(line)}</p>'
        for line in sweep_agreement(p.sweep, p.summary, p.simulated, p.settings.study.new_per_day)
    )
    return (
        f'<h3 id="sweep-heading">Workload at each desired retention, over '
        f"{plural(p.forecast.days, 'day')}</h3>"
        f"{sweep_svg(p)}{agreement}"
        f'<details class="sweep-details"><summary>The figures</summary>'
        f"{_scrolling('sweep', 'sweep-heading', table)}</details>"
    )


def _forecast_caption(p: DeckPreview) -> str:
    """What the forecast chart shows: with an exam plan, its forecast to exam day."""
    fc, _ = shown_forecast(p)
    if p.exam is None:
        return f'<p class="origin">Each day of the {fc.days} simulated, one point.</p>'
    plan = p.exam
    line = (
        f"The exam plan's forecast: {_cards_a_day(plan.new_per_day)} from "
        f"{plan.start.isoformat()} (day 1) to the exam on {plan.exam.isoformat()} (day "
        f"{plan.days})."
    )
    last_intro = plan.days - plan.lead
    if 1 <= last_intro < plan.days:
        line += (
            f" The dashed line is day {last_intro}, by which every card is to be "
            f"introduced ({plural(plan.lead, 'day')} before the exam)."
        )
    return f'<p class="origin">{escape(line)}</p>'


def _cards_a_day(n: int) -> str:
    return "1 new card a day" if n == 1 else f"{n} new cards a day"


def _first_weeks(p: DeckPreview) -> str:
    chart = first_weeks_svg(p)
    if not chart:
        return ""
    return (
        f"<h3>The first {FIRST_DAYS} days, where a new deck's work is</h3>"
        f'<p class="origin">The same forecast, a day as wide as the page allows.</p>{chart}'
    )


def _counts(rd: RenderedDeck) -> str:
    rows = "".join(
        f"<tr><th scope='row'>{escape(_type_label(rd, kind))}</th><td>{notes}</td>"
        f"<td>{cards}</td></tr>"
        for kind, (notes, cards) in rd.deck.counts().items()
    )
    return _scrolling(
        "counts",
        "counts-heading",
        '<table class="counts"><thead><tr><th scope="col">Note type</th>'
        '<th scope="col">Notes</th><th scope="col">Cards</th></tr></thead>'
        f"<tbody>{rows}</tbody><tfoot><tr><th scope='row'>total</th><td>{len(rd.notes)}</td>"
        f"<td>{rd.deck.card_count}</td></tr></tfoot></table>",
    )


def _type_label(rd: RenderedDeck, key: str) -> str:
    """What the page calls a note type: a built-in kind's name, or a declared note
    type's Anki name."""
    known = BUILT_IN.get(key)
    if known is not None:
        return known.label
    for rn in rd.notes:
        if rn.note.type_key == key:
            return rn.spec.name
    return key


def _tags(rd: RenderedDeck) -> str:
    counts = Counter(tag for rn in rd.notes for tag in rn.tags)
    if not counts:
        return '<p class="tags none">No tags.</p>'
    items = "".join(
        f'<li><span class="tag">{escape(tag)}</span> <span class="n">{n}</span></li>'
        for tag, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f'<ul class="tags" aria-label="Tags and how many notes have each">{items}</ul>'


def _options(values: Sequence[str]) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)


def _finder(cards: _Cards) -> str:
    """The search, the filters and the jump to a note id above the card list."""
    types = [row[0] for row in cards.type_rows]
    codes = sorted(cards.codes)
    lint = (
        '<option value="">any</option><option value="*">any lint warning</option>' + _options(codes)
        if codes
        else '<option value="">none found</option>'
    )
    return f"""<form class="finder" role="search" aria-label="Find cards" id="finder">
<label>Search <input type="search" id="find-text" placeholder="words, note id" autocomplete="off"></label>
<label>Note type <select id="find-type"><option value="">any</option>{_options(types)}</select></label>
<label>Tag <select id="find-tag"><option value="">any</option>{_options(sorted(cards.tags))}</select></label>
<label>Lint <select id="find-lint"{" disabled" if not codes else ""}>{lint}</select></label>
<label>Note id <input type="text" id="goto-id" autocomplete="off" spellcheck="false"></label>
<button type="submit" id="goto">Go to note</button>
</form>
<p class="status" id="found" role="status" aria-live="polite"></p>
<nav class="pager" aria-label="Pages of cards"></nav>"""


def _removed(removed: Sequence[Removed], deck_name: str) -> str:
    """The notes the card file no longer has, and the search that finds them in Anki,
    whose import never deletes a note. Always there (empty when none), so that a live
    page can put the next build's list in its place."""
    if not removed:
        return '<div id="removed-notes"></div>'
    ids = ", ".join(escape(note) for note, _ in removed)
    search = escape(deck_notes_search(deck_name, (anki_id for _, anki_id in removed)), quote=False)
    return (
        '<div id="removed-notes"><section class="removed" aria-labelledby="removed-heading">'
        f'<h2 id="removed-heading">Removed notes</h2><p>No longer in the card file, '
        f"but in Anki for those who imported an earlier build: {ids}. A package cannot "
        "delete notes: to delete them, search Anki's browser for:</p>"
        f"<pre><code>{search}</code></pre></section></div>"
    )


def _live(version: int | None) -> tuple[str, str, str]:
    """The Content-Security-Policy, head and script of a page served live by version
    ``version`` of ``watch --serve`` (None: a page written to a file)."""
    if version is None:
        return CSP, "", ""
    meta = f'<meta name="deckbuilder-live" content="{version}">\n'
    return LIVE_CSP, meta, f"<script>\n{_static('live.js')}</script>\n"


def _language(rd: RenderedDeck) -> str:
    """The ``lang`` attribute of the deck's own text (its name, description), when known."""
    lang = rd.deck.lang or (rd.deck.languages[0] if rd.deck.languages else "")
    return f' lang="{escape(lang)}"' if lang else ""


def preview_page(
    rd: RenderedDeck,
    p: DeckPreview,
    warnings: list[Problem] | None = None,
    lint: LintNotes | None = None,
    removed: Sequence[Removed] = (),
    live: int | None = None,
) -> str:
    """The whole preview page of one deck, as HTML text (deterministic). Formulas it
    cannot typeset are shown as TeX, each with a warning added to ``warnings``; ``lint``
    gives each note's lint warnings, which the page shows and filters by; ``removed``
    the notes a build drops. ``live``: the page is version ``live`` of a deck served by
    ``watch --serve``, and redraws itself from the server's next builds (live.js).
    Reports its progress through :func:`deckbuilder.progress.step` ("page", cards done,
    cards)."""
    deck = rd.deck
    warnings = [] if warnings is None else warnings
    untypeset: list[str] = []
    description = typeset(rd.description, untypeset)
    warnings += untypeset_warnings(str(deck.source), None, untypeset)
    cards = _Cards(rd, lint or {})
    total = deck.card_count
    for rn in rd.notes:
        cards.add(rn, warnings)
        step("page", len(cards.cards), total)
    lang = _language(rd)
    description = f'<div class="description"{lang}>{description}</div>' if description else ""
    csp, live_meta, live_script = _live(live)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
{live_meta}<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="deckbuilder">
<link rel="icon" href="data:,">
<title>{escape(deck.name)}: preview</title>
<style>
{_static("page.css")}
</style>
</head>
<body>
<script>{_static("night.js")}</script>
<header class="top">
<h1{lang}>{escape(deck.name)}</h1>
<p class="meta">Deck id <code>{escape(deck.key)}</code> from <code>{escape(str(deck.source))}</code>:
{plural(len(rd.notes), "note")}, <span id="card-count">{len(cards.cards):,}</span>
{"card" if len(cards.cards) == 1 else "cards"}.</p>
{description}
<div class="controls" role="toolbar" aria-label="View">
<button type="button" id="night" aria-pressed="false">Night mode</button>
<button type="button" id="phone" aria-pressed="false">Phone width ({PHONE_WIDTH} px)</button>
<a class="button" href="#cards">Cards</a>
</div>
</header>
<main>
<section class="overview">
<div><h2 id="counts-heading">Notes and cards</h2>{_counts(rd)}<h2>Tags</h2>{_tags(rd)}</div>
<div><h2>Study forecast</h2>{_summary(p)}{_exam(p)}</div>
</section>
{_removed(removed, deck.name)}
<section class="forecast-section">
<h2>Forecast</h2>
{_forecast_caption(p)}{forecast_svg(p)}{_first_weeks(p)}
{_sweep(p)}
{_ladder_table(p)}
</section>
<section class="cards-section" aria-labelledby="cards">
<h2 id="cards">Cards</h2>
<p class="hint">Each side is shown as Anki renders it, with the note type's CSS and scripts,
in a sandbox: a card's scripts cannot reach this page, other cards or the network.
Multiple-choice cards: pick on the front, then Flip to see the verdict on the back.
Typed-answer cards: type on the front, then press Enter or Flip.
Math is drawn here from MathML; Anki draws it with MathJax, so fonts and spacing may differ a little.</p>
{_finder(cards)}
<div class="card-list" id="card-list"></div>
<nav class="pager" aria-label="Pages of cards"></nav>
</section>
</main>
<script type="application/json" id="pv-data">{cards.json()}</script>
<script>
{_static("page.js")}</script>
{live_script}</body>
</html>
"""


def _card_label(note: Note, cloze: bool, template: str, ordinal: int) -> str:
    """What the page says of which card of its note a card is: nothing for a note's only
    card; a cloze card's deletion number; a basic note's reverse card; a declared note
    type's card by its template's name."""
    if cloze:
        return f"card c{ordinal + 1}"
    if isinstance(note, BasicNote):
        return "card 2 (reverse)" if ordinal == 1 else ""
    if len(note.card_ordinals) > 1 or ordinal > 0:
        return f"card {ordinal + 1} ({template})"
    return ""
