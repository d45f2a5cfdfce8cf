"""Reading one field of a card file: text in the language being read, tags, known keys.

A :class:`FieldReader` reads the fields of one card file in one language and collects
every problem it finds, with its line, instead of stopping at the first.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from deckbuilder.cardfile.keys import (
    CHOICE,
    DECK,
    FIELDS,
    ID_PATTERN,
    LANG_PATTERN,
    NOTE_TYPES,
    Key,
    Shape,
)
from deckbuilder.cardfile.shapes import SHAPES
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.errors import Problem
from deckbuilder.invisible import INVISIBLE

# What a deck or note id may be: it names the package and keeps notes' identities.
ID_RE = re.compile(f"(?:{ID_PATTERN})\\Z")
LANG_RE = re.compile(f"(?:{LANG_PATTERN})\\Z")
# Limit against absurd input (documented in README, "Limits").
MAX_FIELD_BYTES = 64 * 1024  # Markdown, sanitising and highlighting stay near a second per field
# The key a field name in messages is of: 'choices' of 'choices[2]', 'fields' of
# 'fields.Korean'.
_KEY_OF = re.compile(r"[\[.]")
# Fields that may be a map from language code to text (choices: each entry).
LOCALIZED_KEYS = frozenset(
    key.name
    for keys in (DECK, CHOICE, (FIELDS,), *(note.keys for note in NOTE_TYPES))
    for key in keys
    if key.localized
)
# Characters Anki cannot store: the C0 controls but tab and line feed, DEL, and halves of
# surrogate pairs. U+001F separates the fields of a note in Anki's database, so one in
# a field shifts the fields and Anki refuses the whole package; Anki drops the others
# on import (a carriage return in a field becomes a line break), so the card would not
# show what was written.
UNSTORABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
# Characters of a value a message quotes: a value pasted whole (a 300,000-digit number)
# would drown the message.
SHOWN_CHARS = 60
_CHARACTER_NOTES = {
    "\x1f": " (Anki's field separator)",
    "\r": " (a carriage return; write \\n for a line break)",
}


def unstorable_problem(text: str) -> str | None:
    """What is wrong when ``text`` holds characters Anki cannot store, for a message
    that names the field first (``contains the control character U+001F (Anki's field
    separator), which Anki cannot store; delete it``); None when there are none."""
    if UNSTORABLE.search(text) is None:
        return None
    found = sorted(set(UNSTORABLE.findall(text)))
    kind = "character" if any("\ud800" <= ch <= "\udfff" for ch in found) else "control character"
    names = ", ".join(f"U+{ord(ch):04X}{_CHARACTER_NOTES.get(ch, '')}" for ch in found)
    if len(found) == 1:
        return f"contains the {kind} {names}, which Anki cannot store; delete it"
    return f"contains the {kind}s {names}, which Anki cannot store; delete them"


def visible(text: str) -> str:
    """``text`` for a message: characters Anki cannot store written as ``<U+001F>``, so that
    a message never carries a control character (an escape sequence) to the terminal."""
    return UNSTORABLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` for a message: cut when long (with how long it was), and its invisible
    characters and those Anki cannot store written as ``<U+200B>`` (see :func:`visible`)."""
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text):,} characters)"
    text = INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)
    return visible(text)


def trimmed(text: str) -> str:
    """``text`` without the white space around it, unless it holds characters Anki cannot
    store: Python counts some of those as white space (U+001F), and the checks must see
    them to refuse them."""
    return text if UNSTORABLE.search(text) else text.strip()


def is_null(value: YValue) -> bool:
    """Nothing written after a key (``key:``, ``key: ~``)."""
    return isinstance(value, YScalar) and value.is_null


def id_problem(what: str, written: str) -> str:
    """Why ``written`` is no id (``what``: 'note id', 'deck id'), with the id it could be:
    ``note id 'Caps Id' must match [a-z0-9][a-z0-9_-]*; did you mean 'caps-id'?``."""
    near = re.sub(r"[^a-z0-9_-]+", "-", written.lower()).strip("-_")
    hint = f"; did you mean '{near}'?" if near and ID_RE.match(near) else ""
    return f"{what} '{shown(written)}' must match [a-z0-9][a-z0-9_-]*{hint}"


