"""Two keys an author writes for something lint would otherwise question: a choice that
keeps its place while the others shuffle (``{text: None of the above, pin: true}``), and
a note's opt-outs from lint rules (``lint: [longest-correct]``)."""

from __future__ import annotations

from deckbuilder.cardfile.fields import FieldReader, is_null, suggest, visible
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, describe
from deckbuilder.lint.codes import RULES

__all__ = ["read_lint_opt_outs", "read_pins"]


def read_pins(fields: FieldReader, item: YMap) -> tuple[int, ...]:
    """The indexes of the note's choices written with ``pin: true``, sorted."""
    choices = item.get("choices")
    if not isinstance(choices, YSeq):
        return ()
    pinned: list[int] = []
    for i, entry in enumerate(choices.items):
        if isinstance(entry, YMap) and fields.flag(
            entry, "pin", default=False, what=f"choices[{i}].pin"
        ):
            pinned.append(i)
    return tuple(pinned)


def read_lint_opt_outs(fields: FieldReader, item: YMap) -> tuple[str, ...]:
    """The rule codes of the note's ``lint:`` (one code or a list); an unknown code is a
    problem at its line."""
    value = item.get("lint")
    if value is None or is_null(value):
        return ()
    entries = value.items if isinstance(value, YSeq) else [value]
    codes: list[str] = []
    for entry in entries:
        if not isinstance(entry, YScalar) or entry.is_null:
            fields.problem(
                entry.line, f"'lint' must be a rule code or a list of them, not {describe(entry)}"
            )
            continue
        code = entry.raw.strip()
        if code not in RULES:
            fields.problem(
                entry.line,
                f"unknown lint rule '{visible(code)}' in 'lint'{suggest(code, RULES)}; "
                f"the rules are {', '.join(RULES)}",
            )
        elif code not in codes:
            codes.append(code)
    return tuple(codes)
