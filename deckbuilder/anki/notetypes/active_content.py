"""What a note type's templates and CSS run or fetch when Anki shows a card.

A note type from a shared deck may carry scripts, event handlers (``onerror=``),
``javascript:`` addresses, frames, or pictures, style sheets and fonts from other sites.
Built into a package, each runs in the learner's Anki (desktop, AnkiDroid, iOS) or is
fetched on every review, and nobody reading the card file sees it. :func:`active_parts`
finds those parts; :func:`without_active_parts` removes exactly them and keeps every
other character, so that the rest of the note type stays as its author wrote it.

A template is read as Chromium's tokenizer reads the page Anki makes of it (WHATWG HTML,
"Tokenization"): tags and their attributes, quoted or not, comments, the raw text of
``<script>``, ``<style>`` and their kin; names and addresses in any letter case, with
character references read (``java&#x73;cript:``) and the tabs and line breaks an address
may hold. Anki fills in each ``{{...}}`` tag before the page is read, so a template is read
twice: with each tag as text, and with each tag as nothing (an empty field); a part found
either way is removed. Inside ``<svg>`` or ``<math>`` the content of a ``<style>``,
``<textarea>`` and their kin is markup, and a CDATA section is text: such an element or
section that holds a tag goes whole, so that what is left reads the same anywhere. The
note type's CSS is read as the ``<style>`` element Anki puts it in (after a ``</style>``
in it comes markup). An address with any scheme (``https:``, or one Chromium does not
know) or a host (``//host``) is fetched from elsewhere, and so is an ``@import``'s written
without quotes or ``url()``, which Chromium fetches as written. Removing a part can join
the text around it into a new one (``<<script></script>script>``): what is left is read
again, a few times at most, and a text that is still not clean then is said to be so.
Every reader here takes time linear in the text; tests/anki/notetypes shows the cleaned
texts to Chromium, which finds nothing in them that runs or fetches.

nh3, already a dependency for fields, does not fit: it parses the whole document and
writes it again (quotes, character references, attributes it does not know and Anki's
``{{...}}`` inside attributes all change), and it does not say what it removed.
"""

from __future__ import annotations

import html
import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.templates import token_spans


class Part(Enum):
    """A kind of part that runs or fetches something (the value is its JSON name)."""

    SCRIPT = "script"  # a <script> element
    EVENT_HANDLER = "event_handler"  # onerror=, onclick=, ...
    SCRIPT_ADDRESS = "script_address"  # javascript: or vbscript: in an address
    DATA_ADDRESS = "data_address"  # data: other than a picture in an address
    REMOTE_ADDRESS = "remote_address"  # a picture, sound or style sheet from another site
    EMBEDDED = "embedded"  # <iframe>, <object>, <embed> and their kin
    REFRESH = "refresh"  # <meta http-equiv="refresh">
    BASE = "base"  # <base>: every relative address points elsewhere
    CSS_IMPORT = "css_import"  # @import of a remote or javascript: style sheet
    CSS_ADDRESS = "css_address"  # url() of a remote or javascript: address in CSS
    HIDDEN_MARKUP = "hidden_markup"  # a <style>, <textarea>, CDATA... holding a tag


_NAMES = {
    Part.SCRIPT: ("script", "scripts"),
    Part.EVENT_HANDLER: ("event handler", "event handlers"),
    Part.SCRIPT_ADDRESS: ("javascript: address", "javascript: addresses"),
    Part.DATA_ADDRESS: ("data: address", "data: addresses"),
    Part.REMOTE_ADDRESS: ("remote resource", "remote resources"),
    Part.EMBEDDED: ("frame or embedded object", "frames or embedded objects"),
    Part.REFRESH: ("page refresh", "page refreshes"),
    Part.BASE: ("base address", "base addresses"),
    Part.CSS_IMPORT: ("remote CSS @import", "remote CSS @imports"),
    Part.CSS_ADDRESS: ("remote url() in CSS", "remote url()s in CSS"),
    Part.HIDDEN_MARKUP: ("element hiding markup", "elements hiding markup"),
}
_EXCERPT_CHARS = 60


@dataclass(frozen=True)
class Found:
    """One part found: its kind, its text as written (white space folded, cut to 60
    characters) and, in a note type, where it is ("the front of card 1", "the CSS")."""

    part: Part
    excerpt: str
    where: str = ""


