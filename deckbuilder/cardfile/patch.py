"""A card file changed in place: some notes' values replaced, notes added or removed, and
every other byte kept (comments, key order, quoting, block scalars, blank lines).

Round-tripping the YAML through a library (load, change, dump) writes the whole file
again in that library's style: indentation, line width and spacing normalised
throughout. Here the file is parsed only to find where each value is (libyaml's marks:
character offsets), and the text of exactly the values that change is spliced in,
written as :mod:`deckbuilder.cardfile.writer` writes it (the style ``import`` writes):
a text with lines as a ``|`` block, quotes only where YAML needs them.

What changes is found by comparing a note's values before and after, as the writer
gives them (:func:`~deckbuilder.cardfile.writer.note_values`): an unchanged key keeps its
bytes, whatever form the author wrote it in; a changed text inside a list or mapping is
replaced alone. In a deck with ``languages:``, a note read in one language changes only
that language's text: the entry of a language map, or a text shared by every language
made a map that keeps the others' text. What cannot be changed in place without
changing more than the note (a YAML anchor or alias), or without losing another
language's text (choices added or removed in one language), is refused with why.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.error import Mark
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from deckbuilder.cardfile.fields import LOCALIZED_KEYS
from deckbuilder.cardfile.writer import (
    block_value_text,
    flow_value_text,
    item_value_text,
    note_item_text,
    note_values,
    quoted_text,
)
from deckbuilder.model import Note

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_BLANK = re.compile(r"[ \t]*\Z")
_COMMENT_LINE = re.compile(r"[ \t]*(#.*)?\Z")
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_AFTER_VALUE = re.compile(r"[ \t]*(#[^\n]*)?")  # what may follow a value on its line
_BLOCK_HEADER = re.compile(r"[ \t]*(?:[|>][-+0-9]*[ \t]*)?(#[^\n]*)?")  # a block's first line
# Why a value an alias repeats (a node somewhere else in the file) is not changed.
_ALIAS = "it uses a YAML alias (*), which repeats another place; edit it by hand"


class CannotPatch(Exception):
    """A change that cannot be made in place; the message says why."""


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class _Slot:
    """Where a value sits: after ``key:`` in a mapping (``key`` set), or after ``-`` in a
    list; in flow context or in block context, whose keys or dashes are at ``column``."""

    node: Node
    key: ScalarNode | None
    column: int
    flow: bool


class CardFilePatch:
    """The text of one card file, and the changes to make to it."""

    def __init__(self, text: str, file: str, note_lines: Mapping[str, int] | None = None) -> None:
        """``note_lines``: the line each note starts at, as the loader found them. With
        them, only the notes that change are parsed again (a large deck's file is parsed
        once, by the loader); the whole file is parsed when a note's lines cannot be
        read alone, and to add or remove notes."""
        self.text = text
        self.file = file
        self.edits: list[_Edit] = []
        self.notes: dict[str, MappingNode] = {}
        self.removed: set[str] = set()  # note ids
        self._notes_node: SequenceNode | None = None
        self._note_lines = dict(note_lines) if note_lines is not None else None
        self._sorted_lines = sorted(self._note_lines.values()) if self._note_lines else []
        self._line_starts: list[int] = []
        if self._note_lines is None:
            self._parse_all()

    def _parse_all(self) -> SequenceNode:
        if self._notes_node is not None:
            return self._notes_node
        root = yaml.compose(self.text, Loader=_Loader)
        notes = _get(root, "notes") if isinstance(root, MappingNode) else None
        if not isinstance(notes, SequenceNode):
            raise CannotPatch("the file has no list of notes")
        self._notes_node = notes
        self._note_lines = None
        self.notes = {}
        for item in notes.value:
            note_id = _get(item, "id") if isinstance(item, MappingNode) else None
            if isinstance(note_id, ScalarNode):
                self.notes[note_id.value] = item
        return notes

    def note_node(self, note_id: str) -> MappingNode | None:
        """The mapping of note ``note_id``, its marks where they are in the whole text."""
        found = self.notes.get(note_id)
        if found is not None or self._note_lines is None:
            return found
        line = self._note_lines.get(note_id)
        if line is None:
            return None
        if not self._line_starts:
            self._line_starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        following = bisect.bisect_right(self._sorted_lines, line)
        start = self._line_starts[line - 1]
        end = (
            self._line_starts[self._sorted_lines[following] - 1]
            if following < len(self._sorted_lines)
            else len(self.text)
        )
        try:
            root = yaml.compose(self.text[start:end], Loader=_Loader)
        except yaml.YAMLError:  # the last note, followed by other keys of the deck
            root = None
        item = root.value[0] if isinstance(root, SequenceNode) and len(root.value) == 1 else root
        key = _get(item, "id") if isinstance(item, MappingNode) else None
        if (
            not isinstance(item, MappingNode)
            or not isinstance(key, ScalarNode)
            or key.value != note_id
        ):
            self._parse_all()
            return self.notes.get(note_id)
        _shift(item, start, line - 1)
        self.notes[note_id] = item
        return item

    # -- what changes ---------------------------------------------------------------------

    def change_note(
        self, note_id: str, old: Note, new: Note, lang: str = "", languages: Sequence[str] = ()
    ) -> None:
        """Make note ``note_id`` (read as ``old``) read as ``new``; in a deck with
        ``languages``, ``old`` and ``new`` are the note in ``lang``. Raises CannotPatch,
        changing nothing, when that cannot be done in place."""
        node = self.note_node(note_id)
        if node is None:
            raise CannotPatch(f"note '{note_id}' is not in the file")
        changer = _Changer(self.text, lang, tuple(languages))
        changer.check_anchor(node)
        changer.mapping(node, note_values(old), note_values(new), ())
        self._add(changer.edits)

    def add_note(self, note: Note) -> None:
        """Append ``note`` to the notes, after a blank line as the others are."""
        notes = self._parse_all()
        items = notes.value
        if notes.flow_style or not items:
            raise CannotPatch("the notes are not written as a block list ('- id: ...' lines)")
        first = items[0]
        column = _dash_column(self.text, first)
        end = _block_end(self.text, notes)
        separated = len(items) < 2 or "\n\n" in self.text[
            _block_end(self.text, first) - 1 : _line_start(self.text, items[1].start_mark.index)
        ].replace(" ", "")
        prefix = "" if end == 0 or self.text[end - 1] == "\n" else "\n"
        text = prefix + ("\n" if separated else "") + " " * column
        self._add([_Edit(end, end, text + note_item_text(note, column))])

    def remove_note(self, note_id: str) -> None:
        """Remove note ``note_id`` with its lines (and one blank line beside it)."""
        notes = self._parse_all()
        node = self.notes.get(note_id)
        if node is None:
            raise CannotPatch(f"note '{note_id}' is not in the file")
        if notes.flow_style:
            raise CannotPatch("the notes are not written as a block list ('- id: ...' lines)")
        if len(notes.value) - len(self.removed) <= 1:
            # A card file without notes is refused by every command that reads it.
            raise CannotPatch(
                "it is the card file's last note, and a card file needs one: delete the card "
                "file and its lock file yourself"
            )
        self.removed.add(note_id)
        start = _line_start(self.text, node.start_mark.index)
        end = _block_end(self.text, node)
        if self.text.startswith("\n", end):
            end += 1
        elif start >= 2 and self.text[start - 2 : start] == "\n\n":
            start -= 1
        self._add([_Edit(start, end, "")])

    def diff(self, before: str, after: str, context: int = 3) -> str:
        """The changes as a unified diff (``before`` and ``after`` name the two files),
        made from the changed lines alone: diffing the whole file compares every line of
        a large deck with every other."""
        lines = self.text.splitlines(True)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        hunks: list[tuple[int, int, list[_Edit]]] = []  # old lines [first, last), edits
        for edit in sorted(self.edits, key=lambda e: (e.start, e.end)):
            first = bisect.bisect_right(starts, edit.start) - 1
            last = max(first + 1, bisect.bisect_left(starts, edit.end))
            if hunks and first <= hunks[-1][1] + 2 * context:
                hunks[-1] = (hunks[-1][0], max(last, hunks[-1][1]), [*hunks[-1][2], edit])
            else:
                hunks.append((first, last, [edit]))
        out = [f"--- {before}\n", f"+++ {after}\n"] if hunks else []
        shift = 0  # new lines minus old lines before the hunk
        for first, last, edits in hunks:
            first = min(first, len(lines))
            last = min(last, len(lines))
            window_start = starts[first]
            window = self.text[window_start : starts[last]]
            changed, at = [], 0
            for edit in edits:
                changed.append(window[at : edit.start - window_start])
                changed.append(edit.text)
                at = edit.end - window_start
            changed.append(window[at:])
            old = lines[first:last]
            new = "".join(changed).splitlines(True)
            top = max(0, first - context)
            bottom = min(len(lines), last + context)
            head, tail = lines[top:first], lines[last:bottom]
            for line in difflib.unified_diff(head + old + tail, head + new + tail, n=context):
                found = _HUNK.match(line)
                if found is not None:  # the window's line numbers, made the file's
                    a, b, c, d = found.groups()
                    line = f"@@ -{int(a) + top},{b or 1} +{int(c) + top + shift},{d or 1} @@\n"
                elif line.startswith(("---", "+++")):
                    continue
                out.append(line)
            shift += len(new) - len(old)
        return "".join(line if line.endswith("\n") else line + "\n" for line in out)

    def result(self) -> str:
        """The text with every change made."""
        out = []
        at = 0
        for edit in sorted(self.edits, key=lambda e: (e.start, e.end)):
            out.append(self.text[at : edit.start])
            out.append(edit.text)
            at = edit.end
        out.append(self.text[at:])
        return "".join(out)

    def _add(self, edits: list[_Edit]) -> None:
        """Add one note's edits, all or none. The same edit twice is made once (two
        languages' decks of one card file may change a value they share alike)."""
        fresh = [edit for edit in edits if edit not in self.edits]
        for number, edit in enumerate(fresh):
            for other in fresh[:number]:
                if edit.start < other.end and other.start < edit.end:  # pragma: no cover
                    raise CannotPatch("two changes to the same value (a deckbuilder bug)")
            for other in self.edits:
                if edit.start < other.end and other.start < edit.end:
                    raise CannotPatch(
                        "another language's deck changed the same value otherwise (tags or "
                        "answers, which the languages share); settle it in the card file"
                    )
        self.edits.extend(fresh)


