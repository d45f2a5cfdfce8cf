"""Anki's card template language, for the subset deckbuilder's note types use.

Renders a card's question and answer the way the Anki backend (26.9) does, so the
preview page can show cards without Anki: ``{{Field}}``, filters (``{{text:Field}}``,
``{{cloze:Field}}``, applied right to left), ``{{#Field}}..{{/Field}}`` and
``{{^Field}}..{{/Field}}``, ``{{FrontSide}}`` and ``<!-- comments -->``. Cloze deletions
follow Anki's parser: nested deletions, ``::hint``, the active deletion as
``<span class="cloze" data-cloze=... data-ordinal=N>[...]</span>`` on the question, the
others as ``<span class="cloze-inactive" data-ordinal=N>``. Sounds become
``[anki:play:q:N]`` / ``[anki:play:a:N]`` references, as in ``card.question()``.

The type-answer field, ``{{type:Field}}`` (and ``{{type:nc:Field}}``), the backend leaves
as ``[[type:Field]]`` for the client to fill; :func:`render_card` fills it as the preview
page's client, the way Anki desktop's reviewer does (aqt/reviewer.py, typeAnsFilter): the
question gets an in-card box, ``<input id="typeans">``, whose Enter asks the page for the
answer with ``showAnswer()`` (the call AnkiDroid's card page has, which the page gives each
front); the back gets what the reviewer shows when nothing was handed over to it, Anki's
comparison for an empty answer, ``<code id=typeans>`` holding the field's text. The page
renders each back once, so it cannot hand the typed text to it: a note type that judges
the answer reads its own box on the front (deckbuilder's typed answer does, through
sessionStorage).

Not supported (deckbuilder's templates do not use them; :class:`TemplateError` says so):
other filters (``type:cloze:``, ``hint:``, ``furigana:``, ``tts``...), the legacy
``<% %>`` syntax, image occlusion, TTS tags.
tests/preview/test_anki_template.py compares this renderer with the real backend.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from deckbuilder.cloze import Cloze, parse_clozes

__all__ = [
    "RenderedCard",
    "TemplateError",
    "encode_attribute",
    "field_is_empty",
    "render_card",
    "reveal_cloze",
    "strip_html",
]


class TemplateError(ValueError):
    """The template uses something this renderer does not implement, or is malformed."""


# -- text helpers (Anki's rslib/src/text.rs) ---------------------------------------------

# Anki removes HTML with one regex, (<!--.*?-->)|(<style.*?>.*?</style>)|
# (<script.*?>.*?</script>)|(<.*?>), case-insensitive, '.' matching newlines. A
# backtracking engine would rescan the rest of the text from every '<' that finds no
# end, so _remove_tags reads it the same way in one pass, with these pieces.
_STYLE_OPEN = re.compile("<style", re.IGNORECASE)
_SCRIPT_OPEN = re.compile("<script", re.IGNORECASE)
_STYLE_CLOSE = re.compile("</style>", re.IGNORECASE)
_SCRIPT_CLOSE = re.compile("</script>", re.IGNORECASE)
_COMMENT_CLOSE = re.compile("-->")
_GT = re.compile(">")
# MathJax delimiters: Anki strips HTML between \( or \[ and the next \) or \].
_MATH_OPEN = re.compile(r"\\[(\[]")
_MATH_CLOSE = re.compile(r"\\[)\]]")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_EMPTY_FIELD = re.compile(r"^(?:\s|</?(?:br|div) ?/?>)*\Z", re.IGNORECASE)
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_MINIMAL = {'"': "&quot;", "&": "&amp;", "'": "&#x27;", "<": "&lt;", ">": "&gt;"}


def _decode_entities(text: str) -> str:
    """Entities decoded, as Anki does: all or nothing (a malformed ``&`` keeps the text
    as it is), and a no-break space becomes a plain space."""
    if "&" not in text:
        return text
    if text.count("&") != len(_ENTITY.findall(text)):
        return text
    decoded = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    return decoded.replace("\xa0", " ")


class _Next:
    """Where ``pattern`` next occurs in ``text`` at or after a position. The last answer
    is kept, so a pass that asks from positions moving forward reads the text once,
    however many openings find no end."""

    def __init__(self, text: str, pattern: re.Pattern[str]) -> None:
        self.text = text
        self.pattern = pattern
        self.asked = len(text) + 1  # the position last asked about; none yet
        self.found: re.Match[str] | None = None  # the answer to it

    def at(self, pos: int) -> re.Match[str] | None:
        found = self.found
        if not (self.asked <= pos and (found is None or pos <= found.start())):
            self.asked, self.found = pos, self.pattern.search(self.text, pos)
        return self.found


def _remove_tags(text: str) -> str:
    """``text`` without tags, comments and style/script elements, read as Anki's regex
    (above) reads it."""
    start = text.find("<")
    if start < 0:
        return text
    tag_end = _Next(text, _GT)
    comment_end = _Next(text, _COMMENT_CLOSE)
    style_end = _Next(text, _STYLE_CLOSE)
    script_end = _Next(text, _SCRIPT_CLOSE)
    out: list[str] = []
    kept = 0  # the text before this is written out or removed
    while start >= 0:
        gt = tag_end.at(start + 1)
        if gt is None:
            break  # every form ends in '>': nothing from here on is removed
        end = gt.end()
        element_end = None
        if text.startswith("<!--", start):
            element_end = comment_end.at(start + 4)
        elif _STYLE_OPEN.match(text, start):
            element_end = style_end.at(end)
        elif _SCRIPT_OPEN.match(text, start):
            element_end = script_end.at(end)
        if element_end is not None:
            end = element_end.end()
        out.append(text[kept:start])
        kept = end
        start = text.find("<", end)
    out.append(text[kept:])
    return "".join(out)


def strip_html(text: str) -> str:
    """The ``text:`` filter: tags (and style/script contents, comments) removed, entities
    decoded."""
    return _decode_entities(_remove_tags(text))


def _strip_html_in_math(text: str) -> str:
    """Tags removed between MathJax delimiters (``\\(`` or ``\\[`` up to the next ``\\)``
    or ``\\]``), as Anki's ``cloze:`` filter does."""
    out: list[str] = []
    kept = 0
    while True:
        opening = _MATH_OPEN.search(text, kept)
        if opening is None:
            break
        closing = _MATH_CLOSE.search(text, opening.end())
        if closing is None:
            break  # no later opening has a closing either
        out.append(text[kept : opening.end()])
        out.append(_remove_tags(text[opening.end() : closing.start()]))
        out.append(closing.group())
        kept = closing.end()
    out.append(text[kept:])
    return "".join(out)


