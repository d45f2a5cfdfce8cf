"""A model :class:`~deckbuilder.model.Deck` -> card-file YAML: :func:`card_file_text`.

The file reads like one written by hand: keys in the order the format declares them
(:mod:`.keys`), values equal to their default left out, notes in order with a blank line
between them, multi-line text as ``|`` blocks, quotes only where YAML needs them, Unicode
as is. PyYAML writes it, with libyaml's emitter where installed: the same YAML 1.1 the
loader reads, so what needs quotes for one needs them for the other, and an import of
thousands of notes is written in a fraction of a second.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

import yaml

from deckbuilder.cardfile.keys import (
    CARD_TEMPLATE,
    CHOICE,
    DECK,
    FIELDS,
    MASK,
    NOTE_FIRST,
    NOTE_LAST,
    NOTE_TYPE_DECLARATION,
    NUMBER,
    NUMBER_PATTERN,
    STUDY,
    Key,
    note_keys,
    step_text,
)
from deckbuilder.model import (
    BasicNote,
    ClozeNote,
    Deck,
    FieldsNote,
    ImageOcclusionNote,
    McqNote,
    Note,
    NoteKind,
    StudySettings,
    TypedAnswer,
    TypedNote,
    letter,
)
from deckbuilder.note_types import NoteType
from deckbuilder.occlusion import DEFAULT_TEXT_SIZE, Label, Mask, MaskShape


def card_file_text(deck: Deck, header: Sequence[str] = ()) -> str:
    """The card file of ``deck`` (one language: a deck read in one language of a
    bilingual file is written with ``languages: [<it>]``), with ``header`` as comment
    lines at the top. Loading the text gives the deck back (its lines aside)."""
    values: dict[str, Any] = {
        "deck": _in_language(deck, deck.name),
        "id": deck.key.removesuffix(f".{deck.lang}") if deck.lang else deck.key,
        "languages": _flow([deck.lang]) if deck.lang else None,
        "label_language": None if deck.lang else deck.label_language or None,
        "description": _text(deck.description),
        "tags": _flow(deck.tags),
        "missing_media": _flow(deck.missing_media),
        "speak_language": _in_language(deck, deck.speak_language) if deck.speak_language else None,
        "study": _study(deck.study, deck),
        "note_types": {t.key: _declaration(t) for t in (*deck.kept_types, *deck.note_types)}
        or None,
        "notes": [],  # written below, one note at a time
    }
    document = _mapping(DECK, values)
    del document["notes"]
    comment = _comment(header)
    # Each note is dumped as a list of one and indented under 'notes:', so that a blank
    # line can stand between notes (the emitter writes none).
    notes = "\n".join(_indented(_dump([note_values(note)])) for note in deck.notes)
    return comment + _dump(document) + "notes:\n" + notes


def note_type_file_text(note_type: NoteType, header: Sequence[str] = ()) -> str:
    """The ``note-types/<key>.yaml`` file of ``note_type``, with ``header`` as comment
    lines at the top: what a card file's ``note_types:`` would say under its key."""
    return _comment(header) + _dump(_declaration(note_type))


def _comment(header: Sequence[str]) -> str:
    return "".join(
        f"# {_NOT_IN_COMMENT.sub(chr(0xFFFD), line)}".rstrip() + "\n"
        for entry in header
        for line in entry.splitlines() or [""]
    )


def note_item_text(note: Note, column: int) -> str:
    """A note as an item of a ``notes:`` list whose dashes are at ``column``."""
    return _shifted(_dump([note_values(note)]), column)


def block_value_text(value: Any, column: int) -> str:
    """``value`` as written after ``key:`` in a block mapping whose keys are at
    ``column``: `` text`` on the same line, or a block (``|``, a mapping, a list) on the
    lines after, indented from ``column``. Ends with a line break."""
    return _shifted(_dump({"k": value}), column)[len("k:") :]


def item_value_text(value: Any, column: int) -> str:
    """``value`` as written after the ``-`` of a block list whose dashes are at
    ``column``; ends with a line break."""
    return _shifted(_dump([value]), column)[len("-") :]


def flow_value_text(value: Any) -> str:
    """``value`` as written inside a flow collection (``[a, b]``, ``{k: v}``): on one line,
    quoted where a flow collection needs it (a text with lines: in double quotes)."""
    text = _yaml_text([value], default_flow_style=True)
    return text.strip()[1:-1]


