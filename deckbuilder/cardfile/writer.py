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
from collections.abc import Sequence
from typing import Any

import yaml

from deckbuilder.cardfile.keys import (
    CHOICE,
    DECK,
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
    McqNote,
    Note,
    StudySettings,
    TypedAnswer,
    TypedNote,
    letter,
)

__all__ = ["card_file_text"]


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
        "study": _study(deck.study, deck),
        "notes": [],  # written below, one note at a time
    }
    document = _mapping(DECK, values)
    del document["notes"]
    comment = "".join(
        f"# {_NOT_IN_COMMENT.sub(chr(0xFFFD), line)}".rstrip() + "\n"
        for entry in header
        for line in entry.splitlines() or [""]
    )
    # Each note is dumped as a list of one and indented under 'notes:', so that a blank
    # line can stand between notes (the emitter writes none).
    notes = "\n".join(_indented(_dump([_note(note)])) for note in deck.notes)
    return comment + _dump(document) + "notes:\n" + notes


def _dump(data: Any) -> str:
    text: str = yaml.dump(
        data,
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,  # never fold a long line
    )
    # libyaml ends a document after a kept '|+' block: a line of its own, unindented.
    return text[: -len("...\n")] if text.endswith("\n...\n") else text


def _indented(text: str) -> str:
    """``text`` two spaces further in (block scalars included, which keep their relative
    indentation), empty lines left empty."""
    return "".join(f"  {line}" if line != "\n" else line for line in text.splitlines(True))


_Base: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_Base):  # type: ignore[misc]
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
    node = dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=True)
    return node


_Dumper.add_representer(_Number, _represent_number)
_Dumper.add_representer(_Literal, _represent_literal)
_Dumper.add_representer(_Quoted, _represent_quoted)
_Dumper.add_representer(_FlowList, _represent_flow_list)
_Dumper.add_representer(_FlowMap, _represent_flow_map)

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


def _note(note: Note) -> dict[str, Any]:
    values: dict[str, Any] = {
        "id": note.id,
        "guid": note.guid or None,
        "type": note.kind.value,
        "tags": _flow(note.tags),
        "lint": _flow(note.lint_ignored),
    }
    if isinstance(note, McqNote):
        letters = [letter(i) for i in note.answer]
        values |= {
            "question": _required(note.question),
            "choices": [_choice(note, i) for i in range(len(note.choices))],
            "answer": letters[0] if len(letters) == 1 else _flow(letters) or [],
            "explanation": _text(note.explanation),
            "shuffle": note.shuffle,
        }
    elif isinstance(note, ClozeNote):
        values |= {"text": _required(note.text), "extra": _text(note.extra)}
    elif isinstance(note, BasicNote):
        values |= {
            "front": _required(note.front),
            "back": _required(note.back),
            "reverse": note.reverse if note.add_reverse is None else None,
            "add_reverse": None if note.add_reverse is None else _required(note.add_reverse),
        }
    elif isinstance(note, TypedNote):
        answers = [_typed_answer(answer) for answer in note.answers]
        values |= {
            "question": _required(note.question),
            "answer": answers[0] if len(answers) == 1 else answers,
            "explanation": _text(note.explanation),
            "match_case": note.match_case,
        }
    return _mapping(note_keys(note.kind), values)


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