def field_is_empty(text: str) -> bool:
    """Anki's test for ``{{#Field}}``: only whitespace and empty ``<br>``/``<div>`` tags."""
    return bool(_EMPTY_FIELD.match(text))


def encode_attribute(text: str) -> str:
    """Escaped for an attribute value like the ``htmlescape`` crate Anki uses: the five
    HTML specials as entities, every other non-alphanumeric character below U+0100 as
    ``&#xHH;``, everything else unchanged."""
    out = []
    for ch in text:
        if ch in _MINIMAL:
            out.append(_MINIMAL[ch])
        elif ord(ch) < 256 and ch not in _ALNUM:
            out.append(f"&#x{ord(ch):02X};")
        else:
            out.append(ch)
    return "".join(out)


# -- clozes (Anki's rslib/src/cloze.rs) --------------------------------------------------


def _reveal(cloze: Cloze, ordinal: int, question: bool, found: list[bool], out: list[str]) -> None:
    active = cloze.ordinal == ordinal
    if active:
        found[0] = True

    def children(into: list[str]) -> None:
        for node in cloze.nodes:
            if isinstance(node, str):
                into.append(node)
            else:
                _reveal(node, ordinal, question, found, into)

    if active and question:
        inner: list[str] = []
        children(inner)
        hint = "..." if cloze.hint is None else cloze.hint
        out.append(
            f'<span class="cloze" data-cloze="{encode_attribute("".join(inner))}" '
            f'data-ordinal="{cloze.ordinal}">[{hint}]</span>'
        )
        return
    css = "cloze" if active else "cloze-inactive"
    out.append(f'<span class="{css}" data-ordinal="{cloze.ordinal}">')
    children(out)
    out.append("</span>")


def reveal_cloze(text: str, ordinal: int, question: bool) -> str:
    """The ``cloze:`` filter for card ``ordinal`` (1-based): empty when the field has no
    deletion with that number."""
    out: list[str] = []
    found = [False]
    for node in parse_clozes(text):
        if isinstance(node, str):
            out.append(node)
        else:
            _reveal(node, ordinal, question, found, out)
    if not found[0]:
        return ""
    return _strip_html_in_math("".join(out))


# -- templates (Anki's rslib/src/template.rs) --------------------------------------------

_TAG = re.compile(r"\{\{(.*?)\}\}|<!--(.*?)-->", re.DOTALL)


