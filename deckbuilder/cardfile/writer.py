"""A model :class:`~deckbuilder.model.Deck` -> card-file YAML: :func:`card_file_text`.

The file reads like one written by hand: keys in the order the format declares them
(:mod:`.keys`), values equal to their default left out, notes in order with a blank line
between them, multi-line text as ``|`` blocks, quotes only where YAML needs them, Unicode
as is. ruamel.yaml writes it.

:func:`format_scalar` is the one-value formatter of the importers' own writer
(:mod:`.records_writer`), which goes when the importers give model notes to
:func:`card_file_text`.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from typing import Any, cast

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

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

__all__ = ["card_file_text", "format_scalar"]


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
        "study": _study(deck.study, deck),
        "notes": _notes(deck.notes),
    }
    document = _mapping(DECK, values)
    # Written as comment lines here: ruamel.yaml leaves a line of white space uncommented.
    comment = "".join(
        f"# {_NOT_IN_COMMENT.sub(chr(0xFFFD), line)}".rstrip() + "\n"
        for entry in header
        for line in entry.splitlines() or [""]
    )
    out = io.StringIO()
    _yaml().dump(document, out)
    return comment + out.getvalue()


def _yaml() -> YAML:
    writer = YAML(typ="rt")
    writer.width = 1 << 30  # never fold a long line
    writer.indent(mapping=2, sequence=4, offset=2)
    writer.Representer = _Representer
    return writer


class _Number(str):
    """A number as written in the card file ("3.1416"), written without quotes."""


class _Representer(RoundTripRepresenter):
    def represent_str(self, data: str) -> Any:
        if not _plain_reads_back(data):
            return self.represent_scalar("tag:yaml.org,2002:str", data, style="'")
        return super().represent_str(data)

    def represent_number(self, data: _Number) -> Any:
        tag = "int" if data.lstrip("+-").isdigit() else "float"
        return self.represent_scalar(f"tag:yaml.org,2002:{tag}", str(data))


_Representer.add_representer(str, _Representer.represent_str)
_Representer.add_representer(_Number, _Representer.represent_number)

_RESOLVER_1_1 = yaml.resolver.Resolver()
_EMITTER = yaml.emitter.Emitter(io.StringIO())
# Text that is plain in both YAML versions and every context: a letter first, no
# indicator inside, no space at either end.
_PLAIN_SAFE = re.compile(r"[^\W\d_](?:[^\x00-\x1f:#,\[\]{}\x7f-\x9f\u2028\u2029\ufeff]*[^\s:,])?")
_NUMBER = re.compile(f"(?:{NUMBER_PATTERN})\\Z")
# Characters a block scalar cannot keep: YAML reads the line breaks NEL, LS and PS (and a
# carriage return) as line feeds; the others are not printable in YAML.
_NOT_IN_BLOCK = re.compile(
    r"[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]"
)


# Characters a YAML file cannot hold (a comment is no place to escape them).
_NOT_IN_COMMENT = re.compile(r"[^\t\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _plain_reads_back(text: str, *, in_flow: bool = False) -> bool:
    """Whether the loader reads ``text`` written without quotes (as a mapping's value, or
    ``in_flow``, an item of ``[a, b]``) as this text. ruamel.yaml writes YAML 1.2, which
    allows more plain text than the YAML 1.1 the loader reads (`yes`, `=`, `[:x]`)."""
    if _PLAIN_SAFE.fullmatch(text):
        return True  # most text: checked here instead of by the emitter, character by character
    analysis = _EMITTER.analyze_scalar(text)
    if not (analysis.allow_flow_plain if in_flow else analysis.allow_block_plain):
        return False
    tag: str = _RESOLVER_1_1.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag == "tag:yaml.org,2002:str"


def _text(text: str) -> str | None:
    """A text field's value: None (left out) when empty; a ``|`` block when it has lines."""
    if not text:
        return None
    if _NOT_IN_BLOCK.search(text) or text.lstrip(" \n").startswith("\t"):
        # A block cannot start with a tab either: YAML takes it for its indentation.
        return cast(str, DoubleQuotedScalarString(text))  # escaped: the only form that keeps them
    if "\n" in text.rstrip("\n") or (text.endswith("\n") and text.strip()):
        return cast(str, LiteralScalarString(text))
    return text


def _required(text: str) -> str:
    """A required text's value: written even when empty."""
    return _text(text) or SingleQuotedScalarString(text)


def _in_language(deck: Deck, text: str) -> Any:
    if not deck.lang:
        return _required(text)
    named = CommentedMap()
    named[deck.lang] = _required(text)
    return named


