"""Anki's card template language, rendered as the Anki backend (26.9) renders it.

The preview page shows every card without Anki, so a card's sides here are what
``card.question()`` / ``card.answer()`` give (tests/preview/test_anki_template*.py compare
them with the real backend): ``{{Field}}`` (any name, spaces and non-ASCII included),
filters applied right to left (``text:``, ``hint:``, ``furigana:``, ``kanji:``, ``kana:``,
``cloze:``, ``cloze-only:``, ``type:``, ``type:nc:``, ``type:cloze:``,
``tts LANG options:``; an unknown filter ends the chain and leaves the text as it is),
``{{#Field}}`` / ``{{^Field}}`` sections (``{{#c2}}``: this card is c2), ``{{FrontSide}}``,
the special fields (:class:`CardContext`), ``<!-- comments -->``, Anki's message for a
template that names a missing field and for a card whose front is blank. Sounds and
text-to-speech become ``[anki:play:q:N]`` / ``[anki:play:a:N]`` references, their tags in
:attr:`RenderedCard.question_av_tags`.

A client then fills in what the backend leaves to it; :func:`render_card` does so as the
preview page's client (``as_client=False`` stops before): the type-answer box
(``[[type:...]]``), the way Anki desktop's reviewer does (aqt/reviewer.py), and a speak
button for each TTS tag. The question gets an in-card box, ``<input id="typeans">``, whose
Enter asks the page for the answer with ``showAnswer()`` (the call AnkiDroid's card page
has, which the page gives each front); the back gets what the reviewer shows when nothing
was handed over to it, Anki's comparison for an empty answer, ``<code id=typeans>``
holding the expected text. The page renders each back once, so it cannot hand the typed
text to it: a note type that judges the answer reads its own box on the front
(deckbuilder's typed answer does, through sessionStorage).

Which cards a note makes is the core's rule (:func:`deckbuilder.templates.cards_made`).

Not rendered: the legacy ``{{=<% %>=}}`` syntax and malformed templates
(:class:`TemplateError`; Anki refuses to save either kind of broken template), LaTeX
(``[latex]`` becomes an image Anki makes with a TeX installation), and deletions with
several numbers (``{{c1,2::...}}``), which deckbuilder's cloze reader does not know.
Anki's messages are in English. Image occlusion deletions render as Anki renders them
(:func:`image_occlusion`), for a script of the client's to draw.
"""

from __future__ import annotations

import hashlib
import html
import posixpath
import re
import struct
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple, TypeAlias

from deckbuilder.anki.occlusion import read_shape
from deckbuilder.cloze import Cloze, cloze_numbers, parse_clozes
from deckbuilder.templates import field_is_empty, token_spans


class TemplateError(ValueError):
    """The template is malformed or uses the legacy ``<% %>`` syntax."""


# -- text helpers (Anki's rslib/src/text.rs) ---------------------------------------------

# What Rust's str::trim removes (Unicode White_Space); Python's str.strip also removes
# U+001C-U+001F.
_RUST_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
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
# The tags text-to-speech reads as a pause (text.rs HTML_LINEBREAK_TAGS).
_SPOKEN_BREAKS = re.compile(
    r"</?(?:br|address|article|aside|blockquote|canvas|dd|div|dl|dt|fieldset|figcaption"
    r"|figure|footer|form|h[1-6]|header|hr|li|main|nav|noscript|ol|output|p|pre|section"
    r"|table|tfoot|ul|video)>",
    re.IGNORECASE,
)
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
# The htmlescape crate's encode_minimal, which html.escape matches: the five HTML specials.
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


# -- sounds and text-to-speech (Anki's rslib/src/card_rendering) -------------------------


@dataclass(frozen=True)
class SoundTag:
    """A ``[sound:name]`` tag: the media file to play (as ``anki.sound.SoundOrVideoTag``)."""

    filename: str


@dataclass(frozen=True)
class TTSTag:
    """A ``{{tts}}`` tag (as ``anki.sound.TTSTag``): the text to speak, its language, the
    voices asked for, the speed, and options Anki does not know (``key=value``)."""

    field_text: str
    lang: str
    voices: tuple[str, ...]
    speed: float
    other_args: tuple[str, ...]


AVTag: TypeAlias = SoundTag | TTSTag

# Anki's (English) text for the TTS tag of a question's cloze deletion, and for a TTS tag
# without a language.
_BLANK = "blank"
_NO_LANG = "[Error in directive '\u2068anki:tts\u2069': \u2068'\u2068lang\u2069' not set\u2069]"
_CLOSE_BRACKET = re.compile(r"\]")
_NAME_END = re.compile(r"[\] \t\r\n]")
_SPACES = re.compile(r"[ \t\r\n]*")
# One key=value option of a tag and the white space after it; a value in quotes may hold
# anything but a quote.
_OPTION = re.compile(r'([^\] \t\r\n=]+)=(?:"([^"]*)"|([^\] \t\r\n"]*))[ \t\r\n]*')
# Rust's f32 syntax (inf and nan in any case, no underscores or spaces).
_RUST_FLOAT = re.compile(
    r"[+-]?(?:inf|infinity|nan|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?)\Z",
    re.IGNORECASE,
)


