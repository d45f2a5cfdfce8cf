"""The workload forecast of a deck and its summary in a few numbers.

The forecast models what Anki's own FSRS simulator models (fsrs-rs ``simulate``, which
Anki calls for "Simulate" in deck options): a first rating drawn on first sight, same-day
learning steps whose ratings follow a Markov chain, review ratings drawn from the
forgetting curve, relearning steps after a lapse, seconds per rating in each state, a
new-card limit and a review limit per day, a maximum interval, and Anki's load balancer
(the interval fuzz its simulator applies). The simulation itself (NumPy) is in
:mod:`.simulation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deckbuilder.schedule.settings import PreviewSettings
from deckbuilder.schedule.simulation import simulate

# Every figure of a day (cards and minutes) is shown with this many decimals, in every
# output: text, JSON, the page and the build line.
DECIMALS = 1
FIRST_WEEKS = 14  # days: "the first two weeks", when a new deck's load is highest


def shown(value: float) -> float:
    """``value`` as the outputs show it: rounded to DECIMALS (which also drops the float
    noise of a sum of shown figures)."""
    return round(value, DECIMALS)


@dataclass(frozen=True)
class Forecast:
    """Expected per-day figures over the horizon; index 0 is the first study day."""

    cards: int
    reviews: tuple[float, ...]  # review answers (first answers of new cards not included)
    new: tuple[float, ...]  # cards seen for the first time
    minutes: tuple[float, ...]  # time spent, learning steps and relearning included
    # Cards expected to be recalled if asked that day: the sum of every introduced card's
    # probability of recall.
    memorized: tuple[float, ...]

    @property
    def days(self) -> int:
        return len(self.reviews)

    def as_shown(self) -> Forecast:
        """Each day's figures rounded once, to what every output shows (see DECIMALS)."""
        return Forecast(
            cards=self.cards,
            reviews=tuple(map(shown, self.reviews)),
            new=tuple(map(shown, self.new)),
            minutes=tuple(map(shown, self.minutes)),
            memorized=tuple(map(shown, self.memorized)),
        )

    def as_dict(self) -> dict[str, Any]:
        days = self.as_shown()
        return {
            "cards": self.cards,
            "reviews": list(days.reviews),
            "new": list(days.new),
            "minutes": list(days.minutes),
            "memorized": list(days.memorized),
        }


MIN_SIMULATED_CARDS = 10_000


def simulated_cards(cards: int) -> int:
    """How many cards the forecast of a deck of ``cards`` simulates: the deck in as many
    copies as reach MIN_SIMULATED_CARDS."""
    return cards * _copies(cards)