class _Changer:
    """The edits that change one note's values."""

    def __init__(self, text: str, lang: str, languages: tuple[str, ...]) -> None:
        self.text = text
        self.lang = lang
        self.languages = languages
        self.edits: list[_Edit] = []

    def check_anchor(self, node: Node) -> None:
        if self.text.startswith("&", node.start_mark.index):
            raise CannotPatch(
                "it uses a YAML anchor (&), which other places may repeat; edit it by hand"
            )

    # -- by shape -----------------------------------------------------------------------

    def value(self, slot: _Slot, old: Any, new: Any, path: tuple[str, ...]) -> None:
        """Change the value in ``slot`` from ``old`` to ``new`` (writer values)."""
        if old == new:
            return
        node = slot.node
        self.check_anchor(node)
        if (
            isinstance(new, dict)
            and isinstance(old, dict)
            and isinstance(node, MappingNode)
            and not self.is_language_map(node, new)
        ):
            self.mapping(node, old, new, path)
            return
        if (
            isinstance(new, list)
            and isinstance(old, list)
            and isinstance(node, SequenceNode)
            and len(old) == len(new) == len(node.value)
        ):
            for index, (item, before, after) in enumerate(zip(node.value, old, new, strict=True)):
                self.value(self.item_slot(node, item), before, after, (*path, str(index)))
            return
        if isinstance(new, str) and self.localized(path):
            self.text_in_language(slot, old, new, path)
            return
        if self.localized(path):
            raise CannotPatch(
                f"its {_shown(path)} changed shape in one language (choices added or removed, "
                "say); the other languages' texts cannot follow: edit it by hand"
            )
        self.replace(slot, new)

    def mapping(
        self, node: MappingNode, old: dict[str, Any], new: dict[str, Any], path: tuple[str, ...]
    ) -> None:
        entries = _entries(node)
        for key_node, value_node in entries.values():
            self.check_inside(node, key_node, value_node)
        keys = list(new) + [key for key in old if key not in new]
        for key in keys:
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            where = (*path, key)
            if key in entries:
                key_node, value_node = entries[key]
                slot = self.key_slot(node, key_node, value_node)
                if after is None:
                    self.remove(node, slot, before, where)
                else:
                    self.value(slot, before, after, where)
            elif after is not None:
                if isinstance(after, str) and self.localized(where):
                    # New in this language only: the others' text stays empty.
                    after = {code: after if code == self.lang else "" for code in self.languages}
                self.insert(node, key, after, new, where)

    # -- texts in languages -------------------------------------------------------------

    def localized(self, path: tuple[str, ...]) -> bool:
        """Whether the text at ``path`` may differ by language (in a deck with languages)."""
        return bool(self.lang) and any(part in LOCALIZED_KEYS for part in path)

    def is_language_map(self, node: MappingNode, new: Any) -> bool:
        if not self.lang or isinstance(new, dict):
            return False
        keys = {key.casefold() for key in _entries(node)}
        return bool(keys) and keys <= {code.casefold() for code in self.languages}

    def text_in_language(self, slot: _Slot, old: Any, new: str, path: tuple[str, ...]) -> None:
        node = slot.node
        if isinstance(node, MappingNode) and self.is_language_map(node, new):
            entries = _entries(node)
            found = next((k for k in entries if k.casefold() == self.lang.casefold()), None)
            if found is None:
                self.insert(node, self.lang, new, {self.lang: new}, path)
                return
            key_node, value_node = entries[found]
            self.check_anchor(value_node)
            self.replace(self.key_slot(node, key_node, value_node), new)
            return
        # A text every language shares: a map from now on, the others' text as it was.
        self.replace(slot, {code: (new if code == self.lang else old) for code in self.languages})

    # -- edits --------------------------------------------------------------------------

    def replace(self, slot: _Slot, value: Any) -> None:
        """The value in ``slot`` written anew."""
        node, text = slot.node, self.text
        end = _value_end(text, node)
        if slot.flow:
            self.edits.append(_Edit(node.start_mark.index, end, flow_value_text(value)))
            return
        if slot.key is not None:
            written = block_value_text(value, slot.column)
            start = text.index(":", slot.key.end_mark.index) + 1
        else:
            written = item_value_text(value, slot.column)
            start = _dash_index(text, node) + 1
        one_line = "\n" not in text[node.start_mark.index : end] and not _is_block(node)
        if one_line and written.count("\n") == 1 and written.startswith(" "):
            # Only the value itself: what follows it on its line (a comment) stays, after
            # a quoted text where the writer's would be plain and one space comes before
            # the '#' (the loader takes a plain text followed by ' #' for a mistake).
            value_text = written.strip(" \n")
            after = _AFTER_VALUE.match(text, end)
            gap = len(after.group(0)) - len(after.group(1)) if after and after.group(1) else 2
            if gap < 2 and isinstance(value, str) and value_text == value:
                value_text = quoted_text(value)
            self.edits.append(_Edit(node.start_mark.index, end, value_text))
            return
        if _is_block(node):
            # A block's own comment is on its first line, after 'key:' and any '|' or '>';
            # a comment after its last line is the next line's, and stays where it is.
            header = _BLOCK_HEADER.match(text, start)
            assert header is not None
            comment = header.group(1) or ""
            line_end = end
        else:
            after = _AFTER_VALUE.match(text, end)
            assert after is not None
            comment = after.group(1) or ""
            line_end = after.end()
            if text.startswith("\n", line_end):
                line_end += 1
        if comment:
            head, _, rest = written.partition("\n")
            if not head.strip() or head.strip()[0] in "|>":
                written = f"{head} {comment}\n{rest}"  # after 'key:' or a block's '|'
            else:  # on a line of its own above: after plain text it would be taken for text
                at = _line_start(text, start)
                self.edits.append(_Edit(at, at, " " * slot.column + comment + "\n"))
        self.edits.append(_Edit(start, line_end, written))

    def insert(
        self, node: MappingNode, key: str, value: Any, order: dict[str, Any], path: tuple[str, ...]
    ) -> None:
        """A new ``key: value`` in the mapping ``node``, after the last key before it in
        ``order`` that the mapping has (else first)."""
        entries = _entries(node)
        if node.flow_style:
            keys = list(entries)
            position = _insert_position(keys, key, order)
            entry = flow_value_text({key: value})[1:-1]
            if position == 0:
                at = next(iter(entries.values()))[0].start_mark.index
                self.edits.append(_Edit(at, at, f"{entry}, "))
            else:
                at = _value_end(self.text, entries[keys[position - 1]][1])
                self.edits.append(_Edit(at, at, f", {entry}"))
            return
        first_key = next(iter(entries.values()))[0]
        column = first_key.start_mark.column
        keys = list(entries)
        position = _insert_position(keys, key, order)
        line = " " * column + key + ":" + block_value_text(value, column)
        if position == 0:
            at = _line_start(self.text, first_key.start_mark.index)
            if self.text[at : first_key.start_mark.index].strip():
                raise CannotPatch(f"its {_shown(path)} cannot go before the first key")
            self.edits.append(_Edit(at, at, line))
            return
        _, before_value = entries[keys[position - 1]]
        at = self.line_after(before_value)
        prefix = "" if at == 0 or self.text[at - 1] == "\n" else "\n"
        self.edits.append(_Edit(at, at, prefix + line))

    def remove(self, node: MappingNode, slot: _Slot, old: Any, path: tuple[str, ...]) -> None:
        """The entry of ``slot`` out of the mapping ``node`` (in a deck with languages, a
        text only for this language: it becomes empty there)."""
        value_node = slot.node
        if self.localized(path) and isinstance(old, str):
            self.text_in_language(slot, old, "", path)
            return
        key_node = slot.key
        assert key_node is not None
        if node.flow_style:
            pairs = list(_entries(node).values())
            index = next(i for i, (k, _) in enumerate(pairs) if k is key_node)
            if index > 0:  # from the end of the entry before it
                start = _value_end(self.text, pairs[index - 1][1])
                self.edits.append(_Edit(start, _value_end(self.text, value_node), ""))
            elif len(pairs) > 1:  # up to the next entry
                self.edits.append(
                    _Edit(key_node.start_mark.index, pairs[1][0].start_mark.index, "")
                )
            else:
                self.edits.append(
                    _Edit(key_node.start_mark.index, _value_end(self.text, value_node), "")
                )
            return
        start = _line_start(self.text, key_node.start_mark.index)
        if self.text[start : key_node.start_mark.index].strip():
            raise CannotPatch(f"its {_shown(path)} is on the line of another key")
        self.edits.append(_Edit(start, self.line_after(value_node), ""))

    def line_after(self, node: Node) -> int:
        """Where the line after ``node``'s value starts."""
        end = _value_end(self.text, node)
        if _is_block(node):
            return end
        after = _AFTER_VALUE.match(self.text, end)
        assert after is not None
        at = after.end()
        return at + 1 if self.text.startswith("\n", at) else at

    # -- slots --------------------------------------------------------------------------

    def key_slot(self, parent: MappingNode, key: ScalarNode, value: Node) -> _Slot:
        return _Slot(value, key, key.start_mark.column, bool(parent.flow_style))

    def item_slot(self, parent: SequenceNode, item: Node) -> _Slot:
        if item.start_mark.index < parent.start_mark.index:
            raise CannotPatch(_ALIAS)
        if parent.flow_style:
            return _Slot(item, None, 0, True)
        return _Slot(item, None, _dash_column(self.text, item), False)

    def check_inside(self, node: MappingNode, key: ScalarNode, value: Node) -> None:
        """An alias (``*name``) is the node it names, somewhere else in the file."""
        if (
            value.start_mark.index < key.end_mark.index
            or value.start_mark.index < node.start_mark.index
        ):
            raise CannotPatch(_ALIAS)


