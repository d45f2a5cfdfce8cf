"""The workload simulation: copies of a deck studied day by day, as Anki's simulator does.

One Python iteration per simulated day; NumPy arrays hold every card of every copy.
Card i belongs to copy ``i % n_rep`` and is that copy's ``i // n_rep``-th new card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deckbuilder.schedule.answers import StepPool, apply_steps, draw_ratings, step_ratings
from deckbuilder.schedule.balancer import LoadBalancer
from deckbuilder.schedule.memory import FloatArray, IntArray, MemoryModel
from deckbuilder.schedule.settings import PreviewSettings, ReviewBehaviour

__all__ = ["DailyTotals", "simulate"]


@dataclass(frozen=True)
class DailyTotals:
    """Per-day sums over every copy; index 0 is the first study day."""

    reviews: FloatArray
    new: FloatArray
    seconds: FloatArray
    memorized: FloatArray


def simulate(
    cards: int, n_rep: int, settings: PreviewSettings, days: int, seed: int
) -> DailyTotals:
    """Study ``n_rep`` copies of a deck of ``cards`` new cards for ``days`` days.

    Each day, due cards are reviewed first (with a review limit, each copy reviews the
    earliest scheduled first and the rest wait a day), then new cards are learned.
    """
    total = cards * n_rep
    rng = np.random.default_rng(seed)
    model = MemoryModel(settings.parameters, settings.desired_retention)
    behaviour = settings.behaviour
    relearning = StepPool(
        rng,
        len(settings.relearning_steps),
        np.asarray(behaviour.relearning_step_transitions, dtype=np.float64),
        size=total,
    )
    learned_s, learned_d, learn_cost = _first_days(rng, model, settings, total)
    limit = settings.review_limit

    replica = np.arange(total, dtype=np.int64) % n_rep
    s = np.ones(total)
    d = np.ones(total)
    last = np.zeros(total)  # day of the last answer (float: used in float arithmetic)
    due = np.full(total, np.iinfo(np.int64).max, dtype=np.int64)  # due once introduced
    seen = np.zeros(total, dtype=bool)
    intro = np.zeros(n_rep, dtype=np.int64)  # new cards introduced per copy
    reviews = np.zeros(days)
    new = np.zeros(days)
    seconds = np.zeros(days)
    memorized = np.zeros(days)

    balancer = (
        LoadBalancer(n_rep, days, settings.maximum_interval, cards, settings.new_per_day)
        if settings.load_balancer
        else None
    )
    for day in range(days):
        # Reviews: every introduced card whose due day has come, within the review limit.
        idx = np.flatnonzero(due <= day)
        if limit is not None:
            per_copy = np.bincount(replica[idx], minlength=n_rep)
            waiting = np.maximum(per_copy - limit, 0)
            if waiting.any():
                idx = _within_limit(idx, due, replica, per_copy, limit)
                if balancer is not None:
                    balancer.postpone(waiting, day)
                per_copy -= waiting
        if len(idx):
            s[idx], d[idx], cost = _answer_reviews(
                rng, model, behaviour, relearning, day - last[idx], s[idx], d[idx]
            )
            reviews[day] = len(idx)
            seconds[day] += cost.sum()

        # New cards, after the reviews (sharing the review limit unless told not to).
        quota = np.minimum(settings.new_per_day, cards - intro)
        if limit is not None and not settings.new_cards_ignore_review_limit:
            quota = np.minimum(quota, np.maximum(0, limit - per_copy))
        n_new = int(quota.sum())
        fresh = np.zeros(0, dtype=np.int64)
        if n_new:
            fresh = _new_cards(quota, intro, n_rep)
            intro += quota
            s[fresh], d[fresh] = learned_s[fresh], learned_d[fresh]
            seen[fresh] = True
            new[day] = n_new
            seconds[day] += learn_cost[fresh].sum()

        # Schedule everything answered today.
        answered = np.concatenate([idx, fresh])
        if len(answered):
            ivl = model.interval(s[answered], settings.maximum_interval)
            if balancer is not None:
                ivl = balancer.place(rng, replica[answered], ivl, day)
            last[answered], due[answered] = day, day + ivl

        memorized[day] = model.retrievability(day - last[seen], s[seen]).sum()

    return DailyTotals(reviews=reviews, new=new, seconds=seconds, memorized=memorized)


def _first_days(
    rng: np.random.Generator, model: MemoryModel, settings: PreviewSettings, total: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Memory state and seconds of every card at the end of the day it is first seen: a
    first rating, then the learning steps. Neither depends on which day that is, so they
    are drawn for every card up front."""
    behaviour = settings.behaviour
    costs = np.asarray(behaviour.learning_costs, dtype=np.float64)
    first = draw_ratings(rng, behaviour.first_rating, total)
    steps = step_ratings(
        rng,
        first,
        len(settings.learning_steps),
        np.asarray(behaviour.learning_step_transitions, dtype=np.float64),
    )
    s, d, cost = apply_steps(
        model, model.init_s_table[first], model.init_d_table[first], steps, costs
    )
    cost += costs[first - 1]
    return s, d, cost


