"""Workload against desired retention: the forecast at every retention Anki offers, and the
retention that costs the least study time per card remembered.

The sweep follows Anki's workload graph (``simulate_fsrs_workload``): desired retention
0.70 to 0.99 in steps of 0.01, and ``reviews`` counts every answer on a review day plus one
first showing per new card, as Anki's graph counts them. The optimal retention is the one
of 0.70 to 0.95 (fsrs-rs ``optimal_retention``'s range) with the least total study time
per card expected to be recalled on the last day, the target fsrs-rs minimises.

Every retention is simulated in one run (:func:`deckbuilder.schedule.simulation.simulate`
with a group of copies per retention), each card drawing the same random numbers at
every retention, so the curve rises as the workload does instead of zigzagging with the
noise of thirty separate runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deckbuilder.schedule.settings import PreviewSettings
from deckbuilder.schedule.simulation import simulate
from deckbuilder.schedule.workload import shown

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
    # One of the points', as Anki's deck options take it; None when no retention has a
    # card remembered on the last day (none studied), so none costs less per card.
    optimal_retention: float | None
    current: float  # the desired retention the deck is previewed with
    simulated_cards: int  # per retention: the deck, in as many copies as it takes

    @property
    def edge(self) -> str:
        """'lowest' or 'highest' when the optimum is that end of the retentions searched
        (OPTIMAL_RANGE), '' when it lies inside them or there is none."""
        if self.optimal_retention is None:
            return ""
        if self.optimal_retention <= OPTIMAL_RANGE[0] + 1e-9:
            return "lowest"
        if self.optimal_retention >= OPTIMAL_RANGE[1] - 1e-9:
            return "highest"
        return ""

    def point_at(self, retention: float) -> SweepPoint | None:
        """The point of ``retention`` (one of SWEEP_RETENTIONS), or None."""
        return next((p for p in self.points if abs(p.retention - retention) < 1e-9), None)


# Simulated cards per retention: a small deck is simulated in copies until it has this
# many. One draw of 3,000 cards strays up to 7% from the mean at low retentions, and the
# same random numbers at every retention carry that error along the whole curve.
MIN_SWEEP_CARDS = 10_000


def sweep(cards: int, settings: PreviewSettings, days: int, seed: int = 42) -> Sweep:
    """The forecast at each of SWEEP_RETENTIONS, and the optimal retention, for ``cards``
    new cards studied ``days`` days with ``settings`` (its retention aside)."""
    copies = max(1, -(-MIN_SWEEP_CARDS // cards)) if cards else 1
    totals = simulate(
        cards,
        copies,
        settings,
        days,
        seed,
        SWEEP_RETENTIONS,
        memorized_every_day=False,
        stage="sweep",
    )
    points = tuple(
        SweepPoint(
            retention=retention,
            reviews=float(totals.reviews[g].sum() + totals.new[g].sum()) / copies,
            minutes=float(totals.seconds[g].sum()) / 60.0 / copies,
            memorized=float(totals.memorized[g, -1]) / copies if days else 0.0,
        )
        for g, retention in enumerate(SWEEP_RETENTIONS)
    )
    searched = [p for p in points if p.retention <= OPTIMAL_RANGE[1] + 1e-9 and p.memorized > 0]
    best = min(searched, key=lambda p: p.minutes_per_card).retention if searched else None
    return Sweep(points, best, settings.study.desired_retention, cards * copies)