@dataclass(frozen=True)
class Cleaned:
    text: str  # the text without the parts found
    found: tuple[Found, ...]
    clean: bool  # nothing is left to find (False: removing parts joined others anew)


@dataclass(frozen=True)
class CleanedNoteType:
    spec: NoteTypeSpec  # with its templates and CSS cleaned
    found: tuple[Found, ...]
    clean: bool


def counted(found: Iterable[Found]) -> str:
    """'2 scripts, 1 event handler': how many parts of each kind, in the kinds' order."""
    counts = dict.fromkeys(Part, 0)
    for item in found:
        counts[item.part] += 1
    return ", ".join(f"{n} {_NAMES[part][0 if n == 1 else 1]}" for part, n in counts.items() if n)


def active_parts(text: str, *, css: bool = False) -> tuple[Found, ...]:
    """The parts of a template (or, ``css``, of a note type's CSS) that run or fetch
    something, in the order of the text."""
    return tuple(_found(text, hit) for hit in _hits(text, css=css))


# Removing parts a third time finds more only in text built to hide them.
MAX_PASSES = 3


def without_active_parts(text: str, *, css: bool = False) -> Cleaned:
    """``text`` without the parts :func:`active_parts` finds, every other character kept;
    what removing them joins anew is removed too, up to :data:`MAX_PASSES` times."""
    found: list[Found] = []
    current = text
    for _ in range(MAX_PASSES):
        hits = _hits(current, css=css)
        if not hits:
            return Cleaned(current, tuple(found), clean=True)
        found += [_found(current, hit) for hit in hits]
        current = _removed(current, hits)
    return Cleaned(current, tuple(found), clean=not _hits(current, css=css))


def _sides(spec: NoteTypeSpec) -> list[tuple[str, str, bool]]:
    """Each text of a note type to read: (where, text, whether it is CSS)."""
    sides = [
        (f"the {side} of card {number}", text, False)
        for number, (_, front, back) in enumerate(spec.templates, start=1)
        for side, text in (("front", front), ("back", back))
    ]
    return [*sides, ("the CSS", spec.css, True)]


def note_type_parts(spec: NoteTypeSpec) -> tuple[Found, ...]:
    """What a note type's templates and CSS run or fetch, each with where it is."""
    return tuple(
        replace(item, where=where)
        for where, text, css in _sides(spec)
        for item in active_parts(text, css=css)
    )


def without_note_type_parts(spec: NoteTypeSpec) -> CleanedNoteType:
    """``spec`` with its templates and CSS cleaned by :func:`without_active_parts`."""
    found: list[Found] = []
    texts: list[str] = []
    clean = True
    for where, text, css in _sides(spec):
        cleaned = without_active_parts(text, css=css)
        found += [replace(item, where=where) for item in cleaned.found]
        texts.append(cleaned.text)
        clean = clean and cleaned.clean
    *sides, css_text = texts
    templates = [
        (name, sides[2 * i], sides[2 * i + 1]) for i, (name, _, _) in enumerate(spec.templates)
    ]
    (_, front, back), *more = templates
    cleaned_spec = replace(spec, front=front, back=back, css=css_text, more_templates=tuple(more))
    return CleanedNoteType(cleaned_spec, tuple(found), clean)


# -- Where the parts are ------------------------------------------------------------------

_Hit = tuple[Part, int, int]  # a part and the span of text it takes


def _found(text: str, hit: _Hit) -> Found:
    part, start, end = hit
    folded = " ".join(text[start : min(end, start + 4 * _EXCERPT_CHARS)].split())
    if len(folded) > _EXCERPT_CHARS or end > start + 4 * _EXCERPT_CHARS:
        folded = folded[: _EXCERPT_CHARS - 1] + "…"
    return Found(part, folded)


def _hits(text: str, *, css: bool) -> list[_Hit]:
    """The parts of ``text``, in order, none inside another."""
    if css:
        hits: list[_Hit] = []
        _scan_html(_STYLE + text, hits)
        shift = len(_STYLE)
        found = [(part, max(start - shift, 0), end - shift) for part, start, end in hits]
    else:
        found = _template_hits(text)
    out: list[_Hit] = []
    reach = 0
    for part, start, end in sorted(set(found), key=lambda hit: (hit[1], -hit[2])):
        if end > start and (not out or end > reach):
            out.append((part, start, end))
            reach = max(reach, end)
    return out


