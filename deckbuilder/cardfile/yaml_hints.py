"""What the card-file reader says about text YAML refuses or cuts short: which line, why,
and what to write instead (quotes around text that starts with ``!`` or holds ``: `` or
`` #``, spaces for tabs), in words a teacher can act on.

A hint also tells the reader how to read on past the line (:class:`LineHint`): the line as
the message says to write it, when that is sure, so that one run can report every mistake
of a file (see :mod:`deckbuilder.cardfile.yaml_recovery`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import yaml

from deckbuilder.cardfile.keys import KEY_NAMES
from deckbuilder.errors import Problem

# The characters YAML does not allow in a file (its "printable" set, inverted).
_NOT_ALLOWED = re.compile(r"[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# YAML's line breaks, which its parser counts lines by (str.splitlines knows more).
_LINE_BREAK = re.compile(r"\r\n|[\n\r\x85\u2028\u2029]")
# Lines named one by one when a file is full of them (a binary file saved as .yaml).
_LINES_NAMED = 10
# Characters that make YAML read what follows as something other than text (a tag, an
# anchor or alias, a block of text, a directive) or that it reserves.
_NOT_TEXT_START = "!&*@`%|>"
_BLOCK_HEADER = re.compile(r"[|>][-+1-9]*[ \t]*(#.*)?")
# A source line as the hints read it: indentation and list dashes, maybe a key, the rest.
_SOURCE_LINE = re.compile(
    r"(?P<lead>[ \t]*(?:-[ \t]+)*)"
    r"(?:(?P<key>[^-\s!&*@`%|>\[\]{}'\"#?:,](?:[^:]|:(?![ \t]))*?)[ \t]*:(?:[ \t]+|$))?"
    r"(?P<value>.*)"
)
# A line's value that may be a key of the card format and its text with the colon left
# out ('front x').
_KEY_WITHOUT_COLON = re.compile(r"(?P<key>[a-z_]+)[ \t]+(?P<text>[^ \t#].*)")
_GENERAL_HINT = (
    "if this line holds text, put it in quotes (text starting with ! & * @ ` % | > [ { "
    "or containing ': ' or ' #' needs them); indent with spaces, not tabs"
)
# An escape that YAML reads in double quotes (one of a surrogate half's \\u too: single quotes
# would not keep what the author meant by it either).
_KNOWN_ESCAPE = re.compile(
    r"\\(?:[0abt\tnvfre \"/\\N_LP]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})"
)
# A quoted text from its opening quote to its closing one.
_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"")
# Characters of a source line (and of a suggested fix) shown in a message.
_SHOWN_CHARS = 100
# Characters of the text a comment cuts short, shown in its message.
_KEPT_SHOWN = 40


@dataclass(frozen=True)
class LineHint:
    """What to say about a line YAML refuses, and how a reader may read on past it."""

    index: int | None  # the line (0-based) the message is about; None: no line
    message: str  # the message, with the line shown below it
    fixed: str | None  # the whole line as the message says to write it, when that is sure
    tabs: bool = False  # the line is indented with tabs


def yaml_lines(text: str) -> list[str]:
    """``text`` split at YAML's line breaks, as its parser numbers lines."""
    return _LINE_BREAK.split(text.removesuffix("\n")) if text else []


def disallowed_characters(text: str) -> Iterator[tuple[int, int, str]]:
    """Each line (0-based, counted as YAML counts) holding a character YAML does not allow
    in a file, with the first such character and its column (1-based)."""
    line, line_start = 0, 0  # the line of text[line_start], where that line starts
    found = _NOT_ALLOWED.search(text)
    while found is not None:
        index = found.start()
        for before in _LINE_BREAK.finditer(text, line_start, index):
            line, line_start = line + 1, before.end()
        yield line, index - line_start + 1, text[index]
        after = _LINE_BREAK.search(text, index)
        if after is None:
            return
        line, line_start = line + 1, after.end()
        found = _NOT_ALLOWED.search(text, line_start)


def not_allowed(text: str, file: str, reported: str) -> list[Problem]:
    """One problem per line holding a character YAML does not allow in a file (at most
    :data:`_LINES_NAMED` of them), naming the first one on the line and its column."""
    problems: list[Problem] = []
    for line, column, char in disallowed_characters(text):
        if len(problems) == _LINES_NAMED:
            problems.append(Problem(file, None, "...and more lines with such characters"))
            break
        problems.append(_character_problem(file, line + 1, char, column))
    if not problems:  # the parser refused a character this module lets through
        index = max(text.find(reported), 0)
        line = text.count("\n", 0, index) + 1
        problems.append(
            _character_problem(file, line, reported, index - text.rfind("\n", 0, index))
        )
    return problems