@dataclass(frozen=True)
class _Context:
    fields: Mapping[str, str]
    ordinal: int  # 0-based card ordinal
    frontside: str | None  # None while rendering the question


def _parse(template: str) -> list[object]:
    """Nodes: str (text), ("field", key, filters), ("if"|"unless", key, children)."""
    if template.lstrip().startswith("{{=<% %>=}}"):
        raise TemplateError("the legacy <% %> template syntax is not supported")
    stack: list[tuple[str | None, list[object]]] = [(None, [])]
    pos = 0
    for m in _TAG.finditer(template):
        nodes = stack[-1][1]
        if m.start() > pos:
            nodes.append(template[pos : m.start()])
        pos = m.end()
        if m.group(1) is None:  # a comment is kept as it is
            nodes.append(m.group(0))
            continue
        inner = m.group(1).lstrip("{").strip()
        head, rest = inner[:1], inner[1:].lstrip()
        if len(inner) >= 2 and head in "#^":
            children: list[object] = []
            nodes.append(("if" if head == "#" else "unless", rest, children))
            stack.append((rest, children))
        elif len(inner) >= 2 and head == "/":
            if stack[-1][0] != rest:
                raise TemplateError(f"{{{{/{rest}}}}} closes a section that is not open")
            stack.pop()
        else:
            key, *filters = inner.split(":")[::-1]
            nodes.append(("field", key, filters))
    if len(stack) > 1:
        raise TemplateError(f"{{{{#{stack[-1][0]}}}}} is never closed")
    if pos < len(template):
        stack[0][1].append(template[pos:])
    return stack[0][1]


def _type_filter(key: str, filters: Sequence[str]) -> str:
    """Anki's ``type:`` filter (rslib template_filters.rs, apply_filters): written first,
    it takes the place of every filter after it, and gives the marker a client fills."""
    if list(filters) == ["cloze", "type"]:
        raise TemplateError(
            f"the template filter 'type:cloze:' ({{{{type:cloze:{key}}}}}) is not supported"
        )
    if list(filters) == ["nc", "type"]:
        return f"[[type:nc:{key}]]"
    return f"[[type:{key}]]"


def _apply_filter(name: str, text: str, key: str, ctx: _Context) -> str:
    if name == "text":
        return strip_html(text)
    if name == "cloze":
        return reveal_cloze(text, ctx.ordinal + 1, ctx.frontside is None)
    if name == "":
        return text
    raise TemplateError(f"the template filter '{name}:' ({{{{{name}:{key}}}}}) is not supported")