def _copies(cards: int) -> int:
    return max(1, -(-MIN_SIMULATED_CARDS // cards)) if cards else 1


def forecast(
    cards: int,
    settings: PreviewSettings,
    days: int,
    seed: int = 42,
    replicas: int | None = None,
    memorized_every_day: bool = True,
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

    With ``memorized_every_day=False`` the cards memorized are counted on the last day
    only (0 on the others), which is all a summary reads: the other figures are the same.
    """
    if cards < 0 or days < 0:
        raise ValueError("cards and days must be 0 or more")
    if replicas is None:
        replicas = _copies(cards)
    totals = simulate(
        cards, replicas, settings, days, seed, memorized_every_day=memorized_every_day
    )
    return Forecast(
        cards=cards,
        reviews=tuple((totals.reviews[0] / replicas).tolist()),
        new=tuple((totals.new[0] / replicas).tolist()),
        minutes=tuple((totals.seconds[0] / 60.0 / replicas).tolist()),
        memorized=tuple((totals.memorized[0] / replicas).tolist()),
    )


def introduced(fc: Forecast) -> int | None:
    """The day (1-based) the last new card is seen, or None; from the days as simulated
    (the days as shown could lose a card to rounding)."""
    seen = 0.0
    for day, count in enumerate(fc.new, start=1):
        seen += count
        if seen >= fc.cards - 1e-9:
            return day
    return None


@dataclass(frozen=True)
class Peak:
    """The most of something in a day, and the first day (1-based) it happens; day 0
    when every day is zero."""

    value: float
    day: int


def peak(values: Sequence[float], first_day: int = 1) -> Peak:
    """The highest of ``values``, the days from ``first_day`` on, and its first day."""
    top = max(values, default=0.0)
    return Peak(top, values.index(top) + first_day if top > 0 else 0)


@dataclass(frozen=True)
class Load:
    """Reviews and minutes over days ``first_day`` to ``last_day`` (1-based, inclusive),
    from the days as shown: totals are the sums of those days, peaks are one of them."""

    first_day: int
    last_day: int
    total_reviews: float
    total_minutes: float
    peak_reviews: Peak
    peak_minutes: Peak

    @property
    def days(self) -> int:
        return max(0, self.last_day - self.first_day + 1)

    @property
    def average_reviews(self) -> float:
        return self.total_reviews / self.days if self.days else 0.0

    @property
    def average_minutes(self) -> float:
        return self.total_minutes / self.days if self.days else 0.0

    def as_dict(self) -> dict[str, Any]:
        # "peak_day" (of reviews) keeps the name it had before minutes had a peak.
        return {
            "total_reviews": shown(self.total_reviews),
            "average_reviews_per_day": shown(self.average_reviews),
            "peak_reviews_per_day": shown(self.peak_reviews.value),
            "peak_day": self.peak_reviews.day,
            "total_minutes": shown(self.total_minutes),
            "average_minutes_per_day": shown(self.average_minutes),
            "peak_minutes_per_day": shown(self.peak_minutes.value),
            "peak_minutes_day": self.peak_minutes.day,
        }


def load(fc: Forecast, first_day: int = 1, last_day: int | None = None) -> Load:
    """The load of days ``first_day`` to ``last_day`` (default: the last) of a forecast,
    from its days as shown."""
    last = fc.days if last_day is None else min(last_day, fc.days)
    days = fc.as_shown()
    reviews = days.reviews[first_day - 1 : last]
    minutes = days.minutes[first_day - 1 : last]
    return Load(
        first_day=first_day,
        last_day=last,
        total_reviews=shown(sum(reviews)),
        total_minutes=shown(sum(minutes)),
        peak_reviews=peak(reviews, first_day),
        peak_minutes=peak(minutes, first_day),
    )


@dataclass(frozen=True)
class Summary:
    """The forecast in a few numbers. Days are 1-based (day 1 is the first study day)."""

    cards: int
    days: int
    whole: Load  # every day of the forecast
    first_weeks: Load  # days 1 to 14 (fewer when the forecast is shorter)
    introduced_by: int | None  # the day the last new card is seen; None: not in the horizon
    memorized_end: float  # cards expected to be recalled if asked on the last day

    def as_dict(self) -> dict[str, Any]:
        first_weeks = {
            "first_day": self.first_weeks.first_day,
            "last_day": self.first_weeks.last_day,
            **self.first_weeks.as_dict(),
        }
        return {
            "cards": self.cards,
            "days": self.days,
            **self.whole.as_dict(),
            "fully_introduced_day": self.introduced_by,
            "memorized_at_end": shown(self.memorized_end),
            "first_two_weeks": first_weeks,
        }


def summarize(fc: Forecast) -> Summary:
    """Totals, peaks and averages of reviews and minutes, over the whole forecast and its
    first two weeks; the day the deck is fully introduced; cards memorized at the end.

    Every figure comes from the days as shown (:meth:`Forecast.as_shown`), so the totals
    are the sums of the days a reader sees and each peak is one of them."""
    days = fc.as_shown()
    return Summary(
        cards=fc.cards,
        days=fc.days,
        whole=load(days),
        first_weeks=load(days, 1, FIRST_WEEKS),
        introduced_by=0 if fc.cards == 0 else introduced(fc),
        memorized_end=days.memorized[-1] if fc.days else 0.0,
    )