class _Sound(NamedTuple):
    resource: str


class _Directive(NamedTuple):
    """``[anki:name options]content[/anki:name]``."""

    name: str
    options: tuple[tuple[str, str], ...]
    content: str


class _SliceHashes:
    """Polynomial hashes of a text's prefixes: any slice's hash in constant time, so that
    tag names are matched without copying them (copying the name of each of a run of
    nested openings would take quadratic time)."""

    _MOD = (1 << 61) - 1
    _BASE = 1_000_003

    def __init__(self, text: str) -> None:
        prefix, powers = [0], [1]
        h, p = 0, 1
        for ch in text:
            h = (h * self._BASE + ord(ch)) % self._MOD
            p = p * self._BASE % self._MOD
            prefix.append(h)
            powers.append(p)
        self.prefix, self.powers = prefix, powers

    def of(self, start: int, end: int) -> int:
        prefix = self.prefix
        return (prefix[end] - prefix[start] * self.powers[end - start]) % self._MOD


class _AvReader:
    """Anki's reader of sound and ``[anki:...]`` tags (card_rendering/parser.rs): at each
    ``[``, a ``[sound:name]`` (a name of at least one character, up to the next ``]``), or
    an ``[anki:name key=value ...]`` opening whose ``[/anki:name]`` comes later; anything
    else is text. Every search moves forward or is remembered, so the text is read in
    linear time however many openings find no end."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.bracket = _Next(text, _CLOSE_BRACKET)
        self.name_end = _Next(text, _NAME_END)
        self.options_end: dict[int, int] = {}  # where a run of options from here stops
        self.hashes: _SliceHashes | None = None
        self.closings: dict[tuple[int, int], list[int]] = {}  # name -> [/anki:name] starts

    def nodes(self) -> Iterator[str | _Sound | _Directive]:
        text = self.text
        kept = 0
        start = text.find("[")
        while start >= 0:
            found: tuple[_Sound | _Directive, int] | None = None
            if text.startswith("[sound:", start):
                found = self._sound(start)
            if found is None and text.startswith("[anki:", start):
                found = self._directive(start)
            if found is None:
                start = text.find("[", start + 1)
                continue
            node, end = found
            if kept < start:
                yield text[kept:start]
            yield node
            kept = end
            start = text.find("[", end)
        if kept < len(text):
            yield text[kept:]

    def _sound(self, start: int) -> tuple[_Sound, int] | None:
        bracket = self.bracket.at(start + 7)
        if bracket is None or bracket.start() == start + 7:
            return None
        return _Sound(self.text[start + 7 : bracket.start()]), bracket.end()

    def _directive(self, start: int) -> tuple[_Directive, int] | None:
        text = self.text
        name_start = start + 6
        name_end_match = self.name_end.at(name_start)
        if name_end_match is None or name_end_match.start() == name_start:
            return None
        name_end = name_end_match.start()
        spaces = _SPACES.match(text, name_end)
        options_start = spaces.end() if spaces else name_end
        options_end = self._options_end(options_start)
        if not text.startswith("]", options_end):
            return None
        closing = self._closing(name_start, name_end, options_end + 1)
        if closing is None:
            return None
        options = []
        pos = options_start
        while pos < options_end:
            m = _OPTION.match(text, pos)
            assert m is not None  # read once already
            options.append((m.group(1), m.group(2) if m.group(2) is not None else m.group(3)))
            pos = m.end()
        name = text[name_start:name_end]
        node = _Directive(name, tuple(options), text[options_end + 1 : closing])
        return node, closing + len(name) + 8

    def _options_end(self, start: int) -> int:
        """Where the run of ``key=value`` options from ``start`` ends; each position is
        read once, whichever opening's options reach it."""
        memo = self.options_end
        chain = []
        pos = start
        while pos not in memo:
            chain.append(pos)
            m = _OPTION.match(self.text, pos)
            if m is None:
                memo[pos] = pos
                break
            pos = m.end()
        end = memo[pos]
        for visited in chain:
            memo[visited] = end
        return end

    def _closing(self, name_start: int, name_end: int, after: int) -> int | None:
        """Where the first ``[/anki:name]`` at or after ``after`` starts, if any."""
        text = self.text
        if self.hashes is None:
            self.hashes = _SliceHashes(text)
            ends = _Next(text, _NAME_END)
            at = text.find("[/anki:")
            while at >= 0:
                end = ends.at(at + 7)
                if end is not None and end.group() == "]" and end.start() > at + 7:
                    key = (end.start() - at - 7, self.hashes.of(at + 7, end.start()))
                    self.closings.setdefault(key, []).append(at)
                at = text.find("[/anki:", at + 1)
        length = name_end - name_start
        starts = self.closings.get((length, self.hashes.of(name_start, name_end)), [])
        for index in range(bisect_left(starts, after), len(starts)):
            if text.startswith(text[name_start:name_end], starts[index] + 7):
                return starts[index]
        return None