def _render_nodes(nodes: Sequence[object], ctx: _Context, out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
            continue
        assert isinstance(node, tuple)
        kind, key, extra = node
        if kind == "field":
            if key == "FrontSide":
                out.append(ctx.frontside or "")
                continue
            if key == "" and extra:
                continue
            if key not in ctx.fields:
                raise TemplateError(f"the template refers to an unknown field '{key}'")
            text = ctx.fields[key]
            if extra and extra[-1] == "type":
                out.append(_type_filter(key, extra))
                continue
            for name in extra:
                text = _apply_filter(name, text, key, ctx)
            out.append(text)
        else:
            if key not in ctx.fields and not re.fullmatch(r"c[0-9]+", key):
                raise TemplateError(f"the template tests an unknown field '{key}'")
            shown = not field_is_empty(ctx.fields.get(key, ""))
            if shown == (kind == "if"):
                _render_nodes(extra, ctx, out)
            else:  # Anki still checks the hidden part for errors
                _render_nodes(extra, ctx, [])


@dataclass(frozen=True)
class RenderedCard:
    """One card's sides as ``card.question()`` / ``card.answer()`` give them, without the
    ``<style>`` block Anki puts first; ``*_sounds`` are the files ``[anki:play:q|a:N]``
    refer to, in order."""

    ordinal: int  # 0-based, as Anki's card.ord
    question: str
    answer: str
    question_sounds: tuple[str, ...]
    answer_sounds: tuple[str, ...]


def _extract_sounds(text: str, side: str) -> tuple[str, tuple[str, ...]]:
    """``[sound:name]`` tags as ``[anki:play:side:N]`` references, and their names. As in
    Anki's ``\\[sound:(.+?)\\]``: the name is at least one character, up to the next ``]``."""
    sounds: list[str] = []
    out: list[str] = []
    kept = 0
    while True:
        start = text.find("[sound:", kept)
        if start < 0:
            break
        end = text.find("]", start + 8)
        if end < 0:
            break  # no later tag has a ']' either
        sounds.append(_decode_entities(text[start + 7 : end]))
        out.append(text[kept:start])
        out.append(f"[anki:play:{side}:{len(sounds) - 1}]")
        kept = end + 1
    out.append(text[kept:])
    return "".join(out), tuple(sounds)


# -- the type-answer field, as the preview page's client fills it ------------------------

# The marker the backend leaves (the pattern both Anki desktop and AnkiDroid search for).
_TYPE_ANSWER = re.compile(r"\[\[type:(.+?)\]\]")
# What Anki's comparison leaves out of the expected text (rslib typeanswer.rs
# strip_expected): sound and TTS tags, and line breaks, which become one space.
_AV_TAGS = re.compile(r"\[sound:.+?\]|\[anki:tts[^\]]*\].*?\[/anki:tts\]", re.DOTALL)
_LINE_BREAKS = re.compile(r"(?:\n|<br\s?/?>|</?div>)+", re.IGNORECASE)
# The box on the question. Enter (not one that ends an IME composition) asks for the
# answer as a card asks AnkiDroid's card page, with showAnswer().
_TYPE_ANSWER_BOX = (
    '<center><input type="text" id="typeans" autocomplete="off" onkeydown="'
    "if (event.key === 'Enter' &amp;&amp; !event.isComposing &amp;&amp; "
    "typeof showAnswer === 'function') { event.preventDefault(); showAnswer(); }"
    '"></center>'
)


def _type_answer_field(marker: str, fields: Mapping[str, str]) -> str:
    """The content of the field a ``[[type:...]]`` names (the renderer has already
    refused a template that names an unknown field)."""
    name = marker.split(":", 1)[1] if marker.startswith("nc:") else marker
    return fields.get(name, "")


def _type_answer_question(text: str, fields: Mapping[str, str]) -> str:
    """Every ``[[type:...]]`` of the question as Anki desktop's reviewer fills it: the
    box, or nothing where the field is empty."""
    match = _TYPE_ANSWER.search(text)
    if match is None:
        return text
    shown = _TYPE_ANSWER_BOX if _type_answer_field(match.group(1), fields) else ""
    return _TYPE_ANSWER.sub(lambda _: shown, text)


def _type_answer_back(text: str, question: str, fields: Mapping[str, str]) -> str:
    """Every ``[[type:...]]`` of the answer as Anki desktop's reviewer fills it when
    nothing was typed: Anki's comparison of the field's text with an empty answer (rslib
    typeanswer.rs compare_answer), and nothing where the question had no box."""
    match = _TYPE_ANSWER.search(question)
    expected = _type_answer_field(match.group(1), fields) if match else ""
    if not expected:
        return _TYPE_ANSWER.sub("", text)
    stripped = strip_html(_LINE_BREAKS.sub(" ", _AV_TAGS.sub("", expected))).strip()
    shown = "<code id=typeans>" + "".join(_MINIMAL.get(ch, ch) for ch in stripped) + "</code>"
    # As the reviewer does, a separator before the box stays before the comparison.
    without_hr = text.replace("<hr id=answer>", "")
    if without_hr == text:
        return _TYPE_ANSWER.sub(lambda _: shown, text)
    if not _TYPE_ANSWER.search(without_hr):
        return text
    return _TYPE_ANSWER.sub(lambda _: "<hr id=answer>" + shown, without_hr)


def render_card(
    front: str, back: str, fields: Mapping[str, str], ordinal: int, *, as_client: bool = True
) -> RenderedCard:
    """Render card ``ordinal`` (0-based) of a note with these field values, as the preview
    page shows it; with ``as_client=False``, as the backend leaves it for a client
    (``[[type:...]]`` unfilled, as in ``card.question()``)."""
    q, q_sounds = _extract_sounds("".join(_render(front, _Context(fields, ordinal, None))), "q")
    # {{FrontSide}} is the question after its sounds became [anki:play:q:N] references:
    # they keep playing the question's sounds; the answer's own are numbered from 0.
    a, a_sounds = _extract_sounds("".join(_render(back, _Context(fields, ordinal, q))), "a")
    if as_client:
        q, a = _type_answer_question(q, fields), _type_answer_back(a, q, fields)
    return RenderedCard(ordinal, q, a, q_sounds, a_sounds)


def _render(template: str, ctx: _Context) -> list[str]:
    out: list[str] = []
    _render_nodes(_parse(template), ctx, out)
    return out
