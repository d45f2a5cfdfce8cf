"""The workload forecast of a deck and its summary in a few numbers.

The forecast models what Anki's own FSRS simulator models (fsrs-rs ``simulate``, which
Anki calls for "Simulate" in deck options): a first rating drawn on first sight, same-day
learning steps whose ratings follow a Markov chain, review ratings drawn from the
forgetting curve, relearning steps after a lapse, seconds per rating in each state, a
new-card limit and a review limit per day, a maximum interval, and Anki's load balancer
(the interval fuzz its simulator applies). The simulation itself (NumPy) is in
:mod:`.simulation`, imported when a forecast is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .settings import PreviewSettings

__all__ = ["MIN_SIMULATED_CARDS", "Forecast", "Summary", "forecast", "summarize"]


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
    if cards < 0 or days < 0:
        raise ValueError("cards and days must be 0 or more")
    if replicas is None:
        replicas = max(1, -(-MIN_SIMULATED_CARDS // cards)) if cards else 1
    from .simulation import simulate  # NumPy: imported when a forecast is made

    totals = simulate(cards, replicas, settings, days, seed)
    return Forecast(
        cards=cards,
        reviews=tuple(float(x) / replicas for x in totals.reviews),
        new=tuple(float(x) / replicas for x in totals.new),
        minutes=tuple(float(x) / 60.0 / replicas for x in totals.seconds),
        memorized=tuple(float(x) / replicas for x in totals.memorized),
    )


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