def _f32(text: str) -> float:
    """A speed as Anki reads it: Rust's f32, 1.0 when it is not a number."""
    if not _RUST_FLOAT.match(text):
        return 1.0
    value = float(text.lower().replace("infinity", "inf"))
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _tts_tag(directive: _Directive) -> TTSTag | None:
    """The tag Anki makes of an ``[anki:tts]`` directive (None without a language): the
    text to speak is the content without HTML, ``[...]`` (a question's deletion) read as
    the ``cloze_blank`` option or "blank"."""
    lang, speed, blank = "", 1.0, _BLANK
    voices: tuple[str, ...] = ()
    others: dict[str, str] = {}
    for key, value in directive.options:
        if key == "lang":
            lang = value
        elif key == "voices":
            voices = tuple(value.split(","))
        elif key == "speed":
            speed = _f32(value)
        elif key == "cloze_blank":
            blank = value
        else:
            others[key] = value
    if not lang:
        return None
    spoken = strip_html(_SPOKEN_BREAKS.sub(" ", directive.content)).replace("[...]", blank)
    other_args = tuple(f"{key}={value}" for key, value in others.items())
    return TTSTag(spoken, lang, voices, speed, other_args)


def _write_directive(directive: _Directive) -> str:
    """A tag Anki does not play, written back as Anki writes it: options normalised
    (Anki's own order of several options varies from run to run; this keeps theirs)."""
    options = []
    for key, value in dict(directive.options).items():
        quoted = any(ch in value for ch in "] \t\r\n")
        options.append(f' {key}="{value}"' if quoted else f" {key}={value}")
    name = directive.name
    return f"[anki:{name}{''.join(options)}]{directive.content}[/anki:{name}]"


def _extract_av_tags(text: str, side: str) -> tuple[str, tuple[AVTag, ...]]:
    """The side with its sound and TTS tags as ``[anki:play:side:N]`` references, and the
    tags (Anki's extract_av_tags)."""
    if "[" not in text:
        return text, ()
    out: list[str] = []
    tags: list[AVTag] = []
    for node in _AvReader(text).nodes():
        if isinstance(node, str):
            out.append(node)
            continue
        tag: AVTag | None
        if isinstance(node, _Sound):
            # pylib's av_tag_to_native keeps the file's base name: what a client plays.
            tag = SoundTag(posixpath.basename(_decode_entities(node.resource)))
        elif node.name == "tts":
            tag = _tts_tag(node)
            if tag is None:
                out.append(_NO_LANG)
                continue
        else:
            out.append(_write_directive(node))
            continue
        out.append(f"[anki:play:{side}:{len(tags)}]")
        tags.append(tag)
    return "".join(out), tuple(tags)


def _strip_av_tags(text: str) -> str:
    """The text without sound and TTS tags (Anki's strip_av_tags)."""
    if "[" not in text:
        return text
    out: list[str] = []
    for node in _AvReader(text).nodes():
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, _Directive) and node.name != "tts":
            out.append(_write_directive(node))
    return "".join(out)


# -- clozes (Anki's rslib/src/cloze.rs) --------------------------------------------------


def _reveal(cloze: Cloze, ordinal: int, question: bool, found: list[bool], out: list[str]) -> None:
    active = cloze.ordinal == ordinal
    if active:
        found[0] = True
    first = cloze.nodes[0] if cloze.nodes else None
    if isinstance(first, str) and first.startswith("image-occlusion:"):
        out.append(
            image_occlusion(cloze.ordinal, first.removeprefix("image-occlusion:"), question, active)
        )
        return
    if active and question:
        inner: list[str] = []
        _reveal_all(cloze.nodes, ordinal, question, found, inner)
        hint = "..." if cloze.hint is None else cloze.hint
        out.append(
            f'<span class="cloze" data-cloze="{encode_attribute("".join(inner))}" '
            f'data-ordinal="{cloze.ordinal}">[{hint}]</span>'
        )
        return
    css = "cloze" if active else "cloze-inactive"
    out.append(f'<span class="{css}" data-ordinal="{cloze.ordinal}">')
    _reveal_all(cloze.nodes, ordinal, question, found, out)
    out.append("</span>")


def _reveal_all(
    nodes: Sequence[str | Cloze], ordinal: int, question: bool, found: list[bool], out: list[str]
) -> None:
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        else:
            _reveal(node, ordinal, question, found, out)


# What Anki makes of an image occlusion deletion's properties (get_image_cloze_data in
# rslib/src/image_occlusion/imageocclusion.rs): the data attribute of each it knows,
# those of a size left out when empty or "0", in the order they are written.
_IO_SHAPES = ("rect", "ellipse", "polygon", "text")
_IO_PLAIN = {
    "left": "left",
    "top": "top",
    "angle": "angle",
    "fill": "fill",
    "oi": "occludeInactive",
}
_IO_SIZES = ("width", "height", "rx", "ry", "scale")