# A deck id names its package and lock file (``<id>.<lang>.apkg``): not a name Windows
# keeps for a device, and short enough for every file system with the names written
# beside it (255 bytes per name, less the temporary files' marks).
MAX_DECK_ID_CHARS = 100
MAX_LANGUAGE_CHARS = 35  # the longest language tag in practice (RFC 5646, 4.4.1)
_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", *(f"{port}{n}" for port in ("com", "lpt") for n in range(10))}
)


def deck_id_problem(key: str) -> str | None:
    """What keeps a well-formed deck id from naming its files everywhere, None when
    nothing does: a device name on Windows (``con``, ``nul``, ``com1``...), a name Anki
    desktop takes for a whole collection (``collection``, ``backup-...``), or a length
    over MAX_DECK_ID_CHARS."""
    if key.lower() in _WINDOWS_DEVICES:
        return (
            f"deck id '{key}' is the name of a device on Windows, where its package "
            f"'{key}.apkg' cannot be written; choose another (for example '{key}-deck')"
        )
    if key == "collection" or key.startswith("backup-"):
        # aqt's importing.py: a package named so is a whole collection to replace yours
        return (
            f"deck id '{key}' names the package '{key}.apkg', which Anki desktop takes for a "
            "whole collection and offers to replace the learner's with it; choose another "
            f"(for example '{key}-deck')"
        )
    if len(key) > MAX_DECK_ID_CHARS:
        return (
            f"deck id '{shown(key)}' is {len(key):,} characters long; the limit is "
            f"{MAX_DECK_ID_CHARS} (it names the package file)"
        )
    return None