_STYLE = "<style>"  # what Anki puts a note type's CSS in


def _template_hits(text: str) -> list[_Hit]:
    """The parts of a template read with its ``{{...}}`` tags as text, and as nothing."""
    tags = [(start, end) for kind, start, end in token_spans(text) if kind == "tag"]
    as_text: list[_Hit] = []
    if not tags:
        _scan_html(text, as_text)
        return as_text
    # Each tag as text: a run of one letter as long as the tag, so positions stay.
    pieces: list[str] = []
    kept: list[tuple[int, int]] = []  # the spans between tags
    pos = 0
    for start, end in tags:
        pieces += [text[pos:start], "x" * (end - start)]
        kept.append((pos, start))
        pos = end
    pieces.append(text[pos:])
    kept.append((pos, len(text)))
    _scan_html("".join(pieces), as_text)
    as_nothing: list[_Hit] = []
    _scan_html("".join(text[start:end] for start, end in kept), as_nothing)
    origin: list[int] = []  # the position in ``text`` of each character read as nothing
    for start, end in kept:
        origin.extend(range(start, end))
    origin.append(len(text))
    mapped = [
        (part, origin[start], origin[end - 1] + 1) for part, start, end in as_nothing if end > start
    ]
    return as_text + mapped


def _removed(text: str, hits: Sequence[_Hit]) -> str:
    out: list[str] = []
    pos = 0
    for _, start, end in hits:
        if start > pos:
            out.append(text[pos:start])
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


# -- Reading HTML as the browser does (WHATWG HTML, 13.2.5 "Tokenization") ---------------

_SPACES = re.compile(r"[\t\n\f\r ]*")
_SPACES_SLASHES = re.compile(r"[\t\n\f\r /]*")
_TAG_NAME = re.compile(r"[^\t\n\f\r />]*")
_ATTRIBUTE_NAME = re.compile(r"[^\t\n\f\r />=]*")  # after its first character, any
_UNQUOTED = re.compile(r"[^\t\n\f\r >]*")
_COMMENT_END = re.compile(r"--!?>")
_MARKUP = re.compile(r"</?[A-Za-z]")  # a tag (comments and the like hide nothing)
_CDATA = "<![CDATA["
_LETTERS = frozenset(string.ascii_letters)
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # as browsers: ASCII
# Elements whose content is text up to their end tag (script data, RAWTEXT, RCDATA).
_RAW_TEXT = ("script", "style", "xmp", "iframe", "noembed", "noframes", "noscript")
_RCDATA = ("title", "textarea")
_RAW_END = {
    name: re.compile(rf"</{name}(?=[\t\n\f\r />])", re.I | re.A) for name in _RAW_TEXT + _RCDATA
}
# Elements that load another document or a plug-in (an <iframe>'s content goes with it).
_EMBEDDING = frozenset({"iframe", "frame", "object", "embed", "applet", "portal", "fencedframe"})
# Attributes whose value is an address (HTML's URL attributes, SVG's and animations').
_ADDRESS_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "srcset", "poster", "background", "data"}
    | {"codebase", "cite", "longdesc", "lowsrc", "dynsrc", "ping", "manifest", "icon"}
    | {"archive", "classid", "profile", "usemap", "to", "from", "values", "by"}
)
# ... of which these are fetched as the card is shown (a link's is only followed).
_FETCHED = frozenset(
    {"src", "srcset", "poster", "background", "data", "lowsrc", "dynsrc", "codebase"}
    | {"archive", "classid", "manifest"}
)
_FETCHED_HREF = frozenset({"link", "image", "use", "feimage"})
_LISTS = {"srcset": r"[\t\n\f\r ,]+", "ping": r"[\t\n\f\r ]+", "archive": r"[\t\n\f\r ,]+"}
_LISTS |= dict.fromkeys(("values", "to", "from", "by"), ";")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_C0_AND_SPACE = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")


