"""How a deck will be studied: FSRS parameters, Anki's deck options and a learner's habits.

These settings drive both the interval ladder and the forecast. ``PreviewSettings.problems``
names every value outside its range at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Protocol

__all__ = [
    "ANKI_MAX_INTERVAL",
    "ANKI_PER_DAY_MAX",
    "ANKI_RETENTION_RANGE",
    "ANKI_STEP_MAX_SECONDS",
    "DEFAULT_PARAMETERS",
    "LOWER_BOUNDS",
    "PARAMETER_COUNT",
    "RETENTION_RANGE",
    "UPPER_BOUNDS",
    "ParameterSyntaxError",
    "PreviewSettings",
    "ReviewBehaviour",
    "SettingProblem",
    "StudyBlock",
    "default_parameters",
    "parse_parameters",
    "percent_hint",
]

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

# The retentions a forecast can be made for, what-ifs outside Anki's range included. Below
# about 1e-30 the FSRS interval formula overflows a float; this range leaves a wide margin,
# and retentions closer to 0 or 1 tell a learner nothing more.
RETENTION_RANGE = (0.01, 0.999)

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


@dataclass(frozen=True)
class ReviewBehaviour:
    """How a typical learner answers, and how long it takes: Anki's simulator defaults.

    Ratings are indexed Again, Hard, Good, Easy. Costs are seconds per answer in the
    learning, review and relearning states. ``*_step_transitions[i]`` is the distribution
    of the next same-day rating after rating ``i`` (Again, Hard, Good) during steps.
    """

    first_rating: tuple[float, float, float, float] = (0.24, 0.094, 0.495, 0.171)
    review_rating: tuple[float, float, float] = (0.224, 0.631, 0.145)  # Hard, Good, Easy
    learning_costs: tuple[float, float, float, float] = (19.58, 18.79, 13.78, 10.71)
    review_costs: tuple[float, float, float, float] = (19.38, 17.59, 12.38, 8.94)
    relearning_costs: tuple[float, float, float, float] = (16.44, 15.25, 12.32, 8.03)
    learning_step_transitions: tuple[tuple[float, float, float, float], ...] = (
        (0.3686, 0.0628, 0.5108, 0.0577),
        (0.0442, 0.4553, 0.4457, 0.0549),
        (0.0519, 0.047, 0.8462, 0.055),
    )
    relearning_step_transitions: tuple[tuple[float, float, float, float], ...] = (
        (0.2157, 0.0643, 0.6595, 0.0604),
        (0.05, 0.4638, 0.4475, 0.0387),
        (0.1057, 0.1434, 0.7266, 0.0244),
    )


class StudyBlock(Protocol):
    """What the preview reads from a deck's ``study:`` block (steps in seconds)."""

    @property
    def desired_retention(self) -> float: ...
    @property
    def new_per_day(self) -> int: ...
    @property
    def review_limit(self) -> int | None: ...
    @property
    def learning_steps(self) -> Sequence[float]: ...
    @property
    def relearning_steps(self) -> Sequence[float]: ...
    @property
    def maximum_interval(self) -> int: ...


@dataclass(frozen=True)
class SettingProblem:
    """One setting outside its allowed range; ``name`` is the PreviewSettings field."""

    name: str
    message: str


@dataclass(frozen=True)
class PreviewSettings:
    """How the deck will be studied: Anki's deck options that shape the workload.

    Field names and units follow the deck's ``study:`` block (steps in seconds; only
    their count matters to the day-level forecast). ``review_limit=None``: no limit.
    ``load_balancer`` is Anki's preference of that name (on in a fresh collection).
    """

    desired_retention: float = 0.9
    new_per_day: int = 20
    review_limit: int | None = None
    learning_steps: tuple[float, ...] = (60.0, 600.0)
    relearning_steps: tuple[float, ...] = (600.0,)
    maximum_interval: int = 36500
    parameters: tuple[float, ...] = field(default_factory=default_parameters)
    new_cards_ignore_review_limit: bool = False
    load_balancer: bool = True
    behaviour: ReviewBehaviour = field(default_factory=ReviewBehaviour)

    @classmethod
    def from_study(cls, study: StudyBlock, **overrides: Any) -> PreviewSettings:
        """Settings from a deck's ``study:`` block; ``overrides`` that are not None win."""
        base = cls(
            desired_retention=study.desired_retention,
            new_per_day=study.new_per_day,
            review_limit=study.review_limit,
            learning_steps=tuple(study.learning_steps),
            relearning_steps=tuple(study.relearning_steps),
            maximum_interval=study.maximum_interval,
        )
        return base.with_values(**overrides)

    def with_values(self, **values: Any) -> PreviewSettings:
        """A copy with the given fields replaced; ``None`` values keep the current one."""
        unknown = sorted(set(values) - {f.name for f in fields(self)})
        if unknown:
            raise TypeError(f"unknown study settings: {', '.join(unknown)}")
        return replace(self, **{k: v for k, v in values.items() if v is not None})

    def problems(self) -> list[SettingProblem]:
        """Every value outside its allowed range (empty when the settings are usable)."""
        out: list[SettingProblem] = []
        dr = self.desired_retention
        low, high = RETENTION_RANGE
        if not (isinstance(dr, (int, float)) and low <= dr <= high):  # also rejects NaN
            out.append(
                SettingProblem(
                    "desired_retention",
                    f"must be between {low} and {high}, not {dr}{percent_hint(dr)}",
                )
            )
        for name, value in (("new_per_day", self.new_per_day), ("review_limit", self.review_limit)):
            if value is not None and not 0 <= value <= ANKI_PER_DAY_MAX:
                out.append(
                    SettingProblem(
                        name,
                        f"must be between 0 and {ANKI_PER_DAY_MAX} (Anki's limit), not {value}",
                    )
                )
        if self.maximum_interval < 1:
            out.append(
                SettingProblem(
                    "maximum_interval", f"must be 1 day or more, not {self.maximum_interval}"
                )
            )
        for name in ("learning_steps", "relearning_steps"):
            steps = getattr(self, name)
            if any(not (0 < step <= ANKI_STEP_MAX_SECONDS) for step in steps):
                out.append(
                    SettingProblem(
                        name,
                        f"steps must be between 0 and {ANKI_STEP_MAX_SECONDS} seconds, "
                        f"not {list(steps)}",
                    )
                )
        out.extend(_parameter_problems(self.parameters))
        return out


def _parameter_problems(parameters: Sequence[float]) -> list[SettingProblem]:
    lower, upper = _py_fsrs("LOWER_BOUNDS_PARAMETERS"), _py_fsrs("UPPER_BOUNDS_PARAMETERS")
    n = len(lower)
    if len(parameters) != n:
        return [
            SettingProblem("parameters", f"expected {n} FSRS-6 parameters, got {len(parameters)}")
        ]
    bad = [
        f"w[{i}]={value:g} is outside {lo:g}..{hi:g}"
        for i, (value, lo, hi) in enumerate(zip(parameters, lower, upper, strict=True))
        if not (lo <= value <= hi)  # also rejects NaN
    ]
    return [SettingProblem("parameters", "; ".join(bad))] if bad else []


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
    are checked by :meth:`PreviewSettings.problems`.
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
