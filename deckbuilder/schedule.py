"""FSRS scheduler preview: the interval ladder of a new card and a workload forecast.

Pure functions: settings in, numbers out; randomness comes from a seed parameter.

The forecast models what Anki's own FSRS simulator models (fsrs-rs ``simulate``, which
Anki calls for "Simulate" in deck options): a first rating drawn on first sight, same-day
learning steps whose ratings follow a Markov chain, review ratings drawn from the
forgetting curve, relearning steps after a lapse, seconds per rating in each state, a
new-card limit and a review limit per day, a maximum interval, and Anki's load balancer
(the interval fuzz its simulator applies). It is vectorised over cards: one Python
iteration per simulated day, NumPy arrays for every card.

NumPy and py-fsrs are imported inside the functions that need them (CLI startup stays light).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int64]

__all__ = [
    "DEFAULT_PARAMETERS",
    "LOWER_BOUNDS",
    "UPPER_BOUNDS",
    "Forecast",
    "Ladder",
    "PreviewSettings",
    "ReviewBehaviour",
    "SettingProblem",
    "StudyBlock",
    "Summary",
    "forecast",
    "ladder",
    "parse_parameters",
    "summarize",
]

# FSRS-6 defaults and bounds, as Anki and py-fsrs (fsrs 6.x) use them.
DEFAULT_PARAMETERS: tuple[float, ...] = (
    0.212,
    1.2931,
    2.3065,
    8.2956,
    6.4133,
    0.8334,
    3.0194,
    0.001,
    1.8722,
    0.1666,
    0.796,
    1.4835,
    0.0614,
    0.2629,
    1.6483,
    0.6014,
    1.8729,
    0.5425,
    0.0912,
    0.0658,
    0.1542,
)
_S = 0.001  # the smallest stability FSRS allows, in days
LOWER_BOUNDS: tuple[float, ...] = (
    *(_S,) * 4,
    1.0,
    0.001,
    0.001,
    0.001,
    0.0,
    0.0,
    0.001,
    0.001,
    0.001,
    0.001,
    0.0,
    0.0,
    1.0,
    0.0,
    0.0,
    0.0,
    0.1,
)
UPPER_BOUNDS: tuple[float, ...] = (
    *(100.0,) * 4,
    10.0,
    4.0,
    4.0,
    0.75,
    4.5,
    0.8,
    3.5,
    5.0,
    0.25,
    0.9,
    4.0,
    1.0,
    6.0,
    2.0,
    2.0,
    0.8,
    0.8,
)
S_MIN, S_MAX = _S, 36500.0
D_MIN, D_MAX = 1.0, 10.0
MAX_SHORT_TERM_STEPS = 5  # same-day ratings simulated per learning/relearning session, as fsrs-rs


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
    parameters: tuple[float, ...] = DEFAULT_PARAMETERS
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
        if not (isinstance(dr, (int, float)) and 0.0 < dr < 1.0):
            out.append(
                SettingProblem(
                    "desired_retention", f"must be between 0 and 1 (exclusive), not {dr}"
                )
            )
        if self.new_per_day < 0:
            out.append(SettingProblem("new_per_day", f"must be 0 or more, not {self.new_per_day}"))
        if self.review_limit is not None and self.review_limit < 0:
            out.append(
                SettingProblem("review_limit", f"must be 0 or more, not {self.review_limit}")
            )
        if self.maximum_interval < 1:
            out.append(
                SettingProblem(
                    "maximum_interval", f"must be 1 day or more, not {self.maximum_interval}"
                )
            )
        for name in ("learning_steps", "relearning_steps"):
            steps = getattr(self, name)
            if any(not (step > 0) for step in steps):
                out.append(
                    SettingProblem(name, f"steps must be positive seconds, not {list(steps)}")
                )
        out.extend(_parameter_problems(self.parameters))
        return out


def _parameter_problems(parameters: Sequence[float]) -> list[SettingProblem]:
    n = len(LOWER_BOUNDS)
    if len(parameters) != n:
        return [
            SettingProblem("parameters", f"expected {n} FSRS-6 parameters, got {len(parameters)}")
        ]
    bad = [
        f"w[{i}]={value:g} is outside {lo:g}..{hi:g}"
        for i, (value, lo, hi) in enumerate(
            zip(parameters, LOWER_BOUNDS, UPPER_BOUNDS, strict=True)
        )
        if not (lo <= value <= hi)  # also rejects NaN
    ]
    return [SettingProblem("parameters", "; ".join(bad))] if bad else []


def parse_parameters(text: str) -> tuple[float, ...]:
    """Parse FSRS parameters written as Anki's deck options show them: "0.212, 1.2931, ...".

    Commas, whitespace and surrounding brackets are accepted. Raises ValueError naming
    the first entry that is not a number; the count and bounds are checked by
    :meth:`PreviewSettings.problems`.
    """
    cleaned = text.strip().strip("[]()")
    values: list[float] = []
    for token in cleaned.replace(",", " ").split():
        try:
            value = float(token)
        except ValueError:
            raise ValueError(f"{token!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{token!r} is not a finite number")
        values.append(value)
    return tuple(values)


# ---------------------------------------------------------------------------------------
# Interval ladder (py-fsrs)


@dataclass(frozen=True)
class Ladder:
    """Successive review intervals in days of one new card, per answer pattern."""

    good: tuple[int, ...]
    hard: tuple[int, ...]
    easy: tuple[int, ...]
    again_good: tuple[int, ...]

    def as_dict(self) -> dict[str, list[int]]:
        return {
            "good": list(self.good),
            "hard": list(self.hard),
            "easy": list(self.easy),
            "again_good": list(self.again_good),
        }


LADDER_MAX_STEPS = 12


def ladder(settings: PreviewSettings, horizon: int, max_steps: int = LADDER_MAX_STEPS) -> Ladder:
    """Intervals of a new card reviewed on its due days with py-fsrs, fuzzing off.

    Learning and relearning steps are left out: every answer is a day-level review, so
    each entry is a whole number of days (the pure FSRS intervals, as Anki shows them
    on the answer buttons of a review card). A pattern stops after ``max_steps``
    intervals or at the first interval that ends beyond ``horizon`` days.
    """
    from datetime import datetime, timedelta, timezone

    from fsrs import Card, Rating, Scheduler

    scheduler = Scheduler(
        parameters=settings.parameters,
        desired_retention=settings.desired_retention,
        learning_steps=(),
        relearning_steps=(),
        maximum_interval=settings.maximum_interval,
        enable_fuzzing=False,
    )
    start = datetime(2000, 1, 1, tzinfo=timezone.utc)

    def run(first: Rating, then: Rating) -> tuple[int, ...]:
        card, when, elapsed = Card(card_id=1, due=start), start, 0
        out: list[int] = []
        rating = first
        while len(out) < max(1, max_steps):
            card, _ = scheduler.review_card(card, rating, when)
            days = (card.due - when) // timedelta(days=1)
            out.append(days)
            elapsed += days
            if elapsed >= horizon:
                break
            when, rating = card.due, then
        return tuple(out)

    return Ladder(
        good=run(Rating.Good, Rating.Good),
        hard=run(Rating.Hard, Rating.Hard),
        easy=run(Rating.Easy, Rating.Easy),
        again_good=run(Rating.Again, Rating.Good),
    )


# ---------------------------------------------------------------------------------------
# Forecast (vectorised simulation)


@dataclass(frozen=True)
class Forecast:
    """Expected per-day figures over the horizon; index 0 is the first study day."""

    cards: int
    reviews: tuple[float, ...]  # review answers (first answers of new cards not included)
    new: tuple[float, ...]  # cards seen for the first time
    minutes: tuple[float, ...]  # time spent, learning steps and relearning included
    memorized: tuple[float, ...]  # sum of every introduced card's recall probability

    @property
    def days(self) -> int:
        return len(self.reviews)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cards": self.cards,
            "reviews": [round(x, 1) for x in self.reviews],
            "new": [round(x, 1) for x in self.new],
            "minutes": [round(m, 2) for m in self.minutes],
            "memorized": [round(m, 2) for m in self.memorized],
        }


class _Model:
    """FSRS-6 memory formulas on NumPy arrays (the same formulas py-fsrs and fsrs-rs use).

    Ratings are 1..4 (Again..Easy); per-rating constants are looked up in small tables.
    """

    def __init__(self, w: Sequence[float], desired_retention: float) -> None:
        import numpy as np

        self.w = w = [float(x) for x in w]
        self.decay = -w[20]
        self.factor = 0.9 ** (1.0 / self.decay) - 1.0
        self.ivl_per_s = (desired_retention ** (1.0 / self.decay) - 1.0) / self.factor
        ratings = np.arange(1, 5, dtype=np.float64)
        easy_d = w[4] - math.exp(w[5] * 3.0) + 1.0  # the mean-reversion target
        # next_d = w7 * easy_d + (1 - w7) * (d + (10 - d) / 9 * delta[r])
        self.d_delta = np.concatenate([[0.0], -w[6] * (ratings - 3.0)])
        self.d_target = w[7] * easy_d
        self.init_d_table = np.concatenate(
            [[0.0], np.clip(w[4] - np.exp(w[5] * (ratings - 1)) + 1, D_MIN, D_MAX)]
        )
        self.init_s_table = np.asarray([0.0, *w[:4]])
        self.recall_bonus = np.asarray([0.0, 1.0, w[15], 1.0, w[16]]) * math.exp(w[8])
        self.short_factor = np.concatenate([[0.0], np.exp(w[17] * (ratings - 3.0 + w[18]))])
        self.forget_cap = 1.0 / math.exp(w[17] * w[18])

    def retrievability(self, elapsed: FloatArray, s: FloatArray) -> FloatArray:
        import numpy as np

        # (1 + factor * t / S) ** decay, written with exp and log (twice as fast).
        result: FloatArray = np.exp(self.decay * np.log1p(self.factor * elapsed / s))
        return result

    def next_d(self, d: FloatArray, rating: IntArray) -> FloatArray:
        import numpy as np

        damped = d + (10.0 - d) * (1.0 / 9.0) * self.d_delta[rating]
        out: FloatArray = np.minimum(
            np.maximum(self.d_target + (1.0 - self.w[7]) * damped, D_MIN), D_MAX
        )
        return out

    def recall_s(self, s: FloatArray, r: FloatArray, d: FloatArray, rating: IntArray) -> FloatArray:
        import numpy as np

        w = self.w
        grow = self.recall_bonus[rating] * (11.0 - d) * s ** -w[9] * np.expm1((1.0 - r) * w[10])
        out: FloatArray = np.minimum(np.maximum(s * (1.0 + grow), S_MIN), S_MAX)
        return out

    def forget_s(self, s: FloatArray, r: FloatArray, d: FloatArray) -> FloatArray:
        import numpy as np

        w = self.w
        long_term = w[11] * d ** -w[12] * ((s + 1.0) ** w[13] - 1.0) * np.exp((1.0 - r) * w[14])
        out: FloatArray = np.minimum(
            np.maximum(np.minimum(long_term, s * self.forget_cap), S_MIN), S_MAX
        )
        return out

    def short_term_s(self, s: FloatArray, rating: IntArray) -> FloatArray:
        import numpy as np

        inc = self.short_factor[rating] * s ** -self.w[19]
        inc = np.where(rating >= 3, np.maximum(inc, 1.0), inc)
        out: FloatArray = np.minimum(np.maximum(s * inc, S_MIN), S_MAX)
        return out

    def interval(self, s: FloatArray, maximum: int) -> IntArray:
        import numpy as np

        # Round half away from zero (as fsrs-rs), at least 1 day, at most the maximum.
        days = np.floor(s * self.ivl_per_s + 0.5)
        out: IntArray = np.minimum(np.maximum(days, 1), maximum).astype(np.int64)
        return out


def _draw(rng: np.random.Generator, probabilities: Sequence[float], n: int) -> IntArray:
    """n ratings (1-based) drawn from a discrete distribution (weights need not sum to 1)."""
    import numpy as np

    cumulative = np.cumsum(probabilities)
    u = rng.random(n) * cumulative[-1]
    out: IntArray = 1 + np.searchsorted(cumulative[:-1], u, side="right")
    return out


def _step_ratings(
    rng: np.random.Generator,
    start: IntArray,
    step_count: int,
    transitions: FloatArray,
) -> IntArray:
    """Same-day (re)learning answers after a first answer ``start``, as fsrs-rs draws them.

    Answers follow a Markov chain (``transitions[r - 1]`` is the distribution of the
    answer after answer ``r``). A session ends after ``step_count`` passing answers in a
    row (one fewer when it started with Good or Easy), on Easy, or after
    MAX_SHORT_TERM_STEPS answers; Hard neither counts nor resets. Returns one row per
    session: its answers (1..4), padded with 0. The answers do not depend on memory
    state, so they can be drawn before the cards are simulated.
    """
    import numpy as np

    n = len(start)
    out = np.zeros((n, MAX_SHORT_TERM_STEPS), dtype=np.int64)
    if step_count == 0 or n == 0:
        return out
    cumulative = np.cumsum(transitions, axis=1)
    cumulative = cumulative / cumulative[:, -1:]  # each row a distribution over 1..4
    rating = start.copy()
    consecutive = np.zeros(n, dtype=np.int64)
    needed = np.where(rating > 2, step_count - 1, step_count)
    for j in range(MAX_SHORT_TERM_STEPS):
        active = np.flatnonzero((consecutive < needed) & (rating < 4))
        if len(active) == 0:
            break
        u = rng.random(len(active))
        nxt = 1 + (u[:, None] >= cumulative[rating[active] - 1, :3]).sum(axis=1)
        out[active, j] = nxt
        rating[active] = nxt
        consecutive[active] = np.where(nxt == 1, 0, consecutive[active] + (nxt > 2))
    return out


def _apply_steps(
    model: _Model, s: FloatArray, d: FloatArray, steps: IntArray, costs: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Memory state and seconds after the same-day answers in ``steps`` (0 = none)."""
    import numpy as np

    cost_table = np.concatenate([[0.0], costs])
    cost: FloatArray = cost_table[steps].sum(axis=1)
    longest = int((steps > 0).sum(axis=1).max(initial=0))
    for j in range(longest):
        r = steps[:, j]
        act = r > 0
        rr = np.maximum(r, 1)
        s = np.where(act, model.short_term_s(s, rr), s)
        d = np.where(act, model.next_d(d, rr), d)
    return s, d, cost