def suggest(key: str, allowed: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the allowed word closest to a misspelt ``key`` (the same
    word in other case first: 'EN' is 'en'), or ''."""
    words = list(allowed)
    same = [word for word in words if word.casefold() == key.casefold()]
    close = same or difflib.get_close_matches(key, words, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class FieldReader:
    """Reads the fields of one card file in one language, collecting problems.

    It reads shapes (text, a list, true or false...) and reports a value of the wrong
    one; what the text says is judged afterwards, on the model (:mod:`.checks`). The keys
    it could not read are kept in :attr:`unread` (by the name messages give them), so that
    their content is not judged again."""

    def __init__(
        self,
        path: Path,
        languages: tuple[str, ...] = (),
        lang: str = "",
        fallback: bool = False,
        source: str = "",
    ) -> None:
        self.path = path
        self.file = str(path)
        self.languages = languages  # declared, default first; () for a one-language file
        self.lang = lang  # the language being read
        self.fallback = fallback  # a field without `lang` takes the default language's text
        self.source = source  # the file's text, when known: advice can then show the fix
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.note_id: str | None = None  # the note being read, for messages
        self.unread: set[str] = set()  # keys of the note being read that had a problem
        # Where the lines of the note's texts written over several lines start (see
        # Note.text_lines), by the name messages give them.
        self.text_lines: dict[str, tuple[tuple[int, int], ...]] = {}

    def problem(self, line: int | None, message: str, what: str = "") -> None:
        self.problems.append(Problem(self.file, line, message, self.note_id))
        if what:
            self.unread.add(what)

    def text(self, ymap: YMap, key: str, *, required: bool = False) -> str:
        """The text of ``key`` in ``ymap``; '' when it is absent or a problem."""
        value = ymap.get(key)
        if value is None or is_null(value):
            if required:
                self.problem(ymap.key_line(key), f"'{key}' is required", key)
            return ""
        return self.as_text(value, key)

    def as_text(self, value: YValue, what: str) -> str:
        """``value`` as NFC text, picking the language of a language map; '' on a problem.

        ``what`` names the field in messages (``question``, ``choices[2]``)."""
        localized = _KEY_OF.split(what, 1)[0] in LOCALIZED_KEYS
        picked_from = None
        if isinstance(value, YMap) and localized and self.is_language_map(value):
            picked = self.pick_language(value, what)
            if picked is None:
                self.unread.add(what)
                return ""
            picked_from, value = value, picked
        if not isinstance(value, YScalar) or value.is_null:
            self.problem(
                value.line,
                f"'{what}' must be text, not {describe(value)}{self.quoting(value)}",
                what,
            )
            return ""
        text = unicodedata.normalize("NFC", value.raw)
        if value.end_line > value.line or picked_from is not None:
            self.text_lines[what] = self.line_starts(value, text)
        return text

    def line_starts(self, value: YScalar, text: str) -> tuple[tuple[int, int], ...]:
        """Where in ``text`` (read from ``value``) each of its lines in the file starts, as
        (offset, line) pairs: each line's words are looked for in the text in turn (YAML
        joins the lines of a plain or quoted value with spaces, and takes away their
        indentation). A line whose words are not found (an escape in quotes) is left out:
        its text counts as the line before's."""
        starts = [(0, value.line)]
        if not self.lines:
            return tuple(starts)
        searched = 0
        for number in range(value.line, min(value.end_line, len(self.lines)) + 1):
            written = self.lines[number - 1]
            if number == value.line:
                if value.style in ("|", ">"):
                    continue  # the block's header
                written = written[value.column + (1 if value.style else 0) :]
            words = written.strip()
            if not words:
                continue
            # A line's text starts within the length of the line's source after where the
            # line before ended (YAML only shortens it): each line is looked for there.
            window = searched + len(written) + 8
            for probe in (words[:24], words[:6]):
                found = text.find(probe, searched, window + len(probe))
                if found >= 0:
                    break
            if found < 0:
                continue
            if found == 0:
                starts[0] = (0, number)
            else:
                starts.append((found, number))
            searched = found + len(probe)
        return tuple(starts)

    @cached_property
    def lines(self) -> list[str]:
        """The file's lines, split when advice first shows one."""
        return self.source.splitlines()

    def is_language_map(self, value: YMap) -> bool:
        """Whether a mapping where text belongs is text per language: it names a declared
        language, or every key looks like a language code (``{ko: ..., EN: ...}``).
        Anything else is most likely text that YAML read as a mapping."""
        declared = {code.casefold() for code in self.languages}
        keys = [key.casefold() for key in value.entries]
        return any(key in declared for key in keys) or all(
            LANG_RE.match(key.partition("-")[0]) for key in keys
        )

    def quoting(self, value: YValue) -> str:
        """For a list or mapping written where text belongs (``back: {"a": 1}``, ``front:
        [x]``): that text starting with ``{`` or ``[`` needs quotes, with the line
        rewritten when the file's lines are known; '' for other values."""
        if not isinstance(value, (YMap, YSeq)):
            return ""
        source = self.lines[value.line - 1] if 0 < value.line <= len(self.lines) else ""
        written = _FLOW_VALUE.match(source)
        if written is None:
            if self.lines:  # a list or mapping in block style: no text on its own line
                return ""
            return "; text starting with '{' or '[' needs quotes"
        flow = written["value"].rstrip()
        opening = flow[0]
        fix = ""
        if flow[-1] == {"{": "}", "[": "]"}[opening] and " #" not in flow:
            quoted = "'" + flow.replace("'", "''") + "'"
            fix = f": write {written['lead'].lstrip()}{quoted}"
        return f"; text starting with '{opening}' needs quotes{fix}"

    def pick_language(self, value: YMap, what: str) -> YValue | None:
        """The text of ``self.lang`` in a language map (``{ko: ..., en: ...}``)."""
        if not self.languages:
            codes = ", ".join(value.entries) or "ko, en"
            self.problem(
                value.line,
                f"'{what}' is a language map; declare the deck's languages first, "
                f"e.g. 'languages: [{codes}]' (the first is the default)",
            )
            return None
        declared = ", ".join(self.languages)
        for code, line in value.lines.items():
            if code not in self.languages:
                self.problem(
                    line,
                    f"'{what}' has text in '{shown(code)}', a language the deck does not "
                    f"declare (languages: [{declared}]){suggest(code, self.languages)}",
                )
        hit = value.get(self.lang)
        default = self.languages[0]
        if hit is None and self.fallback and value.get(default) is not None:
            self.warnings.append(
                Problem.warning(
                    self.file,
                    value.line,
                    f"'{what}' has no '{self.lang}' text; using the '{default}' text",
                    self.note_id,
                    code="fallback",
                )
            )
            hit = value.get(default)
        if hit is None:
            hint = " or build with --fallback" if value.get(default) is not None else ""
            self.problem(
                value.line,
                f"'{what}' has no '{self.lang}' text (languages: [{declared}]); "
                f"add '{self.lang}:'{hint}",
            )
            return None
        if not isinstance(hit, YScalar) or hit.is_null:
            # Quoting advice only on a line of its own: on the map's line it would quote the
            # whole map, every language with it.
            advice = self.quoting(hit) if hit.line != value.line else ""
            self.problem(
                hit.line, f"'{what}' in '{self.lang}' must be text, not {describe(hit)}{advice}"
            )
            return None
        return hit

    def tags(self, ymap: YMap, key: str = "tags") -> list[tuple[str, int]]:
        """The ``tags:`` of a deck or note (one tag or a list; or another key of that
        shape), without repeats, each with its line. Whether each is a tag Anki takes is
        for :func:`.checks.tag_problem`."""
        value = ymap.get(key)
        if value is None or is_null(value):
            return []
        items = value.items if isinstance(value, YSeq) else [value]
        out: dict[str, int] = {}
        for item in items:
            before = len(self.problems)
            tag = trimmed(self.as_text(item, key))
            if len(self.problems) == before:
                out.setdefault(tag, item.line)
        self.unread.discard(key)  # the values that could be read are judged
        return list(out.items())

    def flag(self, ymap: YMap, key: str, *, default: bool, what: str = "") -> bool:
        """The true/false value of ``key`` in ``ymap``: ``default`` when it is absent, or
        (with a problem) when it is something else. ``what`` names it in messages (the
        key when empty)."""
        value = ymap.get(key)
        if value is None:
            return default
        if isinstance(value, YScalar) and value.kind == "bool":
            return value.raw.lower() in ("true", "yes", "on", "y")
        self.problem(
            value.line,
            f"'{what or key}' must be {SHAPES[Shape.FLAG].phrase}, not {describe(value)}",
        )
        return default

    # -- a key's value, read by its shape (the readers of keys.SHAPES) -------------------
    def read(self, ymap: YMap, key: Key) -> Any:
        """The value of the declared ``key`` in ``ymap``, read by the reader its shape's
        row names (:data:`.shapes.SHAPES`), with the key's own required or default."""
        reader = SHAPES[key.shape].reader
        if not isinstance(reader, str):
            raise TypeError(f"'{key.name}' ({key.shape.value}) is read by {reader.functions}")
        return getattr(self, reader)(ymap, key)

    def read_text(self, ymap: YMap, key: Key) -> str:
        """Text, maybe per language (:meth:`text`)."""
        return self.text(ymap, key.name, required=key.required)

    def read_plain(self, ymap: YMap, key: Key) -> str:
        """Text as written, never per language (a note type's name, CSS, a template);
        '' when absent or a problem."""
        found = ymap.get(key.name)
        if found is None or is_null(found):
            return ""
        if not isinstance(found, YScalar):
            self.problem(found.line, f"'{key.name}' must be text, not {describe(found)}")
            return ""
        return unicodedata.normalize("NFC", found.raw)

    def read_flag(self, ymap: YMap, key: Key) -> bool:
        """True or false (:meth:`flag`), the key's default when absent."""
        return self.flag(ymap, key.name, default=bool(key.default))

    def read_tags(self, ymap: YMap, key: Key) -> list[tuple[str, int]]:
        """One word or a list of them, each with its line (:meth:`tags`)."""
        return self.tags(ymap, key.name)

    def unknown_keys(self, ymap: YMap, allowed: Sequence[str], where: str) -> None:
        for key, line in ymap.lines.items():
            if key not in allowed:
                self.problem(line, f"unknown key '{shown(key)}' in {where}{suggest(key, allowed)}")


# A source line whose value is a list or mapping in flow style: the line up to the value
# (indentation, list dashes, the key), and the value.
_FLOW_VALUE = re.compile(r"(?P<lead>\s*(?:-\s+)*(?:[^\s\-\[{'\"#][^:#]*:\s+)?)(?P<value>[\[{].*)")