def quoted_text(text: str) -> str:
    """``text`` in double quotes, escaped: the form that may stand before a comment on its
    line (the loader takes a plain text followed by ' #' for a mistake)."""
    quoted = flow_value_text(_Quoted(text))
    # Both emitters escape a character above U+FFFF in double quotes; YAML holds it as it is.
    return _ESCAPE.sub(lambda m: m[1] or chr(int(m[2], 16)), quoted)


# An escape in double quotes: a backslash kept, or a character above U+FFFF.
_ESCAPE = re.compile(r"(\\\\)|\\U([0-9A-F]{8})")


def _shifted(text: str, column: int) -> str:
    """``text`` with every line but the first moved ``column`` spaces in (empty lines
    left empty)."""
    if not column:
        return text
    first, _, rest = text.partition("\n")
    pad = " " * column
    moved = "".join(pad + line if line != "\n" else line for line in rest.splitlines(True))
    return f"{first}\n{moved}"


def _dump(data: Any) -> str:
    text = _yaml_text(data, default_flow_style=False)
    # libyaml ends a document after a kept '|+' block: a line of its own, unindented.
    return text[: -len("...\n")] if text.endswith("\n...\n") else text


def _yaml_text(data: Any, default_flow_style: bool) -> str:
    options: dict[str, Any] = {
        "allow_unicode": True,
        "sort_keys": False,
        "default_flow_style": default_flow_style,
        "width": 1 << 30,  # never fold a long line
    }
    text: str = yaml.dump(data, Dumper=_Dumper, **options)
    if "\\U" in text:
        # libyaml takes every character above U+FFFF (an emoji, a math letter (U+1D465),
        # a rare Hanja) for unprintable: it escapes it, and so quotes a plain text and
        # gives up a block. PyYAML's own emitter writes them as they are.
        text = yaml.dump(data, Dumper=_PyDumper, **options)
    return text


def _indented(text: str) -> str:
    """``text`` two spaces further in (block scalars included, which keep their relative
    indentation), empty lines left empty."""
    return "".join(f"  {line}" if line != "\n" else line for line in text.splitlines(True))


_Base: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_Base):  # type: ignore[misc]
    pass


class _PyDumper(yaml.SafeDumper):
    pass


class _Number(str):
    """A number as written in the card file ("3.1416"), written without quotes."""


class _Literal(str):
    """Text written as a ``|`` block."""


class _Quoted(str):
    """Text written in double quotes, escaped: the form that keeps any character."""


class _FlowList(list[Any]):
    """A list written ``[a, b]``."""


class _FlowMap(dict[str, Any]):
    """A mapping written ``{a: 1}``."""


def _represent_number(dumper: yaml.SafeDumper, data: _Number) -> yaml.ScalarNode:
    tag = "int" if data.lstrip("+-").isdigit() else "float"
    return dumper.represent_scalar(f"tag:yaml.org,2002:{tag}", str(data))


def _represent_literal(dumper: yaml.SafeDumper, data: _Literal) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style="|")


def _represent_quoted(dumper: yaml.SafeDumper, data: _Quoted) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')


def _represent_flow_list(dumper: yaml.SafeDumper, data: _FlowList) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


def _represent_flow_map(dumper: yaml.SafeDumper, data: _FlowMap) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=True)


for _dumper in (_Dumper, _PyDumper):
    _dumper.add_representer(_Number, _represent_number)
    _dumper.add_representer(_Literal, _represent_literal)
    _dumper.add_representer(_Quoted, _represent_quoted)
    _dumper.add_representer(_FlowList, _represent_flow_list)
    _dumper.add_representer(_FlowMap, _represent_flow_map)

