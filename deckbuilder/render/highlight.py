"""Fenced code blocks highlighted by Pygments.

A block is written with Pygments' class names only; the colours live in the note types'
CSS, day and night (written by ``scripts/update-pygments-css.py``). In a cloze field, ``{{c1::answer}}`` markers
inside a block keep working: the block is highlighted without them and they are put back
between Pygments' spans, where Anki finds them by plain text search.

Most of Pygments' lexers take time quadratic in the length of some code (a long run of
blank lines, an unclosed string), and a few hang or blow up on a few characters. So a
field highlights at most :data:`HIGHLIGHT_LIMIT` characters of code, the languages of
those few are shown plain, and a lexer that stops moving forward is given up.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import Any

_CLOZE_MARK = re.compile(r"\{\{c\d+::|\}\}")
_CLOZE_OPENER = re.compile(r"\{\{c\d+::")

# Characters of code one field highlights at most, so that even code made to be slow
# highlights in well under a second; longer code is shown plain.
HIGHLIGHT_LIMIT = 2048
# What each block counts at least: finding and loading a lexer costs about as much as
# highlighting this much code.
_BLOCK_COST = 128
# Lexers that hang, or take seconds for a few hundred characters of some code, whatever
# the limit above. Their languages are shown plain.
_UNSAFE_LEXERS = frozenset(
    {
        "AutohotkeyLexer",
        "EasytrieveLexer",
        "LilyPondLexer",
        "SystemdLexer",
        "TNTLexer",
        "XppLexer",
    }
)
# Empty tokens in a row after which a lexer is taken to be stuck (matching nothing, over
# and over, at one place); lexers that work never come near it.
_STUCK = 1000


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


def language_problem(lang: str) -> str | None:
    """Why code in this fence language is shown unhighlighted, or None if it is not."""
    lexer = _lexer(lang)
    if lexer is None:
        return f"code block language '{lang}' is not known to Pygments; not highlighted"
    if type(lexer).__name__ in _UNSAFE_LEXERS:
        return (
            f"code block language '{lang}' is not highlighted: Pygments' lexer for it "
            "can take minutes or hang on some code"
        )
    return None


def highlighted_code(code: str, lang: str, cloze: bool) -> str | None:
    """``code`` as ``<pre class="highlight"><code>`` with Pygments' class names, or None
    when it is to be shown unhighlighted: the language is unknown or unsafe
    (:func:`language_problem`), the lexer gets stuck, or (``cloze``) its deletion markers
    do not pair up, so Anki must read them as written."""
    if language_problem(lang) is not None:
        return None
    lexer = _lexer(lang)
    inserts: list[tuple[int, str]] = []
    if cloze and _CLOZE_MARK.search(code):
        split = _split_cloze_markers(code)
        if split is None:
            return None
        code, inserts = split
    from pygments import format as pyg_format
    from pygments.token import Token

    tokens = _tokens(lexer, code)
    if tokens is None:
        return None
    if inserts:
        tokens = _insert_markers(tokens, inserts, Token.Text)
    body = pyg_format(tokens, _html_formatter())
    return f'<pre class="highlight"><code>{body}</code></pre>'


def fenced_code(code: str, lang: str, cloze: bool, env: dict[str, Any]) -> str:
    """A fenced block as HTML: highlighted when its language is known and safe and the
    field (its markdown-it ``env``) has highlighted no more than :data:`HIGHLIGHT_LIMIT`
    characters of code with it; why not is added to ``env["warnings"]``."""
    if lang:
        problem = language_problem(lang)
        cost = max(len(code), _BLOCK_COST)
        left = env.setdefault("db_highlight_left", HIGHLIGHT_LIMIT)
        if problem is None and cost > left:
            problem = (
                f"code block not highlighted: a field highlights at most "
                f"{HIGHLIGHT_LIMIT:,} characters of code"
            )
        if problem is not None:
            env["warnings"].append(problem)
        else:
            html = highlighted_code(code, lang, cloze)
            if html is not None:
                env["db_highlight_left"] = left - cost
                return html
    return f"<pre><code>{escape(code, quote=False)}</code></pre>"


def _tokens(lexer: Any, code: str) -> list[tuple[Any, str]] | None:
    """The lexer's tokens for ``code``; None if it gets stuck in one place."""
    tokens: list[tuple[Any, str]] = []
    empty_in_a_row = 0
    for ttype, value in lexer.get_tokens(code):
        empty_in_a_row = 0 if value else empty_in_a_row + 1
        if empty_in_a_row > _STUCK:
            return None
        tokens.append((ttype, value))
    return tokens


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
    offset = 0  # where the token starts in the code
    next_insert = 0  # inserts before this one are placed
    for ttype, value in tokens:
        token_end = offset + len(value)
        written = 0  # the part of value before this is written out
        while next_insert < len(inserts) and inserts[next_insert][0] <= token_end:
            at, marker = inserts[next_insert]
            next_insert += 1
            cut = at - offset
            if cut > written:
                out.append((ttype, value[written:cut]))
                written = cut
            out.append((text_type, marker))
        if written < len(value):
            out.append((ttype, value[written:]))
        offset = token_end
    out.extend((text_type, marker) for _, marker in inserts[next_insert:])
    return out


def pygments_classes() -> set[str]:
    """Every class name Pygments may put on a token's ``<span>``."""
    from pygments.token import STANDARD_TYPES

    return {name for name in STANDARD_TYPES.values() if name}