def _flow(items: Sequence[Any]) -> CommentedSeq | None:
    """``items`` as ``[a, b]`` (None when there are none)."""
    if not items:
        return None
    seq = CommentedSeq(
        SingleQuotedScalarString(item)
        if isinstance(item, str) and not _plain_reads_back(item, in_flow=True)
        else item
        for item in items
    )
    seq.fa.set_flow_style()
    return seq


def _mapping(keys: Sequence[Key], values: dict[str, Any]) -> CommentedMap:
    """``values`` in the declared order of ``keys``, less those None or equal to the key's
    default."""
    out = CommentedMap()
    for key in keys:
        value = values.get(key.name)
        if value is None or (key.default is not None and value == key.default):
            continue
        out[key.name] = value
    return out


def _study(study: StudySettings | None, deck: Deck) -> CommentedMap | None:
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
    study_map = _mapping(STUDY, values)
    if not study_map:
        study_map.fa.set_flow_style()  # 'study: {}': Anki's defaults, said on purpose
    return study_map


def _steps(steps: tuple[float, ...]) -> CommentedSeq:
    seq = CommentedSeq(step_text(step) for step in steps)
    seq.fa.set_flow_style()
    return seq


def _notes(notes: Sequence[Note]) -> CommentedSeq:
    seq = CommentedSeq(_note(note) for note in notes)
    for i in range(1, len(notes)):
        seq.yaml_set_comment_before_after_key(i, before="\n")  # a blank line between notes
    return seq


def _note(note: Note) -> CommentedMap:
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
            "choices": CommentedSeq(_choice(note, i) for i in range(len(note.choices))),
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
            "answer": answers[0] if len(answers) == 1 else CommentedSeq(answers),
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
    number, tolerance, low, high = (key.name for key in NUMBER)
    value, _, around = answer.shown.partition(" \u00b1 ")
    start, _, end = answer.shown.partition(" \u2013 ")
    if _NUMBER.match(value) and (not around or _NUMBER.match(around)):
        written = {number: _Number(value), tolerance: _Number(around) if around else None}
    elif _NUMBER.match(start) and _NUMBER.match(end):
        written = {low: _Number(start), high: _Number(end)}
    elif answer.low == answer.high:
        written = {number: _Number(repr(answer.low))}
    else:
        written = {low: _Number(repr(answer.low)), high: _Number(repr(answer.high))}
    mapping = CommentedMap((k, v) for k, v in written.items() if v is not None)
    mapping.fa.set_flow_style()
    return mapping


_LINE_BREAKS_YAML_ALTERS = ("\x85", "\u2028", "\u2029")  # plain or block: read back altered


_Base: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter: faster


class _Dumper(_Base):  # type: ignore[misc]
    pass


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    if any(ch in text for ch in _LINE_BREAKS_YAML_ALTERS):
        style: str | None = '"'  # escaped as \N, \L, \P: the only form that keeps them
    else:
        style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_str)


_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_RESOLVER = yaml.resolver.Resolver()


def _printable(ch: str) -> bool:
    # What PyYAML writes unescaped with allow_unicode, less tab and the line breaks
    # NEL, LS and PS.
    return (
        " " <= ch <= "~"
        or ("\xa0" <= ch <= "\ud7ff" and ch not in "\u2028\u2029")
        or ("\ue000" <= ch <= "\ufffd" and ch != "\ufeff")
        or ch >= "\U00010000"
    )


def _plain_is_safe(text: str) -> bool:
    """Whether ``text`` can be written as a plain scalar as is: the common case, checked
    cheaply so that large imports need not run the YAML emitter for every value."""
    return (
        text != ""
        and text == text.strip(" ")
        and text[0] not in _INDICATORS
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and all(map(_printable, text))
        and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
        == "tag:yaml.org,2002:str"
    )


def format_scalar(text: str, indent: int) -> str:
    """``text`` as the value part of ``key: value`` whose continuation lines are indented
    by ``indent`` spaces (no trailing newline)."""
    if _plain_is_safe(text):
        return text
    # A sentinel key after the value marks where the value ends.
    dumped: Any = yaml.dump(
        {"k": text, "z": 0},
        Dumper=_Dumper,
        allow_unicode=True,
        width=2**30,  # never fold long lines
        sort_keys=False,
    )
    assert isinstance(dumped, str)
    dumped = dumped.removesuffix("...\n")  # libyaml still ends the document after '|+'
    assert dumped.endswith("z: 0\n")
    body = dumped[len("k: ") : -len("z: 0\n")].removesuffix("\n")
    first, *rest = body.split("\n")
    # PyYAML indents block content by 2 under the top-level key; shift it to ``indent``.
    pad = " " * (indent - 2)
    return "\n".join([first, *((pad + line) if line else "" for line in rest)])
