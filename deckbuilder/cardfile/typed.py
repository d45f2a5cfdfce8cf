"""Typed-answer notes in the card format (``type: typed``).

    - id: pi
      type: typed
      question: What is pi to three decimal places?
      answer: {number: 3.1416, tolerance: 0.0005}   # or {min: 3.141, max: 3.142}
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

from deckbuilder.cardfile.fields import FieldReader, is_null, visible
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.model import TypedAnswer, TypedNote

if TYPE_CHECKING:
    from deckbuilder.cardfile.notes import _CommonFields

__all__ = ["NUMBER_KEYS", "TYPED_KEYS", "read_typed"]

TYPED_KEYS = ("question", "answer", "explanation", "match_case")
NUMBER_KEYS = ("number", "tolerance", "min", "max")
MAX_ANSWERS = 100
# What a number in the card file may look like (YAML's own number forms, less hex/octal).
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\Z")


def read_typed(fields: FieldReader, item: YMap, common: _CommonFields) -> TypedNote:
    question = fields.text(item, "question", required=True)
    answers = _read_answers(fields, item)
    match_case = fields.flag(item, "match_case", default=False)
    return TypedNote(
        **common,
        question=question,
        answers=tuple(answers),
        explanation=fields.text(item, "explanation"),
        match_case=match_case,
    )


def _read_answers(fields: FieldReader, item: YMap) -> list[TypedAnswer]:
    value = item.get("answer")
    if value is None or is_null(value):
        line = item.key_line("answer") if "answer" in item.entries else item.line
        fields.problem(
            line,
            "'answer' is required: the accepted answer, a list of them, or a number "
            "({number: 4, tolerance: 0.5} or {min: 3, max: 5})",
        )
        return []
    entries = value.items if isinstance(value, YSeq) else [value]
    if not entries:
        fields.problem(value.line, "'answer' is empty; give at least one accepted answer")
    if len(entries) > MAX_ANSWERS:
        fields.problem(
            value.line, f"'answer' has {len(entries)} entries; the limit is {MAX_ANSWERS}"
        )
        return []
    out: list[TypedAnswer] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries):
        what = f"answer[{i}]" if isinstance(value, YSeq) else "answer"
        answer = (
            _read_number(fields, entry, what)
            if isinstance(entry, YMap)
            else _read_text(fields, entry, what)
        )
        if answer is None:
            continue
        key = answer.shown if answer.is_number else " ".join(answer.text.split()).casefold()
        if key in seen:
            fields.problem(entry.line, f"{what} repeats answer[{seen[key]}]")
            continue
        seen[key] = i
        out.append(answer)
    return out


def _read_text(fields: FieldReader, entry: YValue, what: str) -> TypedAnswer | None:
    if isinstance(entry, YSeq):
        fields.problem(entry.line, f"'{what}' must be text or a number mapping, not a list")
        return None
    text = fields.as_text(entry, what, required=True).strip()
    if not text:
        return None
    if "\n" in text:
        fields.problem(entry.line, f"'{what}' must be one line: the learner types it in one box")
        return None
    return TypedAnswer(text=text, shown=text)


def _read_number(fields: FieldReader, entry: YMap, what: str) -> TypedAnswer | None:
    fields.unknown_keys(entry, NUMBER_KEYS, f"'{what}'")
    got: dict[str, tuple[float, str]] = {}
    for key in NUMBER_KEYS:
        value = entry.get(key)
        if value is None:
            continue
        raw = value.raw.strip() if isinstance(value, YScalar) and not value.is_null else ""
        number = float(raw) if _NUMBER.match(raw) else math.nan
        if not math.isfinite(number):
            fields.problem(
                value.line,
                f"'{what}.{key}' must be a number, not {visible(raw) or describe(value)}",
            )
            return None
        got[key] = (number, raw)
    if "number" in got and ("min" in got or "max" in got):
        fields.problem(
            entry.line, f"'{what}' gives 'number' and 'min'/'max'; give one or the other"
        )
        return None
    if "number" in got:
        number, raw = got["number"]
        tolerance, tol_raw = got.get("tolerance", (0.0, "0"))
        if tolerance < 0:
            fields.problem(entry.line, f"'{what}.tolerance' must not be negative")
            return None
        shown = raw if tolerance == 0 else f"{raw} ± {tol_raw}"
        return TypedAnswer(low=number - tolerance, high=number + tolerance, shown=shown)
    if "min" in got and "max" in got:
        if "tolerance" in got:
            fields.problem(entry.line, f"'{what}' gives a range; 'tolerance' belongs with 'number'")
            return None
        (low, low_raw), (high, high_raw) = got["min"], got["max"]
        if low > high:
            fields.problem(entry.line, f"'{what}': 'min' ({low_raw}) is above 'max' ({high_raw})")
            return None
        return TypedAnswer(low=low, high=high, shown=f"{low_raw} \u2013 {high_raw}")
    fields.problem(
        entry.line,
        f"'{what}' must give 'number' (and 'tolerance'), or 'min' and 'max'",
    )
    return None