def image_occlusion(number: int, text: str, question: bool, active: bool) -> str:
    """An image occlusion deletion (``{{cN::image-occlusion:SHAPE:key=value...}}``) as
    the ``cloze:`` filter renders it for a client's script to draw: a ``<div>`` whose
    class says how (the card's own on the front ``cloze``, on the back
    ``cloze-highlight``; another card's ``cloze-inactive``; a label, c0, ``cloze``),
    and whose data attributes hold the shape."""
    shape, properties, _ = read_shape(text)
    data = [f'data-shape="{shape}" '] if shape in _IO_SHAPES else []
    for name, value in properties:
        if not value:
            continue
        if name in _IO_PLAIN:
            data.append(f'data-{_IO_PLAIN[name]}="{value}" ')
        elif name in _IO_SIZES and value != "0":
            data.append(f'data-{name}="{value}" ')
        elif name == "points":
            pairs = [pair for pair in value.split(" ") if "," in pair]
            if pairs:
                data.append(f'data-points="{" ".join(pairs)}" ')
        elif name == "text":
            data.append(f'data-text="{encode_attribute(value)}" ')
        elif name == "fs":
            data.append(f'data-font-size="{value}" ')
    if (question and active) or number == 0:
        css = "cloze"
    else:
        css = "cloze-highlight" if active else "cloze-inactive"
    return f'<div class="{css}" data-ordinal="{number}" {"".join(data)}></div>'


def reveal_cloze(text: str, ordinal: int, question: bool) -> str:
    """The ``cloze:`` filter for card ``ordinal`` (1-based): empty when the field has no
    deletion with that number."""
    out: list[str] = []
    found = [False]
    _reveal_all(parse_clozes(text), ordinal, question, found, out)
    if not found[0]:
        return ""
    return _strip_html_in_math("".join(out))


def _clozed_text(cloze: Cloze) -> str:
    return "".join(node if isinstance(node, str) else _clozed_text(node) for node in cloze.nodes)


def _active_deletions(nodes: Sequence[str | Cloze], ordinal: int, question: bool) -> list[str]:
    """Each deletion ``ordinal`` in the field, nested ones included: its hint (``...``
    without one) on the question, what it hides on the answer."""
    out: list[str] = []

    def visit(nodes: Sequence[str | Cloze]) -> None:
        for node in nodes:
            if isinstance(node, str):
                continue
            if node.ordinal == ordinal:
                if question:
                    out.append("..." if node.hint is None else node.hint)
                else:
                    out.append(_clozed_text(node))
            visit(node.nodes)

    visit(nodes)
    return out


def _cloze_only(text: str, ordinal: int, question: bool) -> str:
    """The ``cloze-only:`` filter: the active deletions alone, comma-separated."""
    return ", ".join(_active_deletions(parse_clozes(text), ordinal, question))


def _cloze_for_typing(text: str, ordinal: int) -> str:
    """What ``{{type:cloze:Field}}`` expects (Anki's extract_cloze_for_typing): the text
    of deletion ``ordinal``, once if every one of them hides the same text."""
    hidden = _active_deletions(parse_clozes(text), ordinal, question=False)
    if hidden and min(hidden) == max(hidden):
        return hidden[-1]
    return ", ".join(hidden)


# -- ruby text: furigana:, kanji:, kana: (Anki's template_filters.rs) --------------------

_RUBY_SEPARATOR = re.compile("[ >]")
_NEWLINE = re.compile("\n")


def _ruby(text: str, show: Callable[[str, str], str]) -> str:
    """Each ``base[reading]`` (and the space before it) replaced by ``show(base, reading)``,
    read as Anki's `` ?([^ >]+?)\\[(.+?)\\]`` reads it: the base runs back to the last
    space or ``>``, the reading is at least one character up to the next ``]`` on the
    line, and a ``[sound:...]`` is left as it is. One pass; ``&nbsp;`` is a space."""
    text = text.replace("&nbsp;", " ")
    bracket = text.find("[")
    if bracket < 0:
        return text
    closing = _Next(text, _CLOSE_BRACKET)
    newline = _Next(text, _NEWLINE)
    separators = _RUBY_SEPARATOR.finditer(text)
    next_separator = next(separators, None)
    last_separator = -1
    out: list[str] = []
    kept = 0  # the text before this is written out; no match starts before it
    while bracket >= 0:
        while next_separator is not None and next_separator.start() < bracket:
            last_separator = next_separator.start()
            next_separator = next(separators, None)
        base_start = max(kept, last_separator + 1)
        end = closing.at(bracket + 2)
        line_end = newline.at(bracket + 1)
        if (
            base_start == bracket
            or end is None
            or (line_end is not None and line_end.start() < end.start())
        ):
            bracket = text.find("[", bracket + 1)
            continue
        start = base_start
        if start > kept and text[start - 1] == " ":
            start -= 1
        reading = text[bracket + 1 : end.start()]
        out.append(text[kept:start])
        if reading.startswith("sound:"):
            out.append(text[start : end.end()])
        else:
            out.append(show(text[base_start:bracket], reading))
        kept = end.end()
        bracket = text.find("[", kept)
    out.append(text[kept:])
    return "".join(out)


