"""Typed-answer notes in the card format (``type: typed``).

    - id: pi
      type: typed
      question: What is pi to three decimal places?
      answer: {number: 3.1416, tolerance: 0.0005}   # or {min: 3.141, max: 3.142}
    - id: dose
      type: typed
      question: Usual adult dose of amoxicillin?
      answer: {number: 500, unit: mg}              # 500 mg, 500mg and 500 are right
    - id: tomb
      type: typed
      question: Who is buried in Grant's tomb?
      answer: [no one, nobody]                     # one text, or a list of texts
      match_case: false                            # the default: case is ignored

``answer`` is one accepted answer or a list of them; each is a text or a number mapping.
Texts are compared on the card after trimming and joining runs of spaces, and, unless
``match_case`` is true, ignoring case.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from deckbuilder.cardfile.fields import FieldReader, is_null, shown, trimmed
from deckbuilder.cardfile.keys import (
    NUMBER,
    NUMBER_PATTERN,
    NoteType,
    key_names,
    keyed,
)
from deckbuilder.cardfile.keys import note_type as _note_type
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.model import NoteKind, TypedAnswer, TypedNote

if TYPE_CHECKING:
    from deckbuilder.cardfile.notes import _CommonFields

_TYPED: NoteType = _note_type(NoteKind.TYPED)
_KEYS = keyed(_TYPED.keys)
NUMBER_KEYS = key_names(NUMBER)
_NUMBER = re.compile(f"(?:{NUMBER_PATTERN})\\Z")
# A number is compared as a double (17 significant digits); longer ones are refused
# rather than carried whole into the card and every message.
MAX_NUMBER_CHARS = 32
MAX_UNIT_CHARS = 20  # 'mL/min/1.73 m²' and the like


def read_typed(fields: FieldReader, item: YMap, common: _CommonFields) -> TypedNote:
    question = fields.read(item, _KEYS["question"])
    answers = _read_answers(fields, item)
    common["field_lines"].update((f"answer[{i}]", line) for i, (_, line) in enumerate(answers))
    match_case = fields.read(item, _KEYS["match_case"])
    return TypedNote(
        **common,
        question=question,
        answers=tuple(answer for answer, _ in answers),
        explanation=fields.read(item, _KEYS["explanation"]),
        match_case=match_case,
    )


def _read_answers(fields: FieldReader, item: YMap) -> list[tuple[TypedAnswer, int]]:
    """The accepted answers that could be read, each with its line."""
    value = item.get("answer")
    if value is None or is_null(value):
        fields.problem(
            item.key_line("answer"),
            "'answer' is required: the accepted answer, a list of them, or a number "
            "({number: 4, tolerance: 0.5} or {min: 3, max: 5})",
            "answer",
        )
        return []
    entries = value.items if isinstance(value, YSeq) else [value]
    out: list[tuple[TypedAnswer, int]] = []
    for i, entry in enumerate(entries):
        what = f"answer[{i}]" if isinstance(value, YSeq) else "answer"
        answer = (
            _read_number(fields, entry, what)
            if isinstance(entry, YMap)
            else _read_text(fields, entry, what)
        )
        if answer is not None and answer.text.startswith("sound:") and fields.quoting(value):
            # answer: [sound:x.mp3] is a list to YAML, of the text 'sound:x.mp3'.
            fields.problem(
                entry.line,
                f"'answer' is a list to YAML ('[' without quotes), whose answer is the text "
                f"'{shown(answer.text)}'; a sound alone leaves nothing to type: write the words "
                "the learner types with the sound beside them, in quotes: "
                "answer: 'bonjour [sound:bonjour.mp3]'",
                what,
            )
        elif answer is not None:
            out.append((answer, entry.line))
    return out


def _read_text(fields: FieldReader, entry: YValue, what: str) -> TypedAnswer | None:
    if isinstance(entry, YSeq):
        fields.problem(entry.line, f"'{what}' must be text or a number mapping, not a list", what)
        return None
    before = len(fields.problems)
    text = trimmed(fields.as_text(entry, what))
    return TypedAnswer(text=text, shown=text) if len(fields.problems) == before else None


def _read_unit(fields: FieldReader, entry: YMap, what: str) -> str | None:
    """The number's ``unit:`` ('' when it has none); None (with a problem) when it is not
    a unit: text on one line, not starting with a digit or a sign."""
    value = entry.get("unit")
    if value is None or is_null(value):
        return ""
    before = len(fields.problems)
    unit = " ".join(fields.as_text(value, f"{what}.unit").split())
    if len(fields.problems) > before:
        return None
    if not unit or len(unit) > MAX_UNIT_CHARS or unit[0] in "0123456789+-.,":
        fields.problem(
            value.line,
            f"'{what}.unit' must be a unit written after the number, like mg, km/h or °C "
            f"(at most {MAX_UNIT_CHARS} characters), not {shown(unit) or describe(value)!r}",
            what,
        )
        return None
    return unit


def _read_number(fields: FieldReader, entry: YMap, what: str) -> TypedAnswer | None:
    fields.unknown_keys(entry, NUMBER_KEYS, f"'{what}'")
    unit = _read_unit(fields, entry, what)
    if unit is None:
        return None
    got: dict[str, tuple[float, str]] = {}
    for key in NUMBER_KEYS:
        if key == "unit":
            continue
        value = entry.get(key)
        if value is None:
            continue
        raw = value.raw.strip() if isinstance(value, YScalar) and not value.is_null else ""
        if len(raw) > MAX_NUMBER_CHARS:
            fields.problem(
                value.line,
                f"'{what}.{key}' is {len(raw):,} characters long; a number the card compares "
                f"is written in at most {MAX_NUMBER_CHARS} (1.5e300 for a large one)",
                what,
            )
            return None
        number = float(raw) if _NUMBER.match(raw) else math.nan
        if math.isinf(number):
            fields.problem(
                value.line,
                f"'{what}.{key}' is too large a number ({shown(raw)}) for the card to compare; "
                "write at most about 1.8e308 (1.5e300 for a large one)",
                what,
            )
            return None
        if not math.isfinite(number):
            fields.problem(
                value.line,
                f"'{what}.{key}' must be a number, not {shown(raw) or describe(value)}",
                what,
            )
            return None
        got[key] = (number, raw)
    if "number" in got and ("min" in got or "max" in got):
        fields.problem(
            entry.line, f"'{what}' gives 'number' and 'min'/'max'; give one or the other", what
        )
        return None
    if "number" in got:
        tolerance, tol_raw = got.get("tolerance", (0.0, "0"))
        if tolerance < 0:
            fields.problem(entry.line, f"'{what}.tolerance' must not be negative", what)
            return None
        return TypedAnswer.around(got["number"][1], tol_raw, unit)
    if "min" in got and "max" in got:
        if "tolerance" in got:
            fields.problem(
                entry.line, f"'{what}' gives a range; 'tolerance' belongs with 'number'", what
            )
            return None
        return TypedAnswer.between(got["min"][1], got["max"][1], unit)
    fields.problem(
        entry.line, f"'{what}' must give 'number' (and 'tolerance'), or 'min' and 'max'", what
    )
    return None
