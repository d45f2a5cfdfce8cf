"""The straightforward loader that the fast one must match, kept as the test oracle.

``ReferenceBuilder.build`` is the event walker of deckbuilder/yamlsource.py before it was
tuned for speed (isinstance dispatch, one helper call per node), and ``ReferenceReader``
overrides the tuned methods of ``load._DeckReader`` with their plain versions (every value
through ``as_text``, NFC and the UTF-8 size always computed, ``NoteKind(raw)``, every key
checked one by one). tests/test_performance_load.py swaps them in and compares what both
produce: trees, decks, notes, warnings and problems, in order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import yaml
from yaml.nodes import ScalarNode

from deckbuilder.errors import DeckError, Problem
from deckbuilder.load import (
    ALL_NOTE_KEYS,
    COMMON_NOTE_KEYS,
    ID_RE,
    LOCALIZED_KEYS,
    MAX_CHOICES,
    MAX_FIELD_BYTES,
    NOTE_KEYS,
    _DeckReader,
    _suggest,
)
from deckbuilder.model import (
    CLOZE_RE,
    BasicNote,
    ClozeNote,
    McqNote,
    Note,
    NoteKind,
    cloze_ordinals,
    letter,
)
from deckbuilder.progress import step
from deckbuilder.yamlsource import (
    _T,
    ALIAS_FACTOR,
    ALIAS_SLACK,
    MAX_DEPTH,
    SCALAR_TAGS,
    YMap,
    YScalar,
    YSeq,
    YValue,
    _Builder,
    describe,
)


class ReferenceBuilder(_Builder):
    """Builds the located tree from the parser's event stream, without recursion.

    libyaml's own composer recurses in C and crashes the interpreter on absurdly deep
    nesting; walking events keeps a depth limit of our own. Aliases share the anchored
    value, and their expanded size is counted so that an alias bomb is refused early.
    """

    def __init__(self, file: str, size: int = 0, first_line: int = 1) -> None:
        self.file = file
        self.first_line = first_line  # the line number of the text's first line
        self.size = size  # characters in the document, for progress reports
        self.resolver = yaml.resolver.Resolver()
        self.problems: list[Problem] = []
        self.anchors: dict[str, tuple[YValue, int]] = {}  # anchor -> (value, expanded size)
        self.written = 0
        self.expanded = 0
        self.aliased = False  # whether an anchor or alias was seen

    def fail(self, line: int | None, message: str) -> DeckError:
        return DeckError([*self.problems, Problem(self.file, line, message)])

    def count(self, size: int, line: int) -> None:
        self.expanded += size
        if self.expanded > self.written * ALIAS_FACTOR + ALIAS_SLACK:
            raise self.fail(
                line,
                f"YAML aliases expand this file far beyond what is written (over "
                f"{self.expanded:,} values from {self.written:,}); refusing to load "
                "(write the values out, or use fewer nested aliases)",
            )

    def check_tag(self, tag: str | None, expected: set[str], line: int) -> None:
        if tag not in (None, "!") and tag not in expected:
            self.problems.append(
                Problem(self.file, line, f"unsupported YAML tag {tag!r}; write plain text")
            )

    def build(self, events: Iterable[yaml.Event]) -> YValue | None:
        # Each open collection: [value, expanded size, anchor, pending key (maps only)]
        stack: list[list[Any]] = []
        root: YValue | None = None
        documents = 0

        def attach(value: YValue, size: int, line: int) -> None:
            nonlocal root
            if not stack:
                root = value
                return
            frame = stack[-1]
            frame[1] += size
            parent = frame[0]
            if isinstance(parent, YSeq):
                parent.items.append(value)
            elif frame[3] is None:  # a key
                if not isinstance(value, YScalar):
                    self.problems.append(Problem(self.file, line, "a key must be plain text"))
                    frame[3] = ("", line, True)
                elif value.tag == _T + "merge":
                    self.problems.append(
                        Problem(self.file, line, "YAML merge keys ('<<') are not supported")
                    )
                    frame[3] = ("", line, True)
                else:
                    frame[3] = (value.raw, line, False)
            else:
                key, kline, skip = frame[3]
                frame[3] = None
                if skip:
                    return
                if key in parent.entries:
                    first = parent.entries[key][0]
                    self.problems.append(
                        Problem(self.file, kline, f"duplicate key '{key}' (first at line {first})")
                    )
                else:
                    parent.entries[key] = (kline, value)

        resolve = self.resolver.resolve
        # A plain scalar whose first character starts none of the resolver's patterns
        # (numbers, booleans, null, dates...) is text: what resolve() returns, for less work.
        by_first = self.resolver.yaml_implicit_resolvers
        shortcut = None not in by_first and not self.resolver.yaml_path_resolvers
        first_line = self.first_line
        for event in events:
            mark = event.start_mark
            line = mark.line + first_line if mark is not None else 0
            if isinstance(event, yaml.ScalarEvent):
                # Most events are scalars: count(1, line) and check_tag() written inline.
                self.written += 1
                self.expanded += 1
                if self.expanded > self.written * ALIAS_FACTOR + ALIAS_SLACK:
                    self.count(0, line)  # raises: aliases expand too far
                if not self.written & 4095:
                    step("reading", mark.index if mark is not None else 0, self.size)
                tag = event.tag
                if tag is None or tag == "!":
                    text = event.value
                    if shortcut and text and text[0] not in by_first:
                        tag = _T + "str"
                    else:
                        tag = resolve(ScalarNode, text, event.implicit)  # type: ignore[no-untyped-call]
                elif tag not in SCALAR_TAGS:
                    self.check_tag(tag, SCALAR_TAGS, line)
                scalar = YScalar(event.value, tag, line)
                if event.anchor:
                    self.aliased = True
                    self.anchors[event.anchor] = (scalar, 1)
                attach(scalar, 1, line)
            elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise self.fail(line, f"YAML nesting is deeper than {MAX_DEPTH} levels")
                self.written += 1
                self.count(1, line)
                is_seq = isinstance(event, yaml.SequenceStartEvent)
                self.check_tag(event.tag, {_T + ("seq" if is_seq else "map")}, line)
                value: YValue = YSeq([], line) if is_seq else YMap(line=line)
                stack.append([value, 1, event.anchor, None])
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                value, size, anchor, _ = stack.pop()
                if anchor:
                    self.aliased = True
                    self.anchors[anchor] = (value, size)
                attach(value, size, value.line)
            elif isinstance(event, yaml.AliasEvent):
                self.aliased = True
                if any(frame[2] == event.anchor for frame in stack):
                    raise self.fail(line, "YAML alias refers to itself (a recursive structure)")
                hit = self.anchors.get(event.anchor or "")
                if hit is None:
                    raise self.fail(line, f"unknown YAML alias '*{event.anchor}'")
                self.count(hit[1], line)
                attach(hit[0], hit[1], line)
            elif isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise self.fail(
                        line, "more than one YAML document ('---'); use one file per deck"
                    )
        if self.problems:
            raise DeckError(self.problems)
        return root


def _lines(item: YMap) -> dict[str, int]:
    """Where each key of a note starts; choices by entry (``choices[0]``)."""
    lines = {key: line for key, (line, _) in item.entries.items()}
    choices = item.get("choices")
    if isinstance(choices, YSeq):
        lines.update({f"choices[{i}]": entry.line for i, entry in enumerate(choices.items)})
    return lines


class ReferenceReader(_DeckReader):
    def text(self, ymap: YMap, key: str, *, required: bool = False) -> str:
        value = ymap.get(key)
        if value is None or (isinstance(value, YScalar) and value.is_null):
            if required:
                line = ymap.key_line(key) if key in ymap.entries else ymap.line
                self.problem(line, f"'{key}' is required")
            return ""
        return self.as_text(value, key, required=required)

    def as_text(self, value: YValue, what: str, *, required: bool = False) -> str:
        if isinstance(value, YMap) and what.split("[")[0] in LOCALIZED_KEYS:
            picked = self.pick_language(value, what)
            if picked is None:
                return ""
            value = picked
        if not isinstance(value, YScalar) or value.is_null:
            self.problem(value.line, f"'{what}' must be text, not {describe(value)}")
            return ""
        size = len(value.raw.encode("utf-8", "surrogatepass"))
        if size > MAX_FIELD_BYTES:
            self.problem(
                value.line, f"'{what}' is {size:,} bytes; the limit is {MAX_FIELD_BYTES:,}"
            )
            return ""
        out = unicodedata.normalize("NFC", value.raw)
        if required and not out.strip():
            self.problem(value.line, f"'{what}' is empty")
        return out

    def tags(self, ymap: YMap) -> tuple[str, ...]:
        value = ymap.get("tags")
        if value is None or (isinstance(value, YScalar) and value.is_null):
            return ()
        items = value.items if isinstance(value, YSeq) else [value]
        out: list[str] = []
        for item in items:
            tag = self.as_text(item, "tags", required=True).strip()
            if not tag:
                continue
            if any(ch.isspace() for ch in tag):
                self.problem(
                    item.line, f"tag '{tag}' contains a space; Anki tags cannot (use '_' or '-')"
                )
            elif tag not in out:
                out.append(tag)
        return tuple(out)

    def note(self, item: YValue, seen: dict[str, int]) -> Note | None:
        self.note_id = None
        if not isinstance(item, YMap):
            self.problem(
                item.line, f"each note must be a mapping (id:, type:, ...), not {describe(item)}"
            )
            return None
        before = len(self.problems)
        note_id = self.text(item, "id", required=True).strip()
        if note_id:
            self.note_id = note_id
            if not ID_RE.match(note_id):
                self.problem(
                    item.key_line("id"), f"note id '{note_id}' must match [a-z0-9][a-z0-9_-]*"
                )
            elif note_id in seen:
                self.problem(
                    item.key_line("id"), f"duplicate note id (first at line {seen[note_id]})"
                )
            else:
                seen[note_id] = item.line
        kind = self.kind(item)
        if kind is None:
            self.unknown_keys(item, ALL_NOTE_KEYS, "a note")
            self.note_id = None
            return None
        self.unknown_keys(item, COMMON_NOTE_KEYS + NOTE_KEYS[kind], f"a {kind} note")
        tags = self.tags(item)
        common = {"id": note_id, "line": item.line, "tags": tags, "field_lines": _lines(item)}
        note: Note
        if kind is NoteKind.MCQ:
            note = self.mcq(item, common)
        elif kind is NoteKind.CLOZE:
            note = self.cloze(item, common)
        else:
            note = BasicNote(
                **common,  # type: ignore[arg-type]
                front=self.text(item, "front", required=True),
                back=self.text(item, "back", required=True),
            )
        self.note_id = None
        return note if len(self.problems) == before else None

    def kind(self, item: YMap) -> NoteKind | None:
        value = item.get("type")
        if value is not None:
            raw = self.as_text(value, "type").strip()
            try:
                return NoteKind(raw)
            except ValueError:
                names = [k.value for k in NoteKind]
                self.problem(
                    value.line,
                    f"unknown note type '{raw}'; expected one of {', '.join(names)}{_suggest(raw, names)}",
                )
                return None
        for kind, keys in NOTE_KEYS.items():
            if any(key in item.entries for key in keys):
                return kind
        self.problem(
            item.line, "cannot tell the note type; add 'type: mcq', 'type: cloze' or 'type: basic'"
        )
        return None

    def mcq(self, item: YMap, common: dict[str, object]) -> McqNote:
        question = self.text(item, "question", required=True)
        choices = self.choices(item)
        answer = self.answer(item, len(choices))
        shuffle = True
        value = item.get("shuffle")
        if value is not None:
            if isinstance(value, YScalar) and value.kind == "bool":
                shuffle = value.raw.lower() in ("true", "yes", "on", "y")
            else:
                self.problem(value.line, f"'shuffle' must be true or false, not {describe(value)}")
        return McqNote(
            **common,  # type: ignore[arg-type]
            question=question,
            choices=tuple(choices),
            answer=answer,
            explanation=self.text(item, "explanation"),
            shuffle=shuffle,
        )

    def choices(self, item: YMap) -> list[str]:
        value = item.get("choices")
        if value is None or (isinstance(value, YScalar) and value.is_null):
            line = item.key_line("choices") if "choices" in item.entries else item.line
            self.problem(line, "'choices' is required: a list of 2 to 26 answers")
            return []
        if not isinstance(value, YSeq):
            self.problem(value.line, f"'choices' must be a list, not {describe(value)}")
            return []
        if not 2 <= len(value.items) <= MAX_CHOICES:
            self.problem(
                value.line, f"'choices' has {len(value.items)} entries; give 2 to {MAX_CHOICES}"
            )
        out: list[str] = []
        first: dict[str, int] = {}
        for i, entry in enumerate(value.items):
            text = self.as_text(entry, f"choices[{i}]", required=True)
            norm = " ".join(text.split()).casefold()
            if norm and norm in first:
                self.problem(
                    entry.line,
                    f"choice {letter(i) if i < MAX_CHOICES else i + 1} repeats choice {letter(first[norm])}",
                )
            elif norm:
                first[norm] = i
            out.append(text)
        return out

    def answer(self, item: YMap, n_choices: int) -> tuple[int, ...]:
        value = item.get("answer")
        if value is None or (isinstance(value, YScalar) and value.is_null):
            line = item.key_line("answer") if "answer" in item.entries else item.line
            self.problem(line, "'answer' is required: a letter (A) or a list of letters ([A, C])")
            return ()
        entries = value.items if isinstance(value, YSeq) else [value]
        if not entries:
            self.problem(value.line, "'answer' is empty; give at least one letter")
        valid = (
            f"A-{letter(min(n_choices, MAX_CHOICES) - 1)}" if n_choices >= 2 else "a choice letter"
        )
        picked: list[int] = []
        for entry in entries:
            if not isinstance(entry, YScalar) or entry.is_null:
                self.problem(
                    entry.line,
                    f"'answer' must be a letter or a list of letters, not {describe(entry)}",
                )
                continue
            raw = entry.raw.strip()
            parts = [p for p in re.split(r"[\s,]+", raw) if p] if len(entries) == 1 else [raw]
            for part in parts:
                up = part.upper()
                if len(up) != 1 or not "A" <= up <= "Z":
                    self.problem(entry.line, f"answer '{part}' is not a choice letter ({valid})")
                    continue
                index = ord(up) - ord("A")
                if n_choices and index >= n_choices:
                    self.problem(entry.line, f"answer '{up}' is not one of the choices ({valid})")
                elif index in picked:
                    self.problem(entry.line, f"answer '{up}' is given twice")
                else:
                    picked.append(index)
        return tuple(sorted(picked))

    def cloze(self, item: YMap, common: dict[str, object]) -> ClozeNote:
        text = self.text(item, "text", required=True)
        self.same_clozes(item.get("text"))
        if text.strip():
            if not cloze_ordinals(text):
                line = item.key_line("text")
                self.problem(
                    line,
                    "cloze text has no deletion; mark answers as {{c1::answer}} or {{c1::answer::hint}}",
                )
            # Anki would show a broken '{{c1:' literally; catch the common slips.
            stripped = CLOZE_RE.sub("", text)
            bad = re.search(r"\{\{\s*c\d+\s*:(?!:)|\{\{c\d+::", stripped)
            if bad:
                self.problem(
                    item.key_line("text"),
                    f"malformed cloze near '{stripped[bad.start() : bad.start() + 20]}'; "
                    "write {{c1::answer}} with two colons and closing '}}'",
                )
        return ClozeNote(**common, text=text, extra=self.text(item, "extra"))  # type: ignore[arg-type]