def _furigana(text: str) -> str:
    return _ruby(text, lambda base, reading: f"<ruby><rb>{base}</rb><rt>{reading}</rt></ruby>")


# -- templates (Anki's rslib/src/template.rs) --------------------------------------------


class _Replacement(NamedTuple):
    """``{{filter:...:key}}``; the filters in the order they apply (right to left)."""

    key: str
    filters: tuple[str, ...]


class _Section(NamedTuple):
    """``{{#key}}...{{/key}}``, or with ``negated``, ``{{^key}}...{{/key}}``."""

    key: str
    negated: bool
    children: tuple[_Node, ...]


_Node: TypeAlias = str | _Replacement | _Section  # text (comments included) or a tag

_LEGACY = "{{=<% %>=}}"


def _tag(inside: str) -> tuple[str, str]:
    """What a ``{{...}}`` is (Anki's classify_handle): ``#``, ``^``, ``/`` and the key, or
    ``""`` and the whole replacement."""
    inner = inside.lstrip("{").strip(_RUST_SPACE)
    if len(inner) >= 2 and inner[0] in "#^/":
        return inner[0], inner[1:].lstrip(_RUST_SPACE)
    return "", inner


@lru_cache(maxsize=512)
def _parse(template: str) -> tuple[_Node, ...]:
    """The template's nodes; :class:`TemplateError` in Anki's words when it is malformed."""
    if template.lstrip(_RUST_SPACE).startswith(_LEGACY):
        raise TemplateError(f"the legacy {_LEGACY} template syntax is not supported")
    # Each open section: its kind, key, and the nodes read into it so far.
    stack: list[tuple[str, str, list[_Node]]] = [("", "", [])]
    # Anki's tokens, as the core reads them: text (comments included, as they are; a
    # comment hides tags) and each {{...}} that has a }} after it.
    for token, start, end in token_spans(template):
        nodes = stack[-1][2]
        if token != "tag":
            nodes.append(template[start:end])
            continue
        kind, key = _tag(template[start + 2 : end - 2])
        if kind in ("#", "^"):
            stack.append((kind, key, []))
        elif kind == "/":
            open_kind, open_key, children = stack[-1]
            if not open_kind:
                raise TemplateError(
                    f"Found '{{{{/{key}}}}}', but missing '{{{{#{key}}}}}' or '{{{{^{key}}}}}'"
                )
            if open_key != key:
                raise TemplateError(f"Found '{{{{/{key}}}}}', but expected '{{{{/{open_key}}}}}'")
            stack.pop()
            stack[-1][2].append(_Section(key, open_kind == "^", tuple(children)))
        else:
            *filters, last = key.split(":")
            nodes.append(_Replacement(last, tuple(reversed(filters))))
    if len(stack) > 1:
        raise TemplateError(f"Missing '{{{{/{stack[-1][1]}}}}}'")
    return tuple(stack[0][2])


def _parse_side(template: str, side: str) -> tuple[_Node, ...]:
    try:
        return _parse(template)
    except TemplateError as error:
        raise TemplateError(f"{side} template has a problem: {error}") from None


def _sections(nodes: Sequence[_Node]) -> Iterator[tuple[int, _Node]]:
    """Every node, sections' children after their section, with its depth; an explicit
    stack, so a deep nesting of sections is no deeper call chain."""
    stack: list[tuple[int, Iterator[_Node]]] = [(0, iter(nodes))]
    while stack:
        depth, nodes_left = stack[-1]
        node = next(nodes_left, None)
        if node is None:
            stack.pop()
            continue
        yield depth, node
        if isinstance(node, _Section):
            stack.append((depth + 1, iter(node.children)))


