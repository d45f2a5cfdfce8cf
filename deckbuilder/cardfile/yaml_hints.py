"""What the card-file reader says about text YAML refuses: which line, why, and what to
write instead (quotes around text that starts with ``!`` or holds ``: ``, spaces for tabs),
in words a teacher can act on."""

from __future__ import annotations

import re
import unicodedata

import yaml

from deckbuilder.errors import Problem

__all__ = ["not_allowed", "quoting_advice_at", "syntax_problem"]

# The characters YAML does not allow in a file (its "printable" set, inverted).
_NOT_ALLOWED = re.compile(r"[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
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


def not_allowed(text: str, file: str, reported: str) -> list[Problem]:
    """One problem per line holding a character YAML does not allow in a file (at most
    :data:`_LINES_NAMED` of them), naming the first one on the line and its column."""
    problems: list[Problem] = []
    line, counted = 1, 0  # the line number of text[counted]
    found = _NOT_ALLOWED.search(text)
    while found is not None:
        if len(problems) == _LINES_NAMED:
            problems.append(Problem(file, None, "...and more lines with such characters"))
            break
        index = found.start()
        line += text.count("\n", counted, index)
        start = text.rfind("\n", 0, index) + 1
        problems.append(_character_problem(file, line, text[index], index - start + 1))
        counted = text.find("\n", index)
        if counted < 0:
            break
        found = _NOT_ALLOWED.search(text, counted)
    if not problems:  # the parser refused a character this module lets through
        index = max(text.find(reported), 0)
        line = text.count("\n", 0, index) + 1
        problems.append(
            _character_problem(file, line, reported, index - text.rfind("\n", 0, index))
        )
    return problems


def syntax_problem(text: str, file: str, exc: yaml.MarkedYAMLError, what: str) -> Problem:
    """The parser's complaint with what to do about it, at the first line with text that
    the parser names (for the end of the file, the last one before it), shown below."""
    lines = text.splitlines()  # YAML's line breaks: the reader refused the others
    marks = [m for m in (exc.problem_mark, exc.context_mark) if m is not None]
    if exc.context in ("while parsing a flow sequence", "while parsing a flow mapping"):
        marks.reverse()  # where the list or mapping that does not close opens
    at = [(m.line, m.column) for m in marks if m.line < len(lines) and lines[m.line].strip()]
    end = min(marks[0].line if marks else 0, len(lines))
    at += [(i, len(lines[i])) for i in range(end - 1, -1, -1) if lines[i].strip()]
    if not at:
        return Problem(file, None, f"YAML syntax error: {what}")
    index, column = at[0]
    bad_escape = exc.context == "while parsing a quoted scalar" and any(
        word in (exc.problem or "") for word in ("escape", "hexdecimal")
    )
    hint = (
        _escape_hint(lines[index], "Unicode" in (exc.problem or ""))
        if bad_escape
        else _hint(lines, index, column)
    )
    message = f"YAML syntax error: {hint} (YAML parser: {what})"
    return Problem(file, index + 1, _with_source(message, lines[index], column))


def _escape_hint(line: str, half_character: bool) -> str:
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
    value = shape["value"].rstrip()
    if shape["key"] is None or not _QUOTED.fullmatch(value) or value[0] != '"':
        return advice
    if _KNOWN_ESCAPE.search(value[1:-1]):
        return advice  # single quotes would show that escape as typed
    dash = "- " if "-" in shape["lead"] else ""
    fixed = f"{dash}{shape['key']}: '" + value[1:-1].replace("'", "''") + "'"
    return f"{advice}; write {fixed}" if len(fixed) <= _SHOWN_CHARS else advice


def _hint(lines: list[str], index: int, column: int) -> str:
    """What a teacher can do about a syntax error at ``column`` of ``lines[index]``."""
    shape = _SOURCE_LINE.fullmatch(lines[index])
    assert shape is not None  # every part of the pattern may be empty
    value, closer = shape["value"], {"[": "]", "{": "}"}.get(shape["value"][:1])
    if "\t" in shape["lead"]:
        return "YAML indents with spaces, not tabs: replace the tabs at the start of this line"
    if quoting := _quoting_advice(lines, index):
        return quoting
    if closer and closer not in value:
        return (
            f"the {value[0]} here is never closed with {closer}; if this is text, put it in quotes"
        )
    if shape["key"] is not None and column < shape.start("value"):
        return (
            "check this line's indentation: its key must line up with the keys above it; "
            "if the line continues the text above it, put that whole text in quotes"
        )
    return _GENERAL_HINT


def _quoting_advice(lines: list[str], index: int) -> str | None:
    """Why the text on ``lines[index]`` needs quotes (None: it does not), with the line as
    it should be where that is clear: not when the text may end at a comment or go on in
    the lines below (indented deeper than its key, or than the dash of a list entry)."""
    shape = _SOURCE_LINE.fullmatch(lines[index])
    assert shape is not None
    lead, key, value = shape["lead"], shape["key"], shape["value"].rstrip()
    why = _why_quotes(value)
    below = next((lines[i] for i in range(index + 1, len(lines)) if lines[i].strip()), "")
    indent = len(lead) if key is not None else len(lead) - len(lead.lstrip(" "))
    goes_on = len(below) - len(below.lstrip(" ")) > indent and below.lstrip()[0] != "#"
    if why is None or goes_on or re.search(r"[ \t]#", value):
        return why
    text = value
    if value[0] in "\"'":  # the author's own quotes around the text go
        closed = _QUOTED.match(value) is not None
        if not closed or value[-1] == value[0]:
            text = value[1:-1] if closed else value[1:]
    fixed = (f"{key}: " if key is not None else "- " if "-" in lead else "") + _quote(text)
    return f"{why}; write {fixed}" if len(fixed) <= _SHOWN_CHARS else why


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
    if re.search(r":(?:[ \t]|$)", value):
        reasons.append("containing ': '")
    if re.search(r"[ \t]#", value):
        reasons.append("containing ' #'")
    return f"text {' and '.join(reasons)} needs quotes" if reasons else None


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


def quoting_advice_at(lines: list[str], line: int, first: str) -> str | None:
    """For a value on ``line`` (1-based) that starts with ``first`` and was likely meant as
    text: that it needs quotes, and the line as it should be, then the line as it is."""
    source = lines[line - 1] if line <= len(lines) else ""
    shape = _SOURCE_LINE.fullmatch(source)
    if shape is None or shape["key"] == "<<" or not shape["value"].startswith(first):
        return None
    advice = _quoting_advice(lines, line - 1)
    return _with_source(advice, source, shape.start("value")) if advice else None