class _StepPool:
    """Relearning sessions drawn in bulk and handed out in order (fewer NumPy calls a day)."""

    def __init__(
        self, rng: np.random.Generator, step_count: int, transitions: FloatArray, size: int
    ) -> None:
        import numpy as np

        self.rng, self.step_count, self.transitions = rng, step_count, transitions
        self.size = max(size, 256)
        self.pool = np.zeros((0, MAX_SHORT_TERM_STEPS), dtype=np.int64)
        self.next = 0

    def take(self, n: int) -> IntArray:
        import numpy as np

        if self.next + n > len(self.pool):
            fresh = _step_ratings(
                self.rng,
                np.ones(max(n, self.size), dtype=np.int64),
                self.step_count,
                self.transitions,
            )
            self.pool = np.concatenate([self.pool[self.next :], fresh])
            self.next = 0
        out: IntArray = self.pool[self.next : self.next + n]
        self.next += n
        return out


def _fuzz_bounds(ivl: IntArray, maximum: int) -> tuple[IntArray, IntArray]:
    """Anki's fuzz range of each interval: the days the load balancer may choose from.

    One day either side, plus 15% of the interval's days between 2.5 and 7, 10% of
    those between 7 and 20 and 5% of those past 20 (none below 2.5 days); rounded,
    kept within 1..maximum, and at least two days wide when the interval is over 2.
    """
    import numpy as np

    x = np.minimum(np.maximum(ivl, 1), maximum).astype(np.float64)
    delta = (
        1.0
        + 0.15 * np.clip(np.minimum(x, 7.0) - 2.5, 0.0, None)
        + 0.10 * np.clip(np.minimum(x, 20.0) - 7.0, 0.0, None)
        + 0.05 * np.clip(x - 20.0, 0.0, None)
    )
    delta = np.where(x < 2.5, 0.0, delta)
    lo = np.minimum(np.maximum(np.floor(x - delta + 0.5), 1), maximum).astype(np.int64)
    hi = np.minimum(np.maximum(np.floor(x + delta + 0.5), 1), maximum).astype(np.int64)
    hi = np.where((hi == lo) & (hi > 2) & (hi < maximum), lo + 1, hi)
    return lo, hi


