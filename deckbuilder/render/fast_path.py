"""The fast path of :func:`deckbuilder.render.markdown.render_markdown`: one line of everyday card
text, rendered from one regex split instead of markdown-it and nh3.

Most fields of a deck are a line of words with a little emphasis, code or a link, and the
full Markdown pipeline is most of the time a big deck takes to render. Anything outside
the small, unambiguous subset below (or in doubt) gives None and takes the full path. tests/test_markdown_fast_path.py checks that both paths give the same HTML on the
subset and around its edges.

The subset:

* words and harmless punctuation (:data:`_GAP`: letters, digits,
  `` ,.;:?!'"()/%+=@#{}-``), which render as typed (not ``$``, which may open math); ``_`` between two letters or digits
  is a literal underscore;
* a lone ``~``, ``>``, and ``<`` or ``&`` before a space (escaped);
* code spans of one to three backticks (any printable ASCII or alphanumeric content,
  without ``::``, ``{{`` or ``}}`` so that cloze handling cannot change them);
* ``*x*``, ``_x_``, ``**x**``, ``__x__`` whose opening run follows a non-alphanumeric
  character (or the start) and precedes an alphanumeric one, and whose closing run
  follows an alphanumeric and precedes a non-alphanumeric (or the end); no nesting;
* links ``[words](http(s)://host/path)`` with plain words and a plain lower-case host;
* backslash escapes of ASCII punctuation other than ``(`` and ``[`` (math) and ``{``,
  ``}`` and ``:`` (a cloze field writes those as character references), and a backslash
  before a letter, digit or space (kept).

The line must begin with a letter or digit that does not start an ordered list item
(``1. x``, ``2) x``) or with ``*``, ``_``, ``[`` or a code span, so no block rule applies.
Trailing spaces are dropped, as a paragraph drops them. Such text uses no media, warns
about nothing and renders the same in a cloze field.
"""

from __future__ import annotations

import re
from html import escape

# _TOKEN splits the line into text (between tokens) and tokens. Every alternative starts
# with a literal character, so the regex engine skips text between tokens quickly; no
# token starts or ends with a letter or digit, so a '_' in the text is between two letters
# or digits exactly when it is so in the text around it (see _BAD_UNDERSCORE).
_CODE = r"[\w -_a-~]+"  # printable ASCII less '`', and letters and digits
_TOKEN = re.compile(
    "("
    + "|".join(
        [
            rf"`{_CODE}`(?!`)",
            rf"``{_CODE}``(?!`)",
            rf"```{_CODE}```(?!`)",
            # An opening run: after a non-alphanumeric (or the start), before an alphanumeric.
            r"\*(?<![^\W_]\*)\*?(?!\*)(?=[^\W_])",
            r"_(?<![^\W_]_)_?(?!_)(?=[^\W_])",
            # A closing run: after an alphanumeric, before a non-alphanumeric (or the end).
            r"\*(?<=[^\W_]\*)\*?(?!\*)(?![^\W_])",
            r"_(?<=[^\W_]_)_?(?!_)(?![^\W_])",
            r"\[(?<!!\[)(?:[^\W_]|[ ,.;?!'\"/%+=@#-])+\]"
            r"\(https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*(?:/[A-Za-z0-9/._~=?#-]*)?\)",
            r"\\[!-')-/;-@\\-`|~]",  # an escape: ASCII punctuation less ( [ { } :
            r"\\(?=[^\W_]| )",
            r">",
            r"~(?!~)",  # '~~' would strike through
            r"<(?= )",
            r"&(?= )",
        ]
    )
    + ")"
)
_GAP = re.compile(r"[\w ,.;:?!'\"()/%+=@#{}-]*")
_BAD_UNDERSCORE = re.compile(r"_(?<![^\W_]_)|_(?![^\W_])")
_LIST_START = re.compile(r"\d{1,9}[.)]")
_SIMPLE_FIRST = frozenset("*_`[")
_ASCII_PUNCT = "!\"#$%&')*+,-./;<=>?@\\]^_`|~"  # less ( [ { } :, see the module doc
# Tokens that always render the same.
_FIXED = {">": "&gt;", "~": "~", "<": "&lt;", "&": "&amp;", "\\": "\\"}
_FIXED.update({"\\" + c: escape(c, quote=False) for c in _ASCII_PUNCT})
_OPEN = {"*": "<em>", "_": "<em>", "**": "<strong>", "__": "<strong>"}
_CLOSE = {"*": "</em>", "_": "</em>", "**": "</strong>", "__": "</strong>"}


def fast_html(text: str) -> str | None:
    """The HTML :func:`deckbuilder.render.markdown.render_markdown` gives ``text`` when it is one
    line in the subset above; None otherwise."""
    s = text.rstrip(" ")
    first = s[:1]
    if not (first.isalnum() or first in _SIMPLE_FIRST):
        return None
    if (first.isdecimal() and _LIST_START.match(s)) or (first == "`" and s.startswith("```")):
        return None
    parts = _TOKEN.split(s)  # text, token, text, ..., text
    gaps = " ".join(parts[::2]) if len(parts) > 1 else s
    if _GAP.fullmatch(gaps) is None or ("_" in gaps and _BAD_UNDERSCORE.search(gaps)):
        return None
    open_run = ""  # the emphasis run waiting for its closing run
    for j in range(1, len(parts), 2):
        token = parts[j]
        c = token[0]
        if c == "*" or c == "_":  # an emphasis run
            if parts[j + 1][:1].isalnum():  # an opening run
                if open_run:
                    return None
                open_run = token
                parts[j] = _OPEN[token]
            elif token == open_run:
                parts[j] = _CLOSE[token]
                open_run = ""
            else:
                return None
        elif c == "`":
            if "::" in token or "{{" in token or "}}" in token:
                return None
            code = token.strip("`")
            if code[0] == " " == code[-1] and code.strip(" "):
                code = code[1:-1]
            code = escape(code, quote=False).replace("[sound:", "[sound&#58;")
            parts[j] = f"<code>{code}</code>"
        elif c == "[":
            label, _, url = token[1:-1].partition("](")
            parts[j] = f'<a href="{url}" rel="noopener noreferrer">{label}</a>'
        else:  # an escape, or a character that always renders the same
            parts[j] = _FIXED[token]
    if open_run:
        return None
    return "".join(parts)