def _within_limit(
    idx: IntArray, due: IntArray, replica: IntArray, per_copy: IntArray, limit: int
) -> IntArray:
    """The due cards ``idx`` that their copy reviews today: its ``limit`` cards scheduled
    earliest."""
    order = np.lexsort((due[idx], replica[idx]))
    ranked = idx[order]
    starts = np.cumsum(per_copy) - per_copy
    rank = np.arange(len(ranked)) - starts[replica[ranked]]
    kept: IntArray = np.sort(ranked[rank < limit])
    return kept


def _answer_reviews(
    rng: np.random.Generator,
    model: MemoryModel,
    behaviour: ReviewBehaviour,
    relearning: StepPool,
    elapsed: FloatArray,
    s: FloatArray,
    d: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Stability, difficulty and seconds after reviewing cards last answered ``elapsed``
    days ago: recalled with the forgetting curve's probability, then rated Hard, Good or
    Easy; otherwise forgotten, then relearned in the relearning steps."""
    n = len(s)
    r = model.retrievability(elapsed, s)
    recalled = rng.random(n) < r
    rating = np.where(recalled, draw_ratings(rng, behaviour.review_rating, n) + 1, 1)
    new_d = model.next_d(d, rating)
    new_s = model.recall_s(s, r, d, rating)
    cost: FloatArray = np.asarray(behaviour.review_costs, dtype=np.float64)[rating - 1]
    lapsed = np.flatnonzero(~recalled)
    new_s[lapsed] = model.forget_s(s[lapsed], r[lapsed], d[lapsed])
    if len(lapsed) and relearning.step_count:
        relearned_s, relearned_d, relearn_cost = apply_steps(
            model,
            new_s[lapsed],
            new_d[lapsed],
            relearning.take(len(lapsed)),
            np.asarray(behaviour.relearning_costs, dtype=np.float64),
        )
        new_s[lapsed], new_d[lapsed] = relearned_s, relearned_d
        cost[lapsed] += relearn_cost
    return new_s, new_d, cost


def _new_cards(quota: IntArray, intro: IntArray, n_rep: int) -> IntArray:
    """The cards seen for the first time today: ``quota[c]`` of copy c, after the
    ``intro[c]`` it has seen. The order of the cards decides which of the load balancer's
    draws each one gets."""
    count = int(quota.sum())
    if count == quota[0] * n_rep and intro.min() == intro.max():
        # Every copy introduces as many: one run of consecutive cards.
        return np.arange(intro[0] * n_rep, (intro[0] + quota[0]) * n_rep)
    copy = np.repeat(np.arange(n_rep, dtype=np.int64), quota)
    offset = np.arange(count) - np.repeat(np.cumsum(quota) - quota, quota)
    fresh: IntArray = copy + n_rep * (intro[copy] + offset)
    return fresh