def syntax_problem(text: str, file: str, exc: yaml.MarkedYAMLError, what: str) -> Problem:
    """The parser's complaint about ``text`` with what to do about it (see
    :func:`syntax_hint`)."""
    hint = syntax_hint(yaml_lines(text), exc, what)
    return Problem(file, None if hint.index is None else hint.index + 1, hint.message)


def syntax_hint(
    lines: Sequence[str],
    exc: yaml.MarkedYAMLError,
    what: str,
    shift: int = 0,
    part: tuple[int, int] | None = None,
) -> LineHint:
    """The parser's complaint with what to do about it, at the first line with text that
    the parser names (for the end of the file, the last one before it), shown below.

    ``lines`` are the file's; the parser read them from line ``shift`` on (its marks count
    from there): the lines ``part`` spans (start, stop), or all of them."""
    first, stop = part or (0, len(lines))
    marks = [
        (m.line + shift, m.column) for m in (exc.problem_mark, exc.context_mark) if m is not None
    ]
    if exc.context in ("while parsing a flow sequence", "while parsing a flow mapping"):
        marks.reverse()  # where the list or mapping that does not close opens
    at = [(i, c) for i, c in marks if first <= i < stop and lines[i].strip()]
    if not at:  # the last line with text before the first mark
        end = min(marks[0][0] if marks else first, stop)
        before = (i for i in range(end - 1, first - 1, -1) if lines[i].strip())
        last = next(before, None)
        at = [] if last is None else [(last, len(lines[last]))]
    if not at:
        return LineHint(None, f"YAML syntax error: {what}", None)
    index, column = at[0]
    line = lines[index]
    bad_escape = exc.context == "while parsing a quoted scalar" and any(
        word in (exc.problem or "") for word in ("escape", "hexdecimal")
    )
    tabs = False
    colon = None if bad_escape else _missing_colon(lines, index, first)
    if colon is not None:
        index, column, advice, fixed = colon
        line = lines[index]
    elif bad_escape:
        advice, fixed = _escape_hint(line, "Unicode" in (exc.problem or ""))
    else:
        advice, fixed, tabs = _hint(lines, index, column)
    message = f"YAML syntax error: {advice} (YAML parser: {what})"
    return LineHint(index, _with_source(message, line, column), fixed, tabs)


def _missing_colon(
    lines: Sequence[str], index: int, first: int
) -> tuple[int, int, str, str | None] | None:
    """A key of the card format written without its colon, on ``lines[index]`` or on the
    line above it at the same indentation (YAML reads 'id b' as text that goes on until the
    next key's colon, and stops there): the line, the column after the key, what to say,
    and the line as it should be. None when neither line is such a key."""
    here = _SOURCE_LINE.fullmatch(lines[index])
    above = next((i for i in range(index - 1, first - 1, -1) if lines[i].strip()), None)
    for at in (index,) if above is None else (index, above):
        shape = _SOURCE_LINE.fullmatch(lines[at])
        assert here is not None and shape is not None  # every part of the pattern may be empty
        if len(shape["lead"]) != len(here["lead"]):
            continue  # the line above is text of the key above it, or of another entry
        slip = _KEY_WITHOUT_COLON.fullmatch(shape["value"].rstrip(" \t"))
        if shape["key"] is not None or slip is None or slip["key"] not in KEY_NAMES:
            continue
        key, text = slip["key"], slip["text"]
        written = f"{key}: {_quote(text) if _why_quotes(text) else text}"
        dash = "- " if "-" in shape["lead"] else ""
        advice = f"'{key}' needs a colon after it; write {dash}{written}"
        column = shape.start("value") + len(key)
        if re.search(r"[ \t]#", text):
            return at, column, advice, None  # a comment may have been meant: not sure
        return at, column, advice, lines[at][: shape.start("value")] + written
    return None


