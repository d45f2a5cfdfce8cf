"""Two keys an author writes for something lint would otherwise question: a choice that
keeps its place while the others shuffle (``{text: None of the above, pin: true}``), and
a note's opt-outs from lint rules (``lint: [longest-correct]``)."""

from __future__ import annotations

from deckbuilder.cardfile.fields import FieldReader, is_null
from deckbuilder.cardfile.keys import Shape
from deckbuilder.cardfile.shapes import SHAPES
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, describe


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


def read_lint_opt_outs(fields: FieldReader, item: YMap) -> list[tuple[str, int]]:
    """The rule codes of the note's ``lint:`` (one code or a list), each once, with its
    line; whether each is a rule is for :mod:`.checks`."""
    value = item.get("lint")
    if value is None or is_null(value):
        return []
    entries = value.items if isinstance(value, YSeq) else [value]
    codes: dict[str, int] = {}
    for entry in entries:
        if not isinstance(entry, YScalar) or entry.is_null:
            fields.problem(
                entry.line,
                f"'lint' must be {SHAPES[Shape.LINT].phrase}, not {describe(entry)}",
                "lint",
            )
            continue
        codes.setdefault(entry.raw.strip(), entry.line)
    return list(codes.items())
