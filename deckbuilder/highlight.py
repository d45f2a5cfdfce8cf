"""Fenced code blocks highlighted by Pygments, and the token colours for the note types.

A block is written with Pygments' class names only; the colours live in the note types'
CSS (:func:`pygments_css`), day and night. In a cloze field, ``{{c1::answer}}`` markers
inside a block keep working: the block is highlighted without them and they are put back
between Pygments' spans, where Anki finds them by plain text search.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = [
    "DAY_STYLE",
    "NIGHT_STYLE",
    "PYGMENTS_BEGIN",
    "PYGMENTS_END",
    "highlighted_code",
    "is_known_language",
    "pygments_classes",
    "pygments_css",
    "with_pygments_css",
]

DAY_STYLE = "default"
NIGHT_STYLE = "github-dark"

_CLOZE_MARK = re.compile(r"\{\{c\d+::|\}\}")
_CLOZE_OPENER = re.compile(r"\{\{c\d+::")


# Finding a lexer by name and building a formatter (its style table) cost far more than
# highlighting a short block, and neither keeps anything from one block to the next.
@lru_cache(maxsize=64)
def _lexer(lang: str) -> Any:
    """Pygments' lexer for a fence's language name, or None for a name it does not know."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=1)
def _html_formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


def is_known_language(lang: str) -> bool:
    """Whether Pygments has a lexer for this fence language name."""
    return _lexer(lang) is not None


def highlighted_code(code: str, lang: str, cloze: bool) -> str | None:
    """``code`` as ``<pre class="highlight"><code>`` with Pygments' class names, or None
    when it is to be shown unhighlighted: the language is unknown, or (``cloze``) its
    deletion markers do not pair up, so Anki must read them as written."""
    lexer = _lexer(lang)
    if lexer is None:
        return None
    inserts: list[tuple[int, str]] = []
    if cloze and _CLOZE_MARK.search(code):
        split = _split_cloze_markers(code)
        if split is None:
            return None
        code, inserts = split
    from pygments import format as pyg_format
    from pygments.token import Token

    tokens = list(lexer.get_tokens(code))
    if inserts:
        tokens = _insert_markers(tokens, inserts, Token.Text)
    body = pyg_format(tokens, _html_formatter())
    return f'<pre class="highlight"><code>{body}</code></pre>'


def _split_cloze_markers(code: str) -> tuple[str, list[tuple[int, str]]] | None:
    """``x = {{c1::42::answer?}}`` -> (``x = 42``, [(4, '{{c1::'), (6, '::answer?}}')]).
    None when the markers do not pair up (then the block is shown unhighlighted)."""
    plain: list[str] = []
    inserts: list[tuple[int, str]] = []
    size = 0
    pos = 0
    while True:
        m = _CLOZE_OPENER.search(code, pos)
        if not m:
            break
        close = code.find("}}", m.end())
        if close < 0:
            return None
        body = code[m.end() : close]
        if _CLOZE_OPENER.search(body):
            return None  # nested deletions in a code block: leave the text alone
        answer, sep, hint = body.partition("::")
        plain.append(code[pos : m.start()])
        size += m.start() - pos
        inserts.append((size, m.group()))
        plain.append(answer)
        size += len(answer)
        inserts.append((size, f"{sep}{hint}}}}}"))
        pos = close + 2
    plain.append(code[pos:])
    return "".join(plain), inserts


def _insert_markers(
    tokens: list[tuple[Any, str]], inserts: list[tuple[int, str]], text_type: Any
) -> list[tuple[Any, str]]:
    """Split Pygments tokens at the given offsets and put plain-text markers there, so each
    marker lands between complete ``<span>`` elements."""
    out: list[tuple[Any, str]] = []
    offset = 0
    pending = list(inserts)
    for ttype, value in tokens:
        while pending and pending[0][0] <= offset + len(value):
            at, marker = pending.pop(0)
            cut = at - offset
            if cut:
                out.append((ttype, value[:cut]))
            out.append((text_type, marker))
            value = value[cut:]
            offset = at
        if value:
            out.append((ttype, value))
            offset += len(value)
    out.extend((text_type, marker) for _, marker in pending)
    return out


def pygments_classes() -> set[str]:
    """Every class name Pygments may put on a token's ``<span>``."""
    from pygments.token import STANDARD_TYPES

    return {name for name in STANDARD_TYPES.values() if name}


# -- note type CSS ---------------------------------------------------------------------------
def pygments_css() -> str:
    """Token colours for highlighted code, day and night, as written into ``base.css``
    between the ``pygments`` markers (``scripts/update-pygments-css.py`` regenerates it;
    a test checks it is current). Night mode restates every class the day style colours,
    so no day colour leaks onto the dark background."""
    from pygments.formatters import HtmlFormatter

    def rules(style: str) -> dict[str, str]:
        fmt = HtmlFormatter(style=style)
        out: dict[str, str] = {}
        styles: dict[str, tuple[str, Any, int]] = fmt.class2style  # type: ignore[attr-defined]
        for cls, (css, _ttype, _level) in styles.items():
            css = "; ".join(
                part.strip() for part in css.split(";") if part.strip() and "background" not in part
            )
            if cls and css:
                out[cls] = css
        return out

    day, night = rules(DAY_STYLE), rules(NIGHT_STYLE)
    reset = "color: inherit; font-weight: inherit; font-style: inherit; border: none"
    night_selector = ".nightMode .highlight .{0}, .night_mode .highlight .{0}"
    lines = [f"/* Pygments '{DAY_STYLE}' (day) and '{NIGHT_STYLE}' (night). */"]
    lines += [f".highlight .{cls} {{ {day[cls]} }}" for cls in sorted(day)]
    lines += [
        f"{night_selector.format(cls)} {{ {night.get(cls, reset)} }}"
        for cls in sorted(day.keys() | night.keys())
    ]
    return "\n".join(lines) + "\n"


PYGMENTS_BEGIN = (
    "/* pygments: begin (generated by scripts/update-pygments-css.py; do not edit) */\n"
)
PYGMENTS_END = "/* pygments: end */\n"


def with_pygments_css(css: str, block: str) -> str:
    """``css`` with the text between the pygments markers replaced by ``block``."""
    head, begin, rest = css.partition(PYGMENTS_BEGIN)
    _, end, tail = rest.partition(PYGMENTS_END)
    if not begin or not end:
        raise ValueError("the pygments markers are missing from the CSS")
    return head + begin + block + end + tail