# -- positions ----------------------------------------------------------------------------


def _shift(node: Node, index: int, lines: int, seen: set[Node] | None = None) -> None:
    """Marks of a node parsed from a slice of the text (starting at ``index``, line
    ``lines``), made the whole text's; a node an alias repeats is moved once."""
    seen = set() if seen is None else seen
    if node in seen:  # YAML nodes are equal only to themselves
        return
    seen.add(node)
    for name in ("start_mark", "end_mark"):
        mark = getattr(node, name)
        moved = Mark(mark.name, mark.index + index, mark.line + lines, mark.column, "", 0)
        setattr(node, name, moved)
    if isinstance(node, MappingNode):
        for key, value in node.value:
            _shift(key, index, lines, seen)
            _shift(value, index, lines, seen)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            _shift(item, index, lines, seen)


def _get(node: Node, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            return value_node  # type: ignore[no-any-return]
    return None


def _entries(node: MappingNode) -> dict[str, tuple[ScalarNode, Node]]:
    return {key.value: (key, value) for key, value in node.value if isinstance(key, ScalarNode)}


def _insert_position(keys: list[str], key: str, order: dict[str, Any]) -> int:
    """Where ``key`` goes among ``keys``: after the last of them that comes before it in
    ``order`` (the declared order), else first."""
    wanted = list(order)
    rank = wanted.index(key) if key in wanted else len(wanted)
    position = 0
    for index, existing in enumerate(keys):
        if existing in wanted and wanted.index(existing) < rank:
            position = index + 1
    if not any(existing in wanted for existing in keys):
        position = len(keys)
    return position


def _is_block(node: Node) -> bool:
    """A block scalar (``|``, ``>``) or a block list or mapping: it ends its last line."""
    if isinstance(node, ScalarNode):
        return node.style in ("|", ">")
    return not node.flow_style  # type: ignore[attr-defined]


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _dash_index(text: str, item: Node) -> int:
    """The ``-`` before a block list's item."""
    return text.rfind("-", 0, item.start_mark.index)


def _dash_column(text: str, item: Node) -> int:
    at = _dash_index(text, item)
    return at - _line_start(text, at)


def _value_end(text: str, node: Node) -> int:
    """Where a value ends: a scalar or flow collection where its last character is; a
    block scalar or block collection after the line break of its last line that holds
    more than white space (a block collection: more than a comment)."""
    if not _is_block(node):
        return int(node.end_mark.index)
    return _block_end(text, node)


def _block_end(text: str, node: Node) -> int:
    start, end = node.start_mark.index, node.end_mark.index
    comments = not isinstance(node, ScalarNode)
    pattern = _COMMENT_LINE if comments else _BLANK
    lines_end = end
    while lines_end > start:
        line_start = text.rfind("\n", start, lines_end - 1) + 1
        if line_start <= start:
            break
        line = text[line_start:lines_end].rstrip("\n")
        if not pattern.match(line):
            break
        lines_end = line_start
    if lines_end < len(text) and text[lines_end - 1 : lines_end] != "\n":
        newline = text.find("\n", lines_end)
        lines_end = len(text) if newline < 0 else newline + 1
    return lines_end


def _shown(path: tuple[str, ...]) -> str:
    return ".".join(path) or "value"
