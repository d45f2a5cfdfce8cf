"""The interval ladder: the successive intervals of one new card, per answer pattern.

Computed with py-fsrs itself, fuzzing off.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from fsrs import Card, Rating, Scheduler

from deckbuilder.schedule.settings import PreviewSettings

LADDER_MAX_STEPS = 12


@dataclass(frozen=True)
class Ladder:
    """Successive review intervals in days of one new card, per answer pattern."""

    good: tuple[int, ...]
    hard: tuple[int, ...]
    easy: tuple[int, ...]
    again_good: tuple[int, ...]
    # Where each pattern stops: at the first interval that reaches day ``horizon``, or
    # after ``max_steps`` intervals (so the rows differ in length).
    horizon: int = 0
    max_steps: int = LADDER_MAX_STEPS

    def as_dict(self) -> dict[str, list[int]]:
        return {
            "good": list(self.good),
            "hard": list(self.hard),
            "easy": list(self.easy),
            "again_good": list(self.again_good),
        }


def ladder(settings: PreviewSettings, horizon: int, max_steps: int = LADDER_MAX_STEPS) -> Ladder:
    """Intervals of a new card reviewed on its due days with py-fsrs, fuzzing off.

    Learning and relearning steps are left out: every answer is a day-level review, so
    each entry is a whole number of days (the pure FSRS intervals, as Anki shows them
    on the answer buttons of a review card). A pattern stops after ``max_steps``
    intervals or at the first interval that ends beyond ``horizon`` days.
    """
    scheduler = Scheduler(
        parameters=settings.parameters,
        desired_retention=settings.study.desired_retention,
        learning_steps=(),
        relearning_steps=(),
        maximum_interval=settings.study.maximum_interval,
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
        horizon=horizon,
        max_steps=max(1, max_steps),
    )
