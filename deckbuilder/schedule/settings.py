"""How a deck will be studied: FSRS parameters, Anki's deck options and a learner's habits.

These settings drive both the interval ladder and the forecast. ``PreviewSettings.problems``
names every value outside its range at once (the ranges are Anki's, from
:mod:`deckbuilder.deck_options`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol

from deckbuilder.deck_options import (
    ANKI_PER_DAY_MAX,
    ANKI_STEP_MAX_SECONDS,
    default_parameters,
    parameter_problems,
    percent_hint,
)
from deckbuilder.errors import Problem

# The retentions a forecast can be made for, what-ifs outside Anki's range included. Below
# about 1e-30 the FSRS interval formula overflows a float; this range leaves a wide margin,
# and retentions closer to 0 or 1 tell a learner nothing more.
RETENTION_RANGE = (0.01, 0.999)


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


def _out_of_range(name: str, message: str) -> Problem:
    """A setting outside its allowed range: a problem of no file, whose ``code`` is the
    PreviewSettings field at fault."""
    return Problem("", None, message, code=name)


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

    def problems(self) -> list[Problem]:
        """Every value outside its allowed range (empty when the settings are usable)."""
        out: list[Problem] = []
        dr = self.desired_retention
        low, high = RETENTION_RANGE
        if not (isinstance(dr, (int, float)) and low <= dr <= high):  # also rejects NaN
            out.append(
                _out_of_range(
                    "desired_retention",
                    f"must be between {low} and {high}, not {dr}{percent_hint(dr)}",
                )
            )
        for name, value in (("new_per_day", self.new_per_day), ("review_limit", self.review_limit)):
            if value is not None and not 0 <= value <= ANKI_PER_DAY_MAX:
                out.append(
                    _out_of_range(
                        name,
                        f"must be between 0 and {ANKI_PER_DAY_MAX} (Anki's limit), not {value}",
                    )
                )
        if self.maximum_interval < 1:
            out.append(
                _out_of_range(
                    "maximum_interval", f"must be 1 day or more, not {self.maximum_interval}"
                )
            )
        for name in ("learning_steps", "relearning_steps"):
            steps = getattr(self, name)
            if any(not (0 < step <= ANKI_STEP_MAX_SECONDS) for step in steps):
                out.append(
                    _out_of_range(
                        name,
                        f"steps must be between 0 and {ANKI_STEP_MAX_SECONDS} seconds, "
                        f"not {list(steps)}",
                    )
                )
        out.extend(
            _out_of_range("parameters", message) for message in parameter_problems(self.parameters)
        )
        return out