def _renders(nodes: Sequence[_Node], nonempty: Collection[str]) -> bool:
    """Anki's renders_with_fields: whether the nodes show a non-empty field, through
    sections that are open for these fields (text, ``{{FrontSide}}`` and missing fields
    show nothing)."""
    stack: list[Iterator[_Node]] = [iter(nodes)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif isinstance(node, _Replacement):
            if node.key in nonempty:
                return True
        elif isinstance(node, _Section) and (node.key in nonempty) != node.negated:
            stack.append(iter(node.children))
    return False


# -- rendering a side --------------------------------------------------------------------

_ERROR_LINK = "https://docs.ankiweb.net/templates/errors.html#template-syntax-error"
_BLANK_LINK = "https://docs.ankiweb.net/templates/errors.html#front-of-card-is-blank"
_CLOZE_LINK = "https://docs.ankiweb.net/templates/errors.html#no-cloze-filter-on-cloze-note-type"
_MORE_INFO = "More information"
_HINT = """
<a class=hint href="#"
onclick="this.style.display='none';
document.getElementById('hint{id}').style.display='block';
return false;" draggable=false>
{field}</a>
<div id="hint{id}" class=hint style="display: none">{text}</div>
"""


def _isolated(text: str) -> str:
    """An argument in one of Anki's messages, between the direction isolates Fluent adds."""
    return f"\u2068{text}\u2069"


class _MissingField(Exception):
    """The template names a field the note does not have: Anki shows a message instead."""

    def __init__(self, tag: str, name: str) -> None:
        super().__init__(
            f"Found '{_isolated(tag)}', but there is no field called '{_isolated(name)}'"
        )


@dataclass(frozen=True)
class _Context:
    fields: Mapping[str, str]  # the note's fields and the special fields
    nonempty: frozenset[str]
    ordinal: int  # 0-based card ordinal
    frontside: str | None  # None while rendering the question


def _hint(text: str, field: str) -> str:
    """The ``hint:`` filter: a link that shows the field. Anki's element id is a BLAKE3
    hash of the text and the field's name; this one is a BLAKE2 hash of the same, as unique
    and as stable."""
    if not text.strip(_RUST_SPACE):
        return text
    digest = hashlib.blake2b((text + field).encode(), digest_size=8).hexdigest()
    return _HINT.format(id=digest, field=field, text=text)


def _filter(name: str, text: str, field: str, ctx: _Context) -> str | None:
    """One filter applied to ``text``; None for a filter Anki does not have."""
    question = ctx.frontside is None
    if name == "text":
        return strip_html(text)
    if name == "cloze":
        return reveal_cloze(text, ctx.ordinal + 1, question)
    if name == "cloze-only":
        return _cloze_only(text, ctx.ordinal + 1, question)
    if name == "hint":
        return _hint(text, field)
    if name == "furigana":
        return _furigana(text)
    if name == "kanji":
        return _ruby(text, lambda base, reading: base)
    if name == "kana":
        return _ruby(text, lambda base, reading: reading)
    if name == "type":
        return f"[[type:{field}]]"
    if name == "type-nc":
        return f"[[type:nc:{field}]]"
    if name == "type-cloze":
        return f"[[type:cloze:{field}]]"
    if name.startswith("tts "):
        return f"[anki:tts lang={name[4:]}]{text}[/anki:tts]"
    if name == "":
        return text
    return None


def _apply_filters(text: str, filters: tuple[str, ...], field: str, ctx: _Context) -> str:
    """Anki's apply_filters: ``type:`` written first takes the place of every filter after
    it (``type:cloze:`` and ``type:nc:`` are its two forms). The chain stops at a filter
    Anki does not have: the backend hands the rest to add-ons, and without one the text
    stays as it is."""
    if filters == ("cloze", "type"):
        filters = ("type-cloze",)
    elif filters == ("nc", "type"):
        filters = ("type-nc",)
    elif filters and filters[-1] == "type":
        filters = ("type",)
    for name in filters:
        filtered = _filter(name, text, field, ctx)
        if filtered is None:
            break
        text = filtered
    return text


def _is_cloze_number(key: str) -> bool:
    """``c`` and a number Rust reads as u32 (a ``+`` sign allowed): ``{{#c2}}`` asks
    whether this is card c2, never an unknown field."""
    digits = key[1:].removeprefix("+")
    return key.startswith("c") and digits.isascii() and digits.isdigit() and int(digits) < 2**32


def _render(nodes: Sequence[_Node], ctx: _Context) -> str:
    """The side's HTML; :class:`_MissingField` for a field the note does not have. A hidden
    section is still checked for missing fields, as Anki does."""
    out: list[str] = []
    hidden_below = None  # the depth from which nodes are hidden, if any
    for depth, node in _sections(nodes):
        if hidden_below is not None and depth < hidden_below:
            hidden_below = None
        shown = hidden_below is None
        if isinstance(node, str):
            if shown:
                out.append(node)
        elif isinstance(node, _Replacement):
            key = node.key
            if key == "FrontSide":
                if shown:
                    out.append(ctx.frontside or "")
            elif key or not node.filters:  # {{filter:}} with no field is for add-ons
                text = ctx.fields.get(key)
                if text is None:
                    written = ":".join((*reversed(node.filters), key))
                    raise _MissingField(f"{{{{{written}}}}}", key)
                if shown:
                    out.append(_apply_filters(text, node.filters, key, ctx))
        elif node.key not in ctx.nonempty and not (
            node.key in ctx.fields or _is_cloze_number(node.key)
        ):
            raise _MissingField(f"{{{{{'^' if node.negated else '#'}{node.key}}}}}", node.key)
        elif shown and (node.key in ctx.nonempty) == node.negated:
            hidden_below = depth + 1
    return "".join(out)


def _blank_front(nodes: Sequence[_Node], ctx: _Context, cloze: bool) -> str:
    """Anki's message for a card whose front shows nothing: in a cloze note type, a card
    whose deletion no field has; otherwise a front that shows no non-empty field."""
    if cloze:
        number = ctx.ordinal + 1
        if any(number in cloze_numbers(text) for text in ctx.fields.values()):
            return ""
        message = (
            f"No cloze {_isolated(str(number))} found on card.\n"
            "Please either add a cloze deletion, or use the Empty Cards tool."
        )
        link = _CLOZE_LINK
    else:
        if _renders(nodes, ctx.nonempty):
            return ""
        message, link = "The front of this card is blank.", _BLANK_LINK
    return f"<div>{message}<br><a href='{link}'>{_MORE_INFO}</a></div>"


# -- the card ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CardContext:
    """What the special fields show, and the note type's kind. Anki fills ``{{Deck}}``
    (``Parent::Child``; ``{{Subdeck}}`` is its last part), ``{{Tags}}`` (space-separated),
    ``{{Type}}`` (the note type's name), ``{{Card}}`` (the card template's name),
    ``{{CardFlag}}`` (``flag0``..``flag7``) and ``{{CardID}}``; a note field of the same
    name wins. ``cloze`` marks a cloze note type, whose blank cards Anki words differently."""

    deck: str = ""
    tags: tuple[str, ...] = ()
    note_type: str = ""
    card: str = ""
    flag: int = 0
    card_id: int = 0
    cloze: bool = False

    def special_fields(self) -> dict[str, str]:
        return {
            "Tags": " ".join(self.tags),
            "Type": self.note_type,
            "Subdeck": self.deck.rsplit("::", 1)[-1],
            "Deck": self.deck,
            "CardFlag": f"flag{self.flag}",
            "Card": self.card,
            "CardID": str(self.card_id),
        }


@dataclass(frozen=True)
class RenderedCard:
    """One card's sides as ``card.question()`` / ``card.answer()`` give them, without the
    ``<style>`` block Anki puts first. ``*_av_tags`` are the sounds and TTS tags that
    ``[anki:play:q|a:N]`` refer to, as ``card.question_av_tags()`` lists them. ``problem``
    says what is wrong when the template names a field the note lacks: both sides are then
    Anki's message, which Anki shows with an empty ``<style></style>``."""

    ordinal: int  # 0-based, as Anki's card.ord
    question: str
    answer: str
    question_av_tags: tuple[AVTag, ...] = ()
    answer_av_tags: tuple[AVTag, ...] = ()
    problem: str = ""

    @property
    def question_sounds(self) -> tuple[str, ...]:
        """The file each ``[anki:play:q:N]`` plays ("" for a TTS tag)."""
        return _sound_files(self.question_av_tags)

    @property
    def answer_sounds(self) -> tuple[str, ...]:
        """The file each ``[anki:play:a:N]`` plays ("" for a TTS tag)."""
        return _sound_files(self.answer_av_tags)


def _sound_files(tags: tuple[AVTag, ...]) -> tuple[str, ...]:
    return tuple(tag.filename if isinstance(tag, SoundTag) else "" for tag in tags)


def _problem_card(ordinal: int, side: str, problem: _MissingField) -> RenderedCard:
    shown = (
        f"{side} template has a problem:<br>{html.escape(str(problem))}"
        f"<br><a href='{_ERROR_LINK}'>{_MORE_INFO}</a>"
    )
    return RenderedCard(ordinal, shown, shown, problem=re.sub("[\u2068\u2069]", "", str(problem)))


def render_card(
    front: str,
    back: str,
    fields: Mapping[str, str],
    ordinal: int,
    *,
    as_client: bool = True,
    context: CardContext | None = None,
) -> RenderedCard:
    """Render card ``ordinal`` (0-based) of a note with these field values, as the preview
    page shows it; with ``as_client=False``, as the backend leaves it for a client
    (``[[type:...]]`` and TTS references unfilled, as in ``card.question()``)."""
    context = context or CardContext()
    q_nodes = _parse_side(front, "Front")
    a_nodes = _parse_side(back, "Back")
    values = context.special_fields()
    values.update(fields)
    values.setdefault(f"c{ordinal + 1}", "1")
    nonempty = frozenset(name for name, text in values.items() if not field_is_empty(text))
    ctx = _Context(values, nonempty, ordinal, None)
    try:
        question = _render(q_nodes, ctx)
    except _MissingField as problem:
        return _problem_card(ordinal, "Front", problem)
    blank = _blank_front(q_nodes, ctx, context.cloze)
    q, q_tags = _extract_av_tags(question + blank, "q")
    # {{FrontSide}} is the question after its tags became [anki:play:q:N] references:
    # they keep playing the question's tags; the answer's own are numbered from 0.
    try:
        answer = blank or _render(a_nodes, _Context(values, nonempty, ordinal, q))
    except _MissingField as problem:
        return _problem_card(ordinal, "Back", problem)
    a, a_tags = _extract_av_tags(answer, "a")
    if as_client:
        expected = _type_answer_expected(q, fields, ordinal)
        q, a = _type_answer_question(q, expected), _type_answer_back(a, expected)
        q, a = _speak_buttons(q, q_tags, a_tags), _speak_buttons(a, q_tags, a_tags)
    return RenderedCard(ordinal, q, a, q_tags, a_tags)


# -- what the preview page's client fills in ---------------------------------------------

# The marker the backend leaves (the pattern both Anki desktop and AnkiDroid search for).
_TYPE_ANSWER = re.compile(r"\[\[type:(.+?)\]\]")
# What Anki's comparison reads as one space (rslib typeanswer.rs LINEBREAKS).
_LINE_BREAKS = re.compile(rf"(?:\n|<br[{_RUST_SPACE}]?/?>|</?div>)+", re.IGNORECASE)
# The box on the question. Enter (not one that ends an IME composition) asks for the
# answer as a card asks AnkiDroid's card page, with showAnswer().
_TYPE_ANSWER_BOX = (
    '<center><input type="text" id="typeans" autocomplete="off" onkeydown="'
    "if (event.key === 'Enter' &amp;&amp; !event.isComposing &amp;&amp; "
    "typeof showAnswer === 'function') { event.preventDefault(); showAnswer(); }"
    '"></center>'
)
_PLAY = re.compile(r"\[anki:play:([qa]):([0-9]+)\]")
# A speak button (the play sign clients show for speech too) speaks with the browser's
# voices, as AnkiDroid speaks with the system's.
_SPEAK = (
    "var s=window.speechSynthesis;if(s){var u=new SpeechSynthesisUtterance(this.dataset.text);"
    "u.lang=this.dataset.lang.replace('_','-');u.rate=Number(this.dataset.speed);"
    "s.cancel();s.speak(u)}"
)


class _Expected(NamedTuple):
    """What the reviewer expects for the question's ``[[type:...]]``: the text (None for
    a field the note lacks), and what it shows then."""

    text: str | None
    warning: str


def _type_answer_expected(question: str, fields: Mapping[str, str], ordinal: int) -> _Expected:
    """The reviewer's reading of the first ``[[type:...]]`` (aqt typeAnsQuestionFilter):
    ``cloze:`` narrows the field to this card's deletion, ``nc:`` only changes how a typed
    answer is compared."""
    match = _TYPE_ANSWER.search(question)
    if match is None:
        return _Expected("", "")
    name = match.group(1)
    cloze = name.startswith("cloze:")
    if cloze:
        name = name.split(":")[1]
    if name.startswith("nc:"):
        name = name.split(":")[1]
    text = fields.get(name)
    if cloze:
        text = (_cloze_for_typing(text, ordinal + 1) or None) if text is not None else None
        return _Expected(text, "Please run Tools>Empty Cards")
    return _Expected(text, f"Type answer: unknown field {_isolated(name)}")


def _type_answer_question(text: str, expected: _Expected) -> str:
    """Every ``[[type:...]]`` of the question as Anki desktop's reviewer fills it: the
    box, nothing where the expected text is empty, its warning where there is none."""
    if not _TYPE_ANSWER.search(text):
        return text
    shown = _TYPE_ANSWER_BOX if expected.text else ""
    if expected.text is None:
        shown = expected.warning
    return _TYPE_ANSWER.sub(lambda _: shown, text)


def _type_answer_back(text: str, expected: _Expected) -> str:
    """Every ``[[type:...]]`` of the answer as Anki desktop's reviewer fills it when
    nothing was typed: Anki's comparison of the expected text with an empty answer (rslib
    typeanswer.rs compare_answer), and nothing where the question had no box."""
    if not expected.text:
        return _TYPE_ANSWER.sub("", text)
    no_av = _strip_av_tags(expected.text)
    stripped = strip_html(_LINE_BREAKS.sub(" ", no_av)).strip(_RUST_SPACE)
    shown = "<code id=typeans>" + html.escape(stripped) + "</code>"
    # As the reviewer does, a separator before the box stays before the comparison.
    without_hr = text.replace("<hr id=answer>", "")
    if without_hr == text:
        return _TYPE_ANSWER.sub(lambda _: shown, text)
    if not _TYPE_ANSWER.search(without_hr):
        return text
    return _TYPE_ANSWER.sub(lambda _: "<hr id=answer>" + shown, without_hr)


def _speak_button(tag: TTSTag) -> str:
    label = html.escape(f"Speak ({tag.lang}): {tag.field_text}")
    return (
        f'<button type="button" class="db-preview-play db-preview-tts" '
        f'data-lang="{html.escape(tag.lang)}" data-voices="{html.escape(",".join(tag.voices))}" '
        f'data-speed="{tag.speed:g}" data-text="{html.escape(tag.field_text)}" '
        f'title="{label}" aria-label="{label}" onclick="{_SPEAK}">&#9654;</button>'
    )


def _speak_buttons(
    text: str, question_tags: tuple[AVTag, ...], answer_tags: tuple[AVTag, ...]
) -> str:
    """Each reference to a TTS tag as a button that speaks it (a client's play button);
    references to sounds stay for the page, which holds the media."""
    if "[anki:play:" not in text:
        return text

    def button(m: re.Match[str]) -> str:
        tags = question_tags if m.group(1) == "q" else answer_tags
        index = int(m.group(2))
        tag = tags[index] if index < len(tags) else None
        return _speak_button(tag) if isinstance(tag, TTSTag) else m.group(0)

    return _PLAY.sub(button, text)