def _escape_hint(line: str, half_character: bool) -> tuple[str, str | None]:
    """For a backslash in double quotes that starts no escape YAML knows (a Windows path,
    LaTeX, ``\\ud83d``, half of a character): how to write it, with the line as it should
    be where single quotes keep the text as meant (no escape in it that YAML knows)."""
    advice = (
        "inside double quotes a backslash starts an escape (\\n, \\t, \\u00e9); write \\\\ "
        "for a backslash, or put the text in single quotes, where a backslash is only a "
        "backslash"
    )
    if half_character:
        advice += (
            "; a character above U+FFFF is one escape of 8 digits (\\U0001F600), not two halves"
        )
    shape = _SOURCE_LINE.fullmatch(line)
    assert shape is not None
    value = shape["value"].rstrip(" \t")
    if shape["key"] is None or not _QUOTED.fullmatch(value) or value[0] != '"':
        return advice, None
    if _KNOWN_ESCAPE.search(value[1:-1]):
        return advice, None  # single quotes would show that escape as typed
    quoted = "'" + value[1:-1].replace("'", "''") + "'"
    dash = "- " if "-" in shape["lead"] else ""
    shown = f"{dash}{shape['key']}: {quoted}"
    fixed = line[: shape.start("value")] + quoted
    return (f"{advice}; write {shown}" if len(shown) <= _SHOWN_CHARS else advice), fixed


def _hint(lines: Sequence[str], index: int, column: int) -> tuple[str, str | None, bool]:
    """What a teacher can do about a syntax error at ``column`` of ``lines[index]``; the
    line as it should be, when that is sure; whether it is indented with tabs."""
    shape = _SOURCE_LINE.fullmatch(lines[index])
    assert shape is not None  # every part of the pattern may be empty
    value, closer = shape["value"], {"[": "]", "{": "}"}.get(shape["value"][:1])
    if "\t" in shape["lead"]:
        return (
            "YAML indents with spaces, not tabs: replace the tabs at the start of this line",
            None,
            True,
        )
    why, fixed = _quoting_advice(lines, index)
    if why:
        return why, fixed, False
    if closer and closer not in value:
        return (
            f"the {value[0]} here is never closed with {closer}; if this is text, put it in quotes",
            None,
            False,
        )
    if shape["key"] is not None and column < shape.start("value"):
        return (
            "check this line's indentation: its key must line up with the keys above it; "
            "if the line continues the text above it, put that whole text in quotes",
            None,
            False,
        )
    return _GENERAL_HINT, None, False


def _quoting_advice(lines: Sequence[str], index: int) -> tuple[str | None, str | None]:
    """Why the text on ``lines[index]`` needs quotes (None: it does not), with ``; write``
    and the line as it should be where that is clear: not when the text may end at a
    comment or go on in the lines below (indented deeper than its key, or than the dash
    of a list entry). Second, that whole line, indentation included (None: not clear)."""
    shape = _SOURCE_LINE.fullmatch(lines[index])
    assert shape is not None
    lead, key, value = shape["lead"], shape["key"], shape["value"].rstrip(" \t")
    why = _why_quotes(value)
    if why is None:
        return None, None
    below = next((lines[i] for i in range(index + 1, len(lines)) if lines[i].strip()), "")
    indent = len(lead) if key is not None else len(lead) - len(lead.lstrip(" "))
    goes_on = len(below) - len(below.lstrip(" ")) > indent and below.lstrip()[0] != "#"
    if goes_on or re.search(r"[ \t]#", value):
        return why, None
    text = value
    if value[0] in "\"'":  # the author's own quotes around the text go
        closed = _QUOTED.match(value) is not None
        if not closed or value[-1] == value[0]:
            text = value[1:-1] if closed else value[1:]
    quoted = _quote(text)
    shown = (f"{key}: " if key is not None else "- " if "-" in lead else "") + quoted
    fixed = lines[index][: shape.start("value")] + quoted
    return (f"{why}; write {shown}" if len(shown) <= _SHOWN_CHARS else why), fixed


def _why_quotes(value: str) -> str | None:
    """Why ``value``, meant as text, needs quotes (None: it does not, or it is no text)."""
    first = value[:1]
    if first and first in "\"'":
        quoted = _QUOTED.match(value)
        if quoted is None:
            return f"this text opens with {first} but never closes it; end it with {first} too"
        if value[quoted.end() :].lstrip()[:1] in ("", "#"):
            return None
        return (
            "text that starts with a quote must end with it; to keep quotes inside a text, "
            "put the whole text in the other kind of quotes"
        )
    closer = {"[": "]", "{": "}"}.get(first)
    reasons = []
    if (
        (first and first in _NOT_TEXT_START and not _BLOCK_HEADER.fullmatch(value))
        or (closer and value.find(closer) not in (-1, len(value) - 1))
        or re.match(r"[-?][ \t]", value)
    ):
        reasons.append(f"starting with '{first}'")
    if re.search(r":[ \t]", value):
        reasons.append("containing ': '")
    elif value.endswith(":"):
        reasons.append("ending in ':'")
    if re.search(r"[ \t]#", value):
        reasons.append("containing ' #'")
    return f"text {' and '.join(reasons)} needs quotes" if reasons else None