class _LoadBalancer:
    """Anki's load balancer as its simulator applies it, for every simulated copy.

    Each answered card's interval moves to a day of its fuzz range, drawn with weight 1
    for a day with no card due and ``due**-2.15 * interval**-3`` otherwise, where
    ``due`` counts the cards scheduled for that day in the card's copy of the deck (as
    the simulator counts them: over 1.5 times the simulated days; later days count as
    empty). Anki places a day's cards one at a time, each seeing the ones before it;
    here a day's cards are placed together, seeing the counts from earlier days.
    """

    COUNT_EXPONENT = 2.15
    INTERVAL_EXPONENT = 3.0

    def __init__(self, n_rep: int, days: int, maximum: int, cards: int, new_per_day: int) -> None:
        import numpy as np

        self.n_rep = n_rep
        self.horizon = days + days // 2  # the simulator's due-count array
        _, widest = _fuzz_bounds(np.asarray([self.horizon + days + 2]), 10**9)
        # A row per copy: the counted days, then empty days for ranges that cross the end.
        self.row = self.horizon + 2 * int(widest[0]) + 2
        # Fuzz ranges as tables up to an interval past the row (a longer one only lands
        # past the row, and where is moot: see place).
        self.longest = min(maximum, 2 * self.row)
        ivl = np.arange(self.longest + 1, dtype=np.int64)
        self.lower, self.upper = _fuzz_bounds(ivl, maximum)
        self.counts = np.zeros((n_rep, self.row), dtype=np.int64)
        self.flat = self.counts.reshape(-1)
        self.offset = np.arange(n_rep, dtype=np.int64) * self.row
        # Weights as tables: count**-2.15 (0 for an empty day, which weighs 1 whatever
        # its interval) and interval**-3. A day holds each card at most twice: on the
        # day it is planned to be new (see below) and on a due day.
        self.count_weight = np.zeros(2 * cards + 2)
        self.count_weight[1:] = (
            np.arange(1, 2 * cards + 2, dtype=np.float64) ** -self.COUNT_EXPONENT
        )
        k = np.arange(self.row, dtype=np.float64)
        k[0] = 1.0
        self.interval_weight = k**-self.INTERVAL_EXPONENT
        # Anki hands the simulator its new cards with a due day each (the day the new
        # card limit lets them in) and counts them on that day from the start.
        if new_per_day > 0 and cards > 0:
            planned = np.bincount(np.arange(cards) // new_per_day)[: self.horizon]
            self.counts[:, : len(planned)] += planned

    def postpone(self, per_replica: IntArray, day: int) -> None:
        """Cards due but over the review limit move to tomorrow, in the counts too."""
        if day + 1 < self.horizon:
            self.counts[:, day + 1] += per_replica

    def place(
        self, rng: np.random.Generator, replica: IntArray, ivl: IntArray, day: int
    ) -> IntArray:
        """The balanced intervals of cards answered on ``day`` (at most ``maximum``)."""
        import numpy as np

        ivl = np.minimum(ivl, self.longest)
        lo, hi = self.lower[ivl], self.upper[ivl]
        top = self.row - 1 - day
        if int(hi.max()) > top:
            # Cut ranges at the end of the row: a card due that late is never reviewed
            # again in the simulation and is not counted, so where it lands is moot.
            lo, hi = np.minimum(lo, top), np.minimum(hi, top)
        draw = rng.random(len(ivl))
        # Two ways to the same draw: weigh the days ahead once per copy of the deck that
        # answered cards today (cheap for a big deck, where the copies are few), or
        # weigh each card's own fuzz range (cheap for a small deck in many copies). The
        # second makes about twice as many passes over what it weighs.
        copies = np.unique(replica) if self.n_rep > 1 else np.zeros(1, dtype=np.int64)
        days_ahead = int(hi.max())
        width = int((hi - lo).max()) + 1
        if len(copies) * days_ahead <= 2 * len(ivl) * width:
            pick = self._pick_by_copy(copies, replica, lo, hi, days_ahead, day, draw)
        else:
            pick = self._pick_by_card(replica, lo, hi, width, day, draw)
        due = np.minimum(day + pick, self.horizon)  # the horizon's slot collects the rest
        np.add.at(self.flat, due + self.offset[replica], 1)
        self.counts[:, self.horizon] = 0
        return pick

    def _weights(self, c: IntArray, k: IntArray) -> FloatArray:
        """The weight of a day ``k`` days ahead that has ``c`` cards due."""
        w: FloatArray = self.count_weight[c] * self.interval_weight[k] + (c == 0)
        return w

    def _pick_by_copy(
        self,
        copies: IntArray,
        replica: IntArray,
        lo: IntArray,
        hi: IntArray,
        top: int,
        day: int,
        draw: FloatArray,
    ) -> IntArray:
        """Running weights of days 1..top ahead for each copy in ``copies`` (sorted), laid
        end to end as one increasing sequence, and each card's draw looked up in it."""
        import numpy as np

        k = np.arange(1, top + 1, dtype=np.int64)
        c = self.counts[copies[:, None], day + k]
        cum = np.empty((len(copies), top + 1))
        cum[:, 0] = 0.0
        np.cumsum(self._weights(c, k), axis=1, out=cum[:, 1:])
        base = np.zeros(len(replica), dtype=np.int64)
        if len(copies) > 1:  # each copy's row above the last
            cum += np.arange(len(copies), dtype=np.float64)[:, None] * (top + 1.0)
            base = np.searchsorted(copies, replica) * (top + 1)
        flat = cum.reshape(-1)
        left = flat[lo - 1 + base]
        target = left + draw * (flat[hi + base] - left)
        pick: IntArray = np.minimum(np.searchsorted(flat, target, side="right") - base, hi)
        return pick

    def _pick_by_card(
        self, replica: IntArray, lo: IntArray, hi: IntArray, width: int, day: int, draw: FloatArray
    ) -> IntArray:
        """Running weights of each card's own range (``width`` days, the widest range;
        days past a card's range weigh nothing), and its draw looked up in them."""
        import numpy as np

        span = np.arange(width, dtype=np.int64)
        k = np.minimum(lo[:, None] + span, hi[:, None])
        w = self._weights(self.flat[(self.offset[replica] + day)[:, None] + k], k)
        w[span > (hi - lo)[:, None]] = 0.0
        cum = np.cumsum(w, axis=1)
        target = draw * cum[:, -1]
        pick: IntArray = lo + np.minimum((cum <= target[:, None]).sum(axis=1), hi - lo)
        return pick


MIN_SIMULATED_CARDS = 10_000


def forecast(
    cards: int, settings: PreviewSettings, days: int, seed: int = 42, replicas: int | None = None
) -> Forecast:
    """Simulate studying ``cards`` new cards for ``days`` days; deterministic for a seed.

    Cards are introduced in order, ``new_per_day`` a day. Each day, due cards are
    reviewed first (earliest scheduled day first when the review limit cuts the queue;
    the rest wait for the next day), then new cards are learned. Intervals are the FSRS
    intervals for the desired retention, moved by Anki's load balancer within Anki's fuzz
    range when ``settings.load_balancer`` is on (the default, as in a fresh collection).

    A small deck is simulated as ``replicas`` independent copies (default: enough for
    10,000 simulated cards) and the per-day figures are their average, so the preview
    shows the expected workload rather than one noisy draw.
    """
    import numpy as np

    if cards < 0 or days < 0:
        raise ValueError("cards and days must be 0 or more")
    if replicas is None:
        replicas = max(1, -(-MIN_SIMULATED_CARDS // cards)) if cards else 1
    n_rep = replicas
    total = cards * n_rep
    rng = np.random.default_rng(seed)
    model = _Model(settings.parameters, settings.desired_retention)
    b = settings.behaviour
    review_costs = np.asarray(b.review_costs, dtype=np.float64)
    relearn_costs = np.asarray(b.relearning_costs, dtype=np.float64)
    relearning = _StepPool(
        rng,
        len(settings.relearning_steps),
        np.asarray(b.relearning_step_transitions, dtype=np.float64),
        size=total,
    )
    max_ivl = settings.maximum_interval
    limit = settings.review_limit

    # A new card's first day does not depend on the day it is seen: first rating, then
    # the learning steps. Draw every card's first day up front, in one vectorised pass.
    first = _draw(rng, b.first_rating, total)
    learn_costs = np.asarray(b.learning_costs, dtype=np.float64)
    learning = _step_ratings(
        rng,
        first,
        len(settings.learning_steps),
        np.asarray(b.learning_step_transitions, dtype=np.float64),
    )
    learned_s, learned_d, learn_cost = _apply_steps(
        model, model.init_s_table[first], model.init_d_table[first], learning, learn_costs
    )
    learn_cost += learn_costs[first - 1]

    # Card i belongs to replica i % n_rep and is that replica's (i // n_rep)-th new card.
    replica = np.arange(total, dtype=np.int64) % n_rep
    s = np.ones(total)
    d = np.ones(total)
    last = np.zeros(total)  # day of the last answer (float: used in float arithmetic)
    never = np.iinfo(np.int64).max
    due = np.full(total, never, dtype=np.int64)  # never due until introduced
    seen = np.zeros(total, dtype=bool)  # introduced (with a review limit, replicas differ)
    intro = np.zeros(n_rep, dtype=np.int64)  # new cards introduced per replica
    reviews = np.zeros(days)
    new = np.zeros(days)
    seconds = np.zeros(days)
    memorized = np.zeros(days)

    balancer = (
        _LoadBalancer(n_rep, days, max_ivl, cards, settings.new_per_day)
        if settings.load_balancer
        else None
    )
    no_reviews = np.zeros(n_rep, dtype=np.int64)
    for day in range(days):
        # Reviews: every introduced card whose due day has come.
        idx = np.flatnonzero(due <= day)
        per_replica = no_reviews if limit is None else np.bincount(replica[idx], minlength=n_rep)
        if limit is not None and per_replica.max(initial=0) > limit:
            order = np.lexsort((due[idx], replica[idx]))  # earliest scheduled day first
            ranked = idx[order]
            starts = np.cumsum(per_replica) - per_replica
            rank = np.arange(len(ranked)) - starts[replica[ranked]]
            idx = np.sort(ranked[rank < limit])
            if balancer is not None:
                balancer.postpone(per_replica - np.minimum(per_replica, limit), day)
            per_replica = np.minimum(per_replica, limit)
        n_rev = len(idx)
        day_s: list[FloatArray] = []
        if n_rev:
            old_s, old_d = s[idx], d[idx]
            r = model.retrievability(day - last[idx], old_s)
            recalled = rng.random(n_rev) < r
            rating = np.where(recalled, _draw(rng, b.review_rating, n_rev) + 1, 1)
            new_d = model.next_d(old_d, rating)
            new_s = model.recall_s(old_s, r, old_d, rating)
            cost = review_costs[rating - 1]
            lapsed = np.flatnonzero(~recalled)
            new_s[lapsed] = model.forget_s(old_s[lapsed], r[lapsed], old_d[lapsed])
            if len(lapsed) and relearning.step_count:
                ls, ld, lc = _apply_steps(
                    model,
                    new_s[lapsed],
                    new_d[lapsed],
                    relearning.take(len(lapsed)),
                    relearn_costs,
                )
                new_s[lapsed], new_d[lapsed] = ls, ld
                cost[lapsed] += lc
            s[idx], d[idx] = new_s, new_d
            reviews[day] = n_rev
            seconds[day] += cost.sum()
            day_s.append(new_s)

        # New cards, after the reviews (sharing the review limit unless told not to).
        quota = np.minimum(settings.new_per_day, cards - intro)
        if limit is not None and not settings.new_cards_ignore_review_limit:
            quota = np.minimum(quota, np.maximum(0, limit - per_replica))
        n_new = int(quota.sum())
        fresh = np.zeros(0, dtype=np.int64)
        if n_new:
            if n_new == quota[0] * n_rep and intro.min() == intro.max():
                # The usual case: every copy introduces as many: a contiguous run of cards.
                fresh = np.arange(intro[0] * n_rep, (intro[0] + quota[0]) * n_rep)
            else:
                rep = np.repeat(np.arange(n_rep, dtype=np.int64), quota)
                offset = np.arange(n_new) - np.repeat(np.cumsum(quota) - quota, quota)
                fresh = rep + n_rep * (intro[rep] + offset)
            intro += quota
            ns = learned_s[fresh]
            s[fresh], d[fresh] = ns, learned_d[fresh]
            seen[fresh] = True
            new[day] = n_new
            seconds[day] += learn_cost[fresh].sum()
            day_s.append(ns)

        # Schedule everything answered today.
        answered = np.concatenate([idx, fresh])
        if len(answered):
            ivl = model.interval(np.concatenate(day_s), max_ivl)
            if balancer is not None:
                ivl = balancer.place(rng, replica[answered], ivl, day)
            last[answered], due[answered] = day, day + ivl

        if intro.min() == intro.max():  # the introduced cards are a prefix
            m = int(intro[0]) * n_rep
            memorized[day] = model.retrievability(day - last[:m], s[:m]).sum()
        else:
            memorized[day] = model.retrievability(day - last[seen], s[seen]).sum()

    return Forecast(
        cards=cards,
        reviews=tuple(float(x) / n_rep for x in reviews),
        new=tuple(float(x) / n_rep for x in new),
        minutes=tuple(float(x) / 60.0 / n_rep for x in seconds),
        memorized=tuple(float(x) / n_rep for x in memorized),
    )


# ---------------------------------------------------------------------------------------
# Summary


@dataclass(frozen=True)
class Summary:
    """The forecast in a few numbers. Days are 1-based (day 1 is the first study day)."""

    cards: int
    days: int
    total_reviews: float
    peak_reviews: float
    peak_day: int  # the first day with the most reviews; 0 when there are no reviews
    average_minutes: float
    introduced_by: int | None  # the day the last new card is seen; None: not in the horizon
    memorized_end: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "cards": self.cards,
            "days": self.days,
            "total_reviews": round(self.total_reviews, 1),
            "peak_reviews_per_day": round(self.peak_reviews, 1),
            "peak_day": self.peak_day,
            "average_minutes_per_day": round(self.average_minutes, 2),
            "fully_introduced_day": self.introduced_by,
            "memorized_at_end": round(self.memorized_end, 2),
        }


def summarize(fc: Forecast) -> Summary:
    """Peak reviews and when, average minutes a day, when the deck is fully introduced."""
    peak = max(fc.reviews, default=0.0)
    peak_day = fc.reviews.index(peak) + 1 if peak > 0 else 0
    introduced_by: int | None = 0 if fc.cards == 0 else None
    seen = 0.0
    for i, n in enumerate(fc.new):
        seen += n
        if fc.cards and seen >= fc.cards - 1e-9:
            introduced_by = i + 1
            break
    return Summary(
        cards=fc.cards,
        days=fc.days,
        total_reviews=sum(fc.reviews),
        peak_reviews=peak,
        peak_day=peak_day,
        average_minutes=sum(fc.minutes) / fc.days if fc.days else 0.0,
        introduced_by=introduced_by,
        memorized_end=fc.memorized[-1] if fc.days else 0.0,
    )