_NUMBER = re.compile(f"(?:{NUMBER_PATTERN})\\Z")
# Characters a block scalar cannot keep: YAML reads the line breaks NEL, LS and PS (and a
# carriage return) as line feeds; the others are not printable in YAML.
_NOT_IN_BLOCK = re.compile(
    r"[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]"
)
# Characters a YAML file cannot hold (a comment is no place to escape them).
_NOT_IN_COMMENT = re.compile(r"[^\t\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(text: str) -> str | None:
    """A text field's value: None (left out) when empty; a ``|`` block when it has lines."""
    if not text:
        return None
    if _NOT_IN_BLOCK.search(text) or text.lstrip(" \n").startswith("\t"):
        # A block cannot start with a tab either: YAML takes it for its indentation.
        return _Quoted(text)  # escaped: the only form that keeps them
    if "\n" in text.rstrip("\n") or (text.endswith("\n") and text.strip()):
        return _Literal(text)
    return text


def _required(text: str) -> str:
    """A required text's value: written even when empty."""
    return _text(text) or text


def _in_language(deck: Deck, text: str) -> Any:
    if not deck.lang:
        return _required(text)
    return {deck.lang: _required(text)}


def _flow(items: Sequence[Any]) -> _FlowList | None:
    """``items`` as ``[a, b]`` (None when there are none)."""
    return _FlowList(items) if items else None


def _mapping(keys: Sequence[Key], values: dict[str, Any]) -> dict[str, Any]:
    """``values`` in the declared order of ``keys``, less those None or equal to the key's
    default."""
    out: dict[str, Any] = {}
    for key in keys:
        value = values.get(key.name)
        if value is None or (key.default is not None and value == key.default):
            continue
        out[key.name] = value
    return out


def _study(study: StudySettings | None, deck: Deck) -> dict[str, Any] | None:
    if study is None:
        return None
    history = None
    if study.history is not None:
        history = os.path.relpath(study.history, deck.source.parent)
    values: dict[str, Any] = {
        "new_per_day": study.new_per_day,
        "review_limit": study.review_limit,
        "desired_retention": study.desired_retention,
        "learning_steps": _steps(study.learning_steps),
        "relearning_steps": _steps(study.relearning_steps),
        "maximum_interval": study.maximum_interval,
        "params": _flow(study.parameters) if study.parameters is not None else None,
        "history": history,
    }
    defaults = {key.name: key.default for key in STUDY}
    for name in ("learning_steps", "relearning_steps"):
        if getattr(study, name) == defaults[name]:
            values[name] = None
    # 'study: {}' when empty: Anki's defaults, said on purpose.
    return _mapping(STUDY, values)


def _steps(steps: tuple[float, ...]) -> _FlowList:
    return _FlowList(step_text(step) for step in steps)


def _declaration(note_type: NoteType) -> dict[str, Any]:
    """A note type of the deck's own, as ``note_types:`` declares it."""
    cards = [
        _mapping(
            CARD_TEMPLATE, {"name": t.name, "front": _required(t.front), "back": _required(t.back)}
        )
        for t in note_type.templates
    ]
    values: dict[str, Any] = {
        "name": note_type.name if note_type.name != note_type.key else None,
        "fields": _FlowList(note_type.fields),
        "sort_field": note_type.fields[note_type.sort_field] if note_type.sort_field else None,
        "kind": note_type.kind.value,
        "cards": cards,
        "css": _text(note_type.css),
        "raw": _flow([name for name in note_type.fields if name in note_type.raw]),
        "anki_id": note_type.anki_id or None,
        "keep_scripts": note_type.keep_scripts,
    }
    return _mapping(NOTE_TYPE_DECLARATION, values)


def note_values(note: Note) -> dict[str, Any]:
    """A note's keys and values as the card file writes them, in the declared order,
    without those left out (defaults, empty texts). Values are those the writer dumps:
    texts (a ``|`` block where they have lines), lists and mappings, flow lists."""
    values: dict[str, Any] = {
        "id": note.id,
        "guid": note.guid or None,
        "type": note.type_key,
        "tags": _flow(note.tags),
        "speak": _flow(note.speak),
        "lint": _flow(note.lint_ignored),
    }
    if isinstance(note, FieldsNote):
        values["fields"] = {
            name: _text(text)
            for name, text in zip(note.note_type.fields, note.fields, strict=True)
            if text
        }
        return _mapping((*NOTE_FIRST, FIELDS, *NOTE_LAST), values)
    values |= _OWN_VALUES[note.kind](note)
    return _mapping(note_keys(note.kind), values)


def _mcq(note: McqNote) -> dict[str, Any]:
    letters = [letter(i) for i in note.answer]
    return {
        "question": _required(note.question),
        "choices": [_choice(note, i) for i in range(len(note.choices))],
        "answer": letters[0] if len(letters) == 1 else _flow(letters) or [],
        "explanation": _text(note.explanation),
        "shuffle": note.shuffle,
    }


def _cloze(note: ClozeNote) -> dict[str, Any]:
    return {"text": _required(note.text), "extra": _text(note.extra)}


def _basic(note: BasicNote) -> dict[str, Any]:
    return {
        "front": _required(note.front),
        "back": _required(note.back),
        "reverse": note.reverse if note.add_reverse is None else None,
        "add_reverse": None if note.add_reverse is None else _required(note.add_reverse),
    }


def _occlusion(note: ImageOcclusionNote) -> dict[str, Any]:
    return {
        "image": note.image,
        "header": _text(note.header),
        "back_extra": _text(note.back_extra),
        "comments": _text(note.comments),
        "mode": note.mode.value,
        "masks": _masks(note),
    }


def _typed(note: TypedNote) -> dict[str, Any]:
    answers = [_typed_answer(answer) for answer in note.answers]
    return {
        "question": _required(note.question),
        "answer": answers[0] if len(answers) == 1 else answers,
        "explanation": _text(note.explanation),
        "match_case": note.match_case,
    }


# The values of each built-in note type's own keys (keys.NOTE_TYPES), by its notes' kind.
_OWN_VALUES: dict[NoteKind, Callable[[Any], dict[str, Any]]] = {
    NoteKind.MCQ: _mcq,
    NoteKind.CLOZE: _cloze,
    NoteKind.BASIC: _basic,
    NoteKind.TYPED: _typed,
    NoteKind.IMAGE_OCCLUSION: _occlusion,
}


def _pixels(value: float) -> _Number:
    """A position or size in pixels, as short as it reads back the same."""
    return _Number(f"{value:.4f}".rstrip("0").rstrip("."))


def _masks(note: ImageOcclusionNote) -> list[dict[str, Any]]:
    """The masks and labels; a mask's card only where the loader would not give it that
    one (the card after the highest before it)."""
    out: list[dict[str, Any]] = []
    highest = 0
    for shape in note.shapes:
        if isinstance(shape, Label):
            size = None if shape.size == DEFAULT_TEXT_SIZE else _pixels(shape.size)
            at = _FlowList([_pixels(shape.left), _pixels(shape.top)])
            out.append(_mapping(MASK, {"text": _required(shape.text), "at": at, "size": size}))
            continue
        assert isinstance(shape, Mask)
        if shape.shape is MaskShape.POLYGON:
            drawn: Any = _FlowList(_FlowList([_pixels(x), _pixels(y)]) for x, y in shape.points)
        else:
            drawn = _FlowList(_pixels(value) for value in shape.values)
        card = shape.card if shape.card != highest + 1 else None
        highest = max(highest, shape.card)
        out.append(_mapping(MASK, {shape.shape.value: drawn, "card": card}))
    return out


def _choice(note: McqNote, index: int) -> Any:
    """A choice: its text, or ``{text:, feedback:, pin:}`` when it has more."""
    text = _required(note.choices[index])
    feedback = note.choice_feedback(index)
    pinned = index in note.pinned
    if not feedback and not pinned:
        return text
    return _mapping(CHOICE, {"text": text, "feedback": _text(feedback), "pin": pinned})


def _typed_answer(answer: TypedAnswer) -> Any:
    """A text, or the number mapping the answer's shown form was read from (a number
    shown otherwise is written from its bounds)."""
    if not answer.is_number:
        return _required(answer.text)
    assert answer.low is not None and answer.high is not None
    number, tolerance, low, high, unit = (key.name for key in NUMBER)
    value, _, around = answer.shown.partition(" \u00b1 ")
    start, _, end = answer.shown.partition(" \u2013 ")
    written: dict[str, _Number | str | None]
    if _NUMBER.match(value) and (not around or _NUMBER.match(around)):
        written = {number: _Number(value), tolerance: _Number(around) if around else None}
    elif _NUMBER.match(start) and _NUMBER.match(end):
        written = {low: _Number(start), high: _Number(end)}
    elif answer.low == answer.high:
        written = {number: _Number(repr(answer.low))}
    else:
        written = {low: _Number(repr(answer.low)), high: _Number(repr(answer.high))}
    if answer.unit:
        written[unit] = answer.unit
    return _FlowMap((k, v) for k, v in written.items() if v is not None)