def comment_hint(line: str, column: int, kept: str, meant: str) -> tuple[str, str | None]:
    """For text YAML ends where a comment starts (``back: a # b`` reads as ``a``):
    what would be lost and how to keep it, with the line ``line`` shown below; second,
    that line as it should be, when the text is all on it (``column``: where the
    comment starts)."""
    shown_kept = kept if len(kept) <= _KEPT_SHOWN else kept[: _KEPT_SHOWN - 3] + "..."
    message = (
        "text after ' #' would be left out: YAML reads ' #' as the start of a comment, so "
        f"the card would show only '{shown_kept}'"
    )
    shape = _SOURCE_LINE.fullmatch(line)
    assert shape is not None
    fixed = None
    if shape["value"].rstrip() == meant:  # the whole text is on this line
        quoted = _quote(meant)
        dash = "- " if shape["key"] is None and "-" in shape["lead"] else ""
        key = f"{shape['key']}: " if shape["key"] is not None else ""
        shown = f"{dash}{key}{quoted}"
        fixed = line[: shape.start("value")] + quoted
        if len(shown) <= _SHOWN_CHARS:
            message += f"; to keep it, put the text in quotes: write {shown}"
        else:
            message += "; to keep it, put the text in quotes"
    else:
        message += "; to keep it, put the whole text in quotes"
    message += " (a comment of your own goes on a line of its own)"
    return _with_source(message, line, column), fixed


def _quote(text: str) -> str:
    """``text`` as a quoted YAML scalar: double quotes, unless they or a backslash (an
    escape there, common in math) are in it; then single quotes, which escape nothing."""
    if '"' not in text and "\\" not in text:
        return f'"{text}"'
    return "'" + text.replace("'", "''") + "'"


def _with_source(message: str, line: str, column: int) -> str:
    """``message``, then the source line it is about on a line of its own, indented."""
    shown = line.rstrip()
    if len(shown) > _SHOWN_CHARS:  # the part up to the error, so the error is in sight
        start = max(0, min(column + 10, len(shown)) - _SHOWN_CHARS)
        end = start + _SHOWN_CHARS
        shown = f"{'...' if start else ''}{shown[start:end]}{'...' if end < len(shown) else ''}"
    return f"{message}\n    {shown}"


def _character_problem(file: str, line: int, char: str, column: int) -> Problem:
    kind = "control character" if unicodedata.category(char) == "Cc" else "character"
    return Problem(
        file,
        line,
        f"the {kind} U+{ord(char):04X} (column {column}) cannot be in a card file; delete it",
    )


def quoting_advice_at(lines: Sequence[str], line: int, first: str) -> str | None:
    """For a value on ``line`` (1-based) that starts with ``first`` and was likely meant as
    text: that it needs quotes, and the line as it should be, then the line as it is."""
    source = lines[line - 1] if line <= len(lines) else ""
    shape = _SOURCE_LINE.fullmatch(source)
    if shape is None or shape["key"] == "<<" or not shape["value"].startswith(first):
        return None
    advice, _ = _quoting_advice(lines, line - 1)
    return _with_source(advice, source, shape.start("value")) if advice else None


# Spaces that look like the space YAML reads (U+00A0 NO-BREAK SPACE from a word processor
# or a web page, U+3000 IDEOGRAPHIC SPACE from a Korean, Chinese or Japanese keyboard)
# but that YAML reads as text: Unicode's space separators but the space itself.
_LOOK_ALIKE = "".join(chr(c) for c in range(0x80, 0x3001) if unicodedata.category(chr(c)) == "Zs")
_HAS_LOOK_ALIKE = re.compile(f"[{_LOOK_ALIKE}]")
# Where YAML needs a space and a look-alike may stand: in the indentation, after a list
# entry's dash, before or after a key's colon.
_SPACED_LINE = re.compile(
    rf"(?P<lead>[ \t{_LOOK_ALIKE}]*)"
    rf"(?:-(?:(?P<dash>[{_LOOK_ALIKE}]+)|[ \t]+)[ \t]*)?"
    rf"(?:(?P<key>[A-Za-z_][A-Za-z0-9_-]*)(?P<before>[{_LOOK_ALIKE}]*):"
    rf"(?P<after>[{_LOOK_ALIKE}]+)?)?"
)
_QUOTE_OPEN = re.compile(r"""(?:^|:[ \t]+|-[ \t]+)(["'])""")


