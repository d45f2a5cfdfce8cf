"""Workload against desired retention: the forecast at every retention Anki offers, and the
retention that costs the least study time per card remembered.

The sweep follows Anki's workload graph (``simulate_fsrs_workload``): desired retention
0.70 to 0.99 in steps of 0.01, and ``reviews`` counts every answer on a review day plus one
first showing per new card, as Anki's graph counts them. The optimal retention follows
fsrs-rs ``optimal_retention``, which Anki's "compute optimal retention" calls: Brent's
method over 0.70 to 0.95 with a relative tolerance of 0.01, starting from 0.70,
minimising total study time divided by the cards expected to be recalled on the last day.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deckbuilder.schedule.forecast import shown
from deckbuilder.schedule.settings import PreviewSettings

__all__ = [
    "MIN_SWEEP_CARDS",
    "OPTIMAL_RANGE",
    "SWEEP_RETENTIONS",
    "Sweep",
    "SweepPoint",
    "brent_minimum",
    "sweep",
]

SWEEP_RETENTIONS = tuple(round(0.70 + i / 100, 2) for i in range(30))  # 0.70 .. 0.99
OPTIMAL_RANGE = (0.70, 0.95)  # fsrs-rs R_MIN, R_MAX


@dataclass(frozen=True)
class SweepPoint:
    """The whole forecast at one desired retention."""

    retention: float
    reviews: float  # answers on review days plus one first showing per new card
    minutes: float  # all study time, learning and relearning steps included
    memorized: float  # cards expected to be recalled on the last day

    @property
    def minutes_per_card(self) -> float:
        """Study minutes per card remembered at the end: what the optimum minimises."""
        return self.minutes / self.memorized if self.memorized > 0 else float("inf")

    def as_dict(self) -> dict[str, Any]:
        return {
            "retention": self.retention,
            "reviews": shown(self.reviews),
            "minutes": shown(self.minutes),
            "memorized": shown(self.memorized),
        }


@dataclass(frozen=True)
class Sweep:
    points: tuple[SweepPoint, ...]
    optimal_retention: float  # rounded to 0.01, as Anki's deck options take it
    current: float  # the desired retention the deck is previewed with

    @property
    def at_range_edge(self) -> bool:
        """True when the optimum is the lowest retention searched: a lower one might
        cost even less."""
        return self.optimal_retention <= OPTIMAL_RANGE[0]


# Simulated cards per retention: a small deck is simulated in copies until it has this
# many. The sweep runs some thirty forecasts where the preview runs one, and compares
# them with each other: a third of the preview's copies keeps its figures within the
# spread of Anki's own simulator from one run to the next. A large deck is simulated
# whole, as always.
MIN_SWEEP_CARDS = 3_000


def _point(cards: int, settings: PreviewSettings, days: int, seed: int) -> SweepPoint:
    from deckbuilder.schedule.simulation import simulate  # NumPy: imported when a sweep is made

    replicas = max(1, -(-MIN_SWEEP_CARDS // cards)) if cards else 1
    totals = simulate(cards, replicas, settings, days, seed)
    return SweepPoint(
        retention=settings.desired_retention,
        reviews=float(totals.reviews.sum() + totals.new.sum()) / replicas,
        minutes=float(totals.seconds.sum()) / 60.0 / replicas,
        memorized=float(totals.memorized[-1]) / replicas if days else 0.0,
    )


def sweep(cards: int, settings: PreviewSettings, days: int, seed: int = 42) -> Sweep:
    """The forecast at each of SWEEP_RETENTIONS, and the optimal retention, for ``cards``
    new cards studied ``days`` days with ``settings`` (its retention aside). Every
    retention is simulated with the same seed, so the curve is smooth from one to the
    next."""
    cache: dict[float, SweepPoint] = {}

    def at(retention: float) -> SweepPoint:
        key = round(retention, 9)
        if key not in cache:
            cache[key] = _point(cards, settings.with_values(desired_retention=key), days, seed)
        return cache[key]

    points = tuple(at(r) for r in SWEEP_RETENTIONS)
    best = brent_minimum(lambda r: at(r).minutes_per_card, *OPTIMAL_RANGE) if cards else 0.9
    return Sweep(points, round(best, 2), settings.desired_retention)


def brent_minimum(
    target: Callable[[float], float], low: float, high: float, tol: float = 0.01
) -> float:
    """Brent's minimisation of ``target`` over [low, high] from ``low``, step for step as
    fsrs-rs ``optimal_retention`` runs it (scipy's ``brent`` without a bracketing
    search): the same points are evaluated in the same order, so the same function
    gives the same answer."""
    golden, mintol, max_iterations = 0.381966, 1e-10, 64
    x = v = w = low
    fx = fv = fw = target(low)
    a, b = low, high
    step = rat = 0.0
    for _ in range(max_iterations):
        tol1 = tol * abs(x) + mintol
        tol2 = 2.0 * tol1
        xmid = 0.5 * (a + b)
        if abs(x - xmid) < tol2 - 0.5 * (b - a):
            break
        if abs(step) <= tol1:
            step = (a if x >= xmid else b) - x
            rat = golden * step
        else:
            tmp1 = (x - w) * (fx - fv)
            tmp2 = (x - v) * (fx - fw)
            p = (x - v) * tmp2 - (x - w) * tmp1
            tmp2 = 2.0 * (tmp2 - tmp1)
            if tmp2 > 0:
                p = -p
            tmp2 = abs(tmp2)
            previous, step = step, rat
            if tmp2 * (a - x) < p < tmp2 * (b - x) and abs(p) < abs(0.5 * tmp2 * previous):
                rat = p / tmp2
                u = x + rat
                if u - a < tol2 or b - u < tol2:
                    rat = tol1 if xmid - x >= 0 else -tol1
            else:
                step = (a if x >= xmid else b) - x
                rat = golden * step
        u = x + (rat if abs(rat) >= tol1 else (tol1 if rat >= 0 else -tol1))
        fu = target(u)
        if fu > fx:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, w, fv, fw = w, u, fw, fu
            elif fu <= fv or v in (x, w):
                v, fv = u, fu
        else:
            if u >= x:
                a = x
            else:
                b = x
            v, w, x = w, x, u
            fv, fw, fx = fw, fx, fu
    return min(max(x, low), high)