def _skip(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where a run of ``pattern`` (which matches the empty text too) from ``pos`` ends."""
    match = pattern.match(text, pos)
    assert match is not None
    return match.end()


@dataclass(frozen=True)
class _Attribute:
    name: str  # in ASCII lowercase
    start: int
    end: int
    value: str | None  # as written (None: no value)
    value_start: int


@dataclass(frozen=True)
class _Tag:
    name: str  # in ASCII lowercase
    start: int
    end: int  # after its '>' (or the end of the text: a tag never closed)
    attributes: tuple[_Attribute, ...]


def _tag(text: str, start: int, name_at: int) -> _Tag:
    """The start or end tag at ``start``, its name at ``name_at``."""
    size = len(text)
    pos = _skip(_TAG_NAME, text, name_at)
    name = text[name_at:pos].translate(_LOWER)
    attributes: list[_Attribute] = []
    while True:
        pos = _skip(_SPACES_SLASHES, text, pos)
        if pos >= size or text[pos] == ">":
            return _Tag(name, start, min(pos + 1, size), tuple(attributes))
        begin = pos
        pos = _skip(_ATTRIBUTE_NAME, text, pos + 1)
        attribute = text[begin:pos].translate(_LOWER)
        value: str | None = None
        value_start = pos
        after = _skip(_SPACES, text, pos)
        if after < size and text[after] == "=":
            pos = _skip(_SPACES, text, after + 1)
            quote = text[pos : pos + 1]
            if quote in ('"', "'"):
                close = text.find(quote, pos + 1)
                value_start, value_end = pos + 1, size if close < 0 else close
                value = text[value_start:value_end]
                pos = size if close < 0 else close + 1
            else:
                value_start = pos
                pos = _skip(_UNQUOTED, text, pos)
                value = text[value_start:pos]
        attributes.append(_Attribute(attribute, begin, pos, value, value_start))


def _scan_html(text: str, hits: list[_Hit]) -> None:
    """Add the parts of HTML ``text`` to ``hits``."""
    size = len(text)
    pos = 0
    while (lt := text.find("<", pos)) >= 0:
        after = text[lt + 1 : lt + 2]
        if text.startswith("<!--", lt):
            pos = _comment_end(text, lt)
        elif text.startswith(_CDATA, lt):
            pos = _cdata(text, lt, hits)
        elif after in ("!", "?"):  # a bogus comment (or a doctype)
            pos = _after_gt(text, lt + 2)
        elif after == "/":
            first = text[lt + 2 : lt + 3]
            if first in _LETTERS:
                pos = _tag(text, lt, lt + 2).end
            elif first == ">":
                pos = lt + 3
            else:
                pos = _after_gt(text, lt + 2)
        elif after in _LETTERS:
            pos = _element(text, _tag(text, lt, lt + 1), hits)
        else:
            pos = lt + 1
        if pos >= size:
            break


def _comment_end(text: str, start: int) -> int:
    if text.startswith(">", start + 4):  # <!--> and <!---> end where they start
        return start + 5
    if text.startswith("->", start + 4):
        return start + 6
    end = _COMMENT_END.search(text, start + 4)
    return len(text) if end is None else end.end()


def _cdata(text: str, start: int, hits: list[_Hit]) -> int:
    """A CDATA section is text up to ``]]>`` inside <svg> or <math>, and elsewhere a
    comment up to the first ``>``: one holding a tag goes whole; else read on as HTML."""
    close = text.find("]]>", start)
    end = len(text) if close < 0 else close + 3
    if _MARKUP.search(text, start + len(_CDATA), end):
        hits.append((Part.HIDDEN_MARKUP, start, end))
        return end
    return _after_gt(text, start + 2)


def _after_gt(text: str, start: int) -> int:
    gt = text.find(">", start)
    return len(text) if gt < 0 else gt + 1


def _raw_end(text: str, tag: _Tag) -> tuple[int, int]:
    """Where the content of raw-text element ``tag`` ends, and where its end tag ends."""
    end = _RAW_END[tag.name].search(text, tag.end)
    if end is None:
        return len(text), len(text)
    return end.start(), _tag(text, end.start(), end.start() + 2).end


def _element(text: str, tag: _Tag, hits: list[_Hit]) -> int:
    """Add the parts of the element that starts with ``tag``; where to read on."""
    name = tag.name
    if name == "script" or name == "iframe":
        _, end = _raw_end(text, tag)
        hits.append((Part.SCRIPT if name == "script" else Part.EMBEDDED, tag.start, end))
        return end
    whole = {"base": Part.BASE}.get(name) or (Part.EMBEDDED if name in _EMBEDDING else None)
    if name == "meta" and any(
        a.name == "http-equiv" and _keyword(a.value or "") == "refresh" for a in tag.attributes
    ):
        whole = Part.REFRESH
    if whole is not None:
        hits.append((whole, tag.start, tag.end))
        return tag.end
    for attribute in tag.attributes:
        _attribute_hits(name, attribute, hits)
    if name not in _RAW_END:
        return tag.end
    content_end, end = _raw_end(text, tag)
    content = text[tag.end : content_end]
    # Inside <svg> or <math> the content is markup, with character references read: an
    # element whose content reads otherwise there goes whole.
    if _MARKUP.search(content):
        hits.append((Part.HIDDEN_MARKUP, tag.start, end))
    elif name == "style":
        found: list[_Hit] = []
        _scan_css(content, tag.end, found)
        hits += found
        if "&" in content and not found:
            _scan_css(html.unescape(content), 0, found)
            hits += [(part, tag.start, end) for part, _, _ in found]
    return end


def _keyword(value: str) -> str:
    """A keyword attribute's value as the browser compares it: character references
    read, in ASCII lowercase, without spaces around it."""
    decoded = html.unescape(value) if "&" in value else value
    return decoded.strip("\t\n\f\r ").translate(_LOWER)


def _attribute_hits(element: str, attribute: _Attribute, hits: list[_Hit]) -> None:
    """Add the attribute to ``hits`` when it is a part (or the parts of its CSS)."""
    name, value = attribute.name, attribute.value
    if name.startswith("on") and len(name) > 2:
        hits.append((Part.EVENT_HANDLER, attribute.start, attribute.end))
        return
    if value is None:
        return
    if name == "style":
        if "&" not in value:  # the CSS as written: only its parts go
            _scan_css(value, attribute.value_start, hits)
            return
        inner: list[_Hit] = []
        _scan_css(html.unescape(value), 0, inner)
        hits += [(part, attribute.start, attribute.end) for part, _, _ in inner]
        return
    local = name.rpartition(":")[2]  # xlink:href
    if local not in _ADDRESS_ATTRIBUTES:
        return
    fetched = local in _FETCHED or (local == "href" and element in _FETCHED_HREF)
    decoded = html.unescape(value) if "&" in value else value
    separator = _LISTS.get(local)
    addresses = [decoded, *re.split(separator, decoded)] if separator else [decoded]
    for address in addresses:
        part = _address_part(address, fetched=fetched)
        if part is not None:
            hits.append((part, attribute.start, attribute.end))
            return


def _address_part(address: str, *, fetched: bool, css: bool = False) -> Part | None:
    """What an address runs or fetches, as a URL parser reads it (spaces and control
    characters around it, tabs and line breaks in it ignored; any letter case). Fetched,
    an address with a scheme (``https:``, or any other) or a host (``//host``) is not the
    collection's media."""
    url = _TAB_OR_NEWLINE.sub("", address.strip(_C0_AND_SPACE))
    scheme_match = _SCHEME.match(url)
    scheme = scheme_match.group(1).translate(_LOWER) if scheme_match else ""
    if scheme in ("javascript", "vbscript"):
        return Part.SCRIPT_ADDRESS
    if scheme == "data":
        media_type = url[len("data:") :].lstrip(_C0_AND_SPACE).translate(_LOWER)
        return None if css or media_type.startswith("image/") else Part.DATA_ADDRESS
    elsewhere = bool(scheme) or url[:2] in ("//", "\\\\", "/\\", "\\/")
    return Part.REMOTE_ADDRESS if fetched and elsewhere else None


# -- Reading CSS (CSS Syntax Level 3, "Tokenization") --------------------------------------

_ESCAPE = r"\\(?:[0-9A-Fa-f]{1,6}(?:\r\n|[ \t\n\r\f])?|[^\n\r\f0-9A-Fa-f])"
_NAME_CHAR = rf"(?:[A-Za-z0-9_\-]|[^\x00-\x7f]|{_ESCAPE})"
_IDENT = rf"(?:--|-?(?:[A-Za-z_]|[^\x00-\x7f]|{_ESCAPE})){_NAME_CHAR}*"
_CSS_TOKEN = re.compile(
    rf"(?P<comment>/\*)|(?P<string>[\"'])|@(?P<at>{_IDENT})|(?P<ident>{_IDENT})(?P<call>\()?"
    r"|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<end>;)"
)
_STRINGS = {
    '"': re.compile(r'"((?:[^"\\\n\r\f]|\\(?:\r\n|.))*)"?', re.S),
    "'": re.compile(r"'((?:[^'\\\n\r\f]|\\(?:\r\n|.))*)'?", re.S),
}
_URL_REST = re.compile(r"((?:[^)\\]|\\.)*)\)?", re.S)
_CSS_SPACES = re.compile(r"[ \t\n\r\f]*")
_CSS_ESCAPE = re.compile(r"\\(?:([0-9A-Fa-f]{1,6})(?:\r\n|[ \t\n\r\f])?|(\r\n|[\n\r\f])|(.))", re.S)
_URL_FUNCTIONS = frozenset({"url", "src"})
_IMAGE_SETS = frozenset({"image-set", "-webkit-image-set"})


def _css_unescaped(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            code = int(match.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
        return "" if match.group(2) is not None else match.group(3)

    return _CSS_ESCAPE.sub(one, text) if "\\" in text else text


@dataclass
class _Block:
    """An open function or bracket: its name ('' for a bracket), where it starts, and the
    part it is when it holds one (a url("...") to another site)."""

    name: str
    start: int
    part: Part | None = None


@dataclass
class _Import:
    start: int
    prelude: int  # where its address starts
    depth: int  # blocks open where it starts
    part: Part | None = None
    read: bool = False  # its address has been read


def _scan_css(css: str, offset: int, hits: list[_Hit]) -> None:
    """Add the parts of CSS text ``css`` to ``hits``, at positions ``offset`` on."""
    blocks: list[_Block] = []
    importing: _Import | None = None
    found: list[_Hit] = []
    pos = 0
    size = len(css)

    def address(value: str, start: int, end: int, block: _Block | None) -> None:
        nonlocal importing
        part = _address_part(value, fetched=True, css=True)
        if importing is not None and not importing.read:
            importing.read = True
            importing.part = Part.CSS_IMPORT if part is not None else None
        elif importing is not None or part is None:
            return
        elif block is None:
            found.append((Part.CSS_ADDRESS, start, end))
        elif block.name in _URL_FUNCTIONS:
            block.part = Part.CSS_ADDRESS
        elif block.name in _IMAGE_SETS:
            found.append((Part.CSS_ADDRESS, start, end))

    def imported(end: int) -> None:
        nonlocal importing
        if importing is not None:
            # Chromium takes an address neither quoted nor in url() as it is written.
            written = css[importing.prelude : end].strip(" \t\n\r\f;")
            if _address_part(_css_unescaped(written), fetched=True, css=True) is not None:
                importing.part = Part.CSS_IMPORT
        if importing is not None and importing.part is not None:
            found.append((importing.part, importing.start, end))
        importing = None

    while pos < size and (match := _CSS_TOKEN.search(css, pos)) is not None:
        start, pos = match.start(), match.end()
        if match.group("comment") is not None:
            close = css.find("*/", pos)
            pos = size if close < 0 else close + 2
        elif match.group("string") is not None:
            string_match = _STRINGS[match.group("string")].match(css, start)
            assert string_match is not None
            pos = string_match.end()
            value = _css_unescaped(string_match.group(1))
            address(value, start, pos, blocks[-1] if blocks else None)
        elif match.group("at") is not None:
            if _css_unescaped(match.group("at")).translate(_LOWER) == "import":
                imported(start)
                importing = _Import(start, pos, len(blocks))
        elif match.group("ident") is not None:
            if match.group("call") is None:
                continue
            name = _css_unescaped(match.group("ident")).translate(_LOWER)
            after = _skip(_CSS_SPACES, css, pos)
            if name == "url" and css[after : after + 1] not in ('"', "'"):
                rest = _URL_REST.match(css, after)
                assert rest is not None
                pos = rest.end()
                address(_css_unescaped(rest.group(1)).strip(" \t\n\r\f"), start, pos, None)
            else:
                blocks.append(_Block(name, start))
        elif match.group("open") is not None:
            if importing is not None and match.group("open") == "{":
                imported(start)
            blocks.append(_Block("", start))
        elif match.group("close") is not None:
            if importing is not None and match.group("close") == "}":
                imported(start)
            if blocks:
                block = blocks.pop()
                if block.part is not None:
                    found.append((block.part, block.start, pos))
        elif importing is not None and len(blocks) <= importing.depth:  # ';'
            imported(pos)
    imported(size)
    found += [(block.part, block.start, size) for block in blocks if block.part is not None]
    hits += [(part, start + offset, end + offset) for part, start, end in found]
