"""Anki's deck options as a deck's study block and the preview's options give them: the
one table of the ranges Anki (and the forecast) accept, and FSRS-6's parameters
(py-fsrs's defaults and bounds, and the text in which Anki's deck options show them).

Part of the core: the card loader checks a study block against these, and the FSRS engine
(:mod:`deckbuilder.schedule`) studies with the values it checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# What Anki's deck options accept: the ranges its simulator offers (ankitects/anki
# ts/routes/deck-options/SimulatorModal.svelte, commit 000cffc6d607b766ddfe610818bc18e7fb24076c)
# and the ranges outside which Anki replaces a stored value with its default when it reads
# a preset (rslib/src/deckconfig/mod.rs, ensure_deck_config_values_valid).
ANKI_RETENTION_RANGE = (0.70, 0.99)
ANKI_PER_DAY_MAX = 9999  # new cards and reviews a day
ANKI_MAX_INTERVAL = 36500  # days
# Anki's step editor caps a learning or relearning step at 2**31 seconds, "representable as
# negative i32 seconds in a revlog" (ankitects/anki ts/deck-options/steps.ts,
# stringToMinutes, commit 8940ba01e7ccd6b42032dc653226660314dd5fe6); its scheduler counts
# steps in whole seconds.
ANKI_STEP_MAX_SECONDS = 2**31
# What a forecast takes beyond them. A retention a preview asks for may be a what-if outside
# Anki's range: below about 1e-30 the FSRS interval formula overflows a float, and
# retentions closer to 0 or 1 tell a learner nothing more. Anki's simulator offers 1 to
# 3650 days; the forecast's memory grows with days times simulated cards, and a longer
# horizon for a small deck could exhaust a laptop's memory, for a plan no learner makes.
FORECAST_RETENTION_RANGE = (0.01, 0.999)
SIMULATOR_MAX_DAYS = 3650

PARAMETER_COUNT = 21  # FSRS-6's parameters, w[0] to w[20]

# FSRS-6's default parameters and their bounds are py-fsrs's own
# (fsrs.scheduler), read when first used: ``check`` reads card files without loading
# py-fsrs. Anki's defaults and bounds are the same (fsrs-rs).
_FROM_PY_FSRS = {
    "DEFAULT_PARAMETERS": "DEFAULT_PARAMETERS",
    "LOWER_BOUNDS": "LOWER_BOUNDS_PARAMETERS",
    "UPPER_BOUNDS": "UPPER_BOUNDS_PARAMETERS",
}
if TYPE_CHECKING:
    DEFAULT_PARAMETERS: tuple[float, ...]
    LOWER_BOUNDS: tuple[float, ...]
    UPPER_BOUNDS: tuple[float, ...]


def __getattr__(name: str) -> Any:
    if name not in _FROM_PY_FSRS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _py_fsrs(_FROM_PY_FSRS[name])


def _py_fsrs(constant: str) -> Any:
    """One of py-fsrs's constants (sequences as tuples)."""
    from fsrs import scheduler  # py-fsrs: not for check (see above)

    value = getattr(scheduler, constant)
    return tuple(value) if isinstance(value, (list, tuple)) else value


def default_parameters() -> tuple[float, ...]:
    """FSRS-6's default parameters (py-fsrs's, Anki's)."""
    parameters: tuple[float, ...] = _py_fsrs("DEFAULT_PARAMETERS")
    return parameters


def parameter_problems(parameters: Sequence[float]) -> list[str]:
    """What is wrong with a list of FSRS-6 parameters (empty when nothing is): a count
    other than 21, or each value outside py-fsrs's bounds."""
    lower, upper = _py_fsrs("LOWER_BOUNDS_PARAMETERS"), _py_fsrs("UPPER_BOUNDS_PARAMETERS")
    n = len(lower)
    if len(parameters) != n:
        return [f"expected {n} FSRS-6 parameters, got {len(parameters)}"]
    bad = [
        f"w[{i}]={value:g} is outside {lo:g}..{hi:g}"
        for i, (value, lo, hi) in enumerate(zip(parameters, lower, upper, strict=True))
        if not (lo <= value <= hi)  # also rejects NaN
    ]
    return ["; ".join(bad)] if bad else []


class ParameterSyntaxError(ValueError):
    """An entry of a parameter list that is not a finite number: ``entry`` as shown in
    the message (long ones cut), and its ``line``, counting from 1."""

    def __init__(self, message: str, entry: str, line: int) -> None:
        super().__init__(message)
        self.entry, self.line = entry, line


_ENTRY = re.compile(r"[^\s,]+")
_SHOWN_ENTRY = 40  # characters of a bad entry quoted in a message


def parse_parameters(text: str) -> tuple[float, ...]:
    """Parse FSRS parameters written as Anki's deck options show them: "0.212, 1.2931, ...".

    Commas, whitespace and surrounding brackets are accepted. Raises ParameterSyntaxError
    naming the first entry that is not a finite number and its line; the count and bounds
    are checked by :func:`parameter_problems`.
    """
    trimmed = text.strip()
    body = trimmed.strip("[]()")
    start = len(text) - len(text.lstrip()) + len(trimmed) - len(trimmed.lstrip("[]()"))
    values: list[float] = []
    for match in _ENTRY.finditer(body):
        token = match.group()
        try:
            value = float(token)
        except ValueError:
            value = math.nan
            problem = "is not a number"
        else:
            problem = "is not a finite number"
        if not math.isfinite(value):
            shown = token if len(token) <= _SHOWN_ENTRY else token[:_SHOWN_ENTRY] + "…"
            line = text.count("\n", 0, start + match.start()) + 1
            raise ParameterSyntaxError(f"{shown!r} {problem}", shown, line)
        values.append(value)
    return tuple(values)


def percent_hint(value: object) -> str:
    """For a retention written as a percentage (90 for 0.90): the value it likely meant."""
    if isinstance(value, (int, float)) and 10 <= value <= 100:
        return f" (a retention is a share: {value / 100:g} for {value:g}%)"
    return ""