def _look_alike(char: str) -> str:
    return f"U+{ord(char):04X} ({unicodedata.name(char, 'space').lower()})"


def _as_spaces(run: str) -> str:
    """A run of indentation as plain spaces: an ideographic space is as wide as two."""
    return "".join("  " if c == "\u3000" else " " if c in _LOOK_ALIKE else c for c in run)


def look_alike_spaces(text: str) -> tuple[str, list[tuple[int, str]]]:
    """Look-alike spaces (see _LOOK_ALIKE) where YAML needs a space: each line (1-based)
    holding one, with what to do, and ``text`` with them made spaces (deleted before a
    colon). Lines inside a block of text (``|``, ``>``) or a quoted text over several
    lines are text, whatever they hold."""
    if _HAS_LOOK_ALIKE.search(text) is None:
        return text, []
    lines = text.split("\n")
    found: list[tuple[int, str]] = []
    block: int | None = None  # the indentation of the line a block of text starts under
    quote: str | None = None  # the quote a text over several lines is waiting for
    for index, line in enumerate(lines):
        plain = len(line) - len(line.lstrip(" "))
        if block is not None:
            if not line.strip(" \t" + _LOOK_ALIKE) or plain > block:
                continue
            block = None
        if quote is not None:
            if _closes(line, quote):
                quote = None
            continue
        m = _SPACED_LINE.match(line)
        assert m is not None  # every part is optional
        slips = _slips(m, bool(line[m.end("lead") :].strip()))
        if slips:
            found.append((index + 1, "; ".join(message for _, message in slips)))
            for group, _ in reversed(slips):  # from the right: the spans stay where they are
                start, stop = m.span(group)
                made = "" if group == "before" else _as_spaces(line[start:stop])
                line = line[:start] + made + line[stop:]
            lines[index] = line
            m = _SPACED_LINE.match(line)
            assert m is not None
        if (m.group("key") or m.end("lead") < m.end()) and _BLOCK_HEADER.fullmatch(
            line[m.end() :].strip(" \t")
        ):
            block = plain
        opened = _QUOTE_OPEN.search(line)
        if opened and not _closes(line[opened.end() :], opened.group(1)):
            quote = opened.group(1)
    return "\n".join(lines), found


def _slips(m: re.Match[str], more: bool) -> list[tuple[str, str]]:
    """The look-alike spaces of a line matched by _SPACED_LINE: (group, what to do)."""
    slips = []
    lead, key = m.group("lead"), m.group("key")
    alike = _HAS_LOOK_ALIKE.search(lead)
    if alike is not None and more:
        width = "two spaces" if alike.group() == "\u3000" else "a space"
        slips.append(
            (
                "lead",
                f"{_look_alike(alike.group())} in the indentation: YAML indents with plain "
                f"spaces and reads this line as text; replace it with {width}",
            )
        )
    if m.group("dash"):
        slips.append(
            (
                "dash",
                f"{_look_alike(m.group('dash')[0])} after '-': a list entry needs a plain "
                "space after its dash; replace it with a space",
            )
        )
    if key and m.group("before"):
        slips.append(
            (
                "before",
                f"{_look_alike(m.group('before')[0])} between '{key}' and its colon: YAML "
                "reads it as part of the key; delete it",
            )
        )
    if key and m.group("after"):
        slips.append(
            (
                "after",
                f"{_look_alike(m.group('after')[0])} after '{key}:': YAML needs a plain "
                f"space after a key's colon and reads '{key}:' and what follows as text; "
                "replace it with a space",
            )
        )
    return slips


def _closes(text: str, quote: str) -> bool:
    """Whether ``text`` holds the quote that ends a quoted text (a doubled single quote
    and an escaped double quote are text)."""
    if quote == "'":
        return re.search(r"(?<!')'(?!')", text.replace("''", "")) is not None
    return re.search(r'(?<!\\)"', text.replace("\\\\", "")) is not None
