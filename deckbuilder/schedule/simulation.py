"""The workload simulation: copies of a deck studied day by day, as Anki's simulator does.

One Python iteration per simulated day; NumPy arrays hold every card of every copy. The
copies may be studied at different desired retentions, one group of copies each, so that
a retention sweep is one run rather than thirty: the desired retention only sets how long
the intervals are. Card i belongs to copy ``i % n_copies`` and is that copy's
``i // n_copies``-th new card; copy c studies at ``retentions[c // copies]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from deckbuilder.progress import step
from deckbuilder.schedule.answers import CardDraws, SessionPool, apply_steps, ratings, step_ratings
from deckbuilder.schedule.balancer import LoadBalancer
from deckbuilder.schedule.memory import FloatArray, IntArray, MemoryModel
from deckbuilder.schedule.settings import PreviewSettings, ReviewBehaviour


@dataclass(frozen=True)
class DailyTotals:
    """Per-day sums over the copies of each group: row g for the copies studied at the
    g-th retention, column 0 for the first study day."""

    reviews: FloatArray
    new: FloatArray
    seconds: FloatArray
    memorized: FloatArray  # summed on the days asked for, 0 on the others


def simulate(
    cards: int,
    copies: int,
    settings: PreviewSettings,
    days: int,
    seed: int,
    retentions: Sequence[float] | None = None,
    memorized_every_day: bool = True,
    stage: str = "forecast",
) -> DailyTotals:
    """Study ``copies`` copies of a deck of ``cards`` new cards for ``days`` days, at each
    of ``retentions`` (default: the settings' desired retention).

    Each day, due cards are reviewed first (with a review limit, each copy reviews the
    earliest scheduled first and the rest wait a day), then new cards are learned. Cards
    memorized are summed every day, or with ``memorized_every_day=False`` on the last
    day only (what a sweep compares). Each day simulated is reported as a step of
    ``stage`` (see :mod:`deckbuilder.progress`).
    """
    retentions = (settings.study.desired_retention,) if retentions is None else tuple(retentions)
    groups = len(retentions)
    n_copies = copies * groups
    total = cards * n_copies
    rng = np.random.default_rng(seed)
    model = MemoryModel(settings.parameters, settings.study.desired_retention)
    behaviour = settings.behaviour
    answers = _Answers(behaviour)
    relearning = SessionPool(
        rng,
        len(settings.study.relearning_steps),
        np.asarray(behaviour.relearning_step_transitions, dtype=np.float64),
    )
    limit = settings.study.review_limit
    if limit is not None and limit >= cards:
        limit = None  # a copy never has more cards due than it has: no limit to keep
    replica = np.arange(total, dtype=np.int64) % n_copies
    group = replica // copies
    copy_group = np.arange(n_copies, dtype=np.int64) // copies
    # The same card at every retention draws the same random numbers (see draws.py): its
    # first day once, and each later answer by its number.
    same_card = np.arange(total, dtype=np.int64) // n_copies * copies + replica % copies
    draws = CardDraws(seed)
    answer_number = np.zeros(total, dtype=np.int64)
    learned_s, learned_d, learn_cost = (
        a[same_card] for a in _first_days(rng, model, settings, cards * copies)
    )
    interval_factor = np.asarray([model.interval_factor(r) for r in retentions])[group]
    s = np.ones(total)
    d = np.ones(total)
    last = np.zeros(total)  # day of the last answer (float: used in float arithmetic)
    # factor / stability of each card seen, 0 for the others (whose recall is then 1):
    # the forgetting curve without a division per card and day.
    pace = np.zeros(total)
    due = np.full(total, np.iinfo(np.int64).max, dtype=np.int64)  # due once introduced
    intro = np.zeros(n_copies, dtype=np.int64)  # new cards introduced per copy
    shape = (groups, days)
    reviews, new, seconds, memorized = (np.zeros(shape) for _ in range(4))
    curve = np.empty(total)  # each card's recall probability, on the days it is summed

    def per_group(cards_of: IntArray, weights: FloatArray | None = None) -> FloatArray:
        sums: FloatArray = np.bincount(group[cards_of], weights, minlength=groups).astype(float)
        return sums

    balancer = (
        LoadBalancer(
            n_copies, days, settings.study.maximum_interval, cards, settings.study.new_per_day, due
        )
        if settings.load_balancer
        else None
    )
    for day in range(days):
        # Reviews: every introduced card whose due day has come, within the review limit.
        idx = np.nonzero(due <= day)[0]
        if limit is not None:
            per_copy = np.bincount(replica[idx], minlength=n_copies)
            waiting = np.maximum(per_copy - limit, 0)
            if waiting.any():
                idx = _within_limit(idx, due, replica, per_copy, limit)
                if balancer is not None:
                    balancer.postpone(waiting, day)
                per_copy -= waiting
        # The random numbers of each answer today: whether it is recalled, its rating,
        # its relearning session and the load balancer's day.
        balance = np.zeros(0)
        if len(idx):
            recall, rate, session, balance = draws.uniform(same_card[idx], answer_number[idx])
            s[idx], d[idx], cost = _answer_reviews(
                model, answers, relearning, day - last[idx], s[idx], d[idx], recall, rate, session
            )
            if groups == 1:
                reviews[0, day] = len(idx)
                seconds[0, day] += cost.sum()
            else:
                reviews[:, day] = per_group(idx)
                seconds[:, day] += per_group(idx, cost)

        # New cards, after the reviews (sharing the review limit unless told not to).
        quota = np.minimum(settings.study.new_per_day, cards - intro)
        if limit is not None and not settings.new_cards_ignore_review_limit:
            quota = np.minimum(quota, np.maximum(0, limit - per_copy))
        n_new = int(quota.sum())
        fresh = np.zeros(0, dtype=np.int64)
        if n_new:
            fresh = _new_cards(quota, intro, n_copies)
            intro += quota
            s[fresh], d[fresh] = learned_s[fresh], learned_d[fresh]
            if groups == 1:
                new[0, day] = n_new
                seconds[0, day] += learn_cost[fresh].sum()
            else:
                new[:, day] = per_group(fresh)
                seconds[:, day] += per_group(fresh, learn_cost[fresh])

        # Schedule everything answered today.
        answered = np.concatenate([idx, fresh])
        if len(answered):
            answered_s = s[answered]
            ivl = model.interval(
                answered_s, settings.study.maximum_interval, interval_factor[answered]
            )
            if balancer is not None:
                if len(fresh):
                    first = draws.uniform(same_card[fresh], answer_number[fresh])[3]
                    balance = np.concatenate([balance, first])
                ivl = balancer.place(balance, replica[answered], ivl, day)
            last[answered], due[answered] = day, day + ivl
            answer_number[answered] += 1
            pace[answered] = model.factor / answered_s

        if memorized_every_day or day == days - 1:
            # The forgetting curve (1 + factor * elapsed / S) ** decay of every card, in
            # place; a card not yet seen counts 1 here, and its copy's unseen are taken off.
            np.subtract(day, last, out=curve)
            curve *= pace
            np.log1p(curve, out=curve)
            curve *= model.decay
            np.exp(curve, out=curve)
            unseen = cards - intro
            if groups == 1:
                memorized[0, day] = curve.sum() - unseen.sum()
            else:
                memorized[:, day] = np.bincount(group, curve, minlength=groups) - np.bincount(
                    copy_group, unseen, minlength=groups
                )
        step(stage, day + 1, days)

    return DailyTotals(reviews=reviews, new=new, seconds=seconds, memorized=memorized)


def _first_days(
    rng: np.random.Generator, model: MemoryModel, settings: PreviewSettings, total: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Memory state and seconds of every card at the end of the day it is first seen: a
    first rating, then the learning steps. Neither depends on which day that is, so they
    are drawn for every card up front."""
    behaviour = settings.behaviour
    costs = np.asarray([0.0, *behaviour.learning_costs])
    first = ratings(rng.random(total), np.cumsum(behaviour.first_rating))
    steps = step_ratings(
        rng,
        first,
        len(settings.study.learning_steps),
        np.asarray(behaviour.learning_step_transitions, dtype=np.float64),
    )
    s, d, cost = apply_steps(
        model, model.init_s_table[first], model.init_d_table[first], steps, costs
    )
    cost += costs[first]
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


class _Answers:
    """The learner's review habits as tables: the running sums of the Hard, Good and Easy
    shares, and the seconds of each answer (index 1..4; 0 costs nothing)."""

    def __init__(self, behaviour: ReviewBehaviour) -> None:
        self.review_rating = np.cumsum(behaviour.review_rating)
        self.review_costs = np.asarray([0.0, *behaviour.review_costs])
        self.relearning_costs = np.asarray([0.0, *behaviour.relearning_costs])


def _answer_reviews(
    model: MemoryModel,
    answers: _Answers,
    relearning: SessionPool,
    elapsed: FloatArray,
    s: FloatArray,
    d: FloatArray,
    recall: FloatArray,
    rate: FloatArray,
    session: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Stability, difficulty and seconds after reviewing cards last answered ``elapsed``
    days ago: recalled with the forgetting curve's probability, then rated Hard, Good or
    Easy; otherwise forgotten, then relearned in the relearning steps. Each of these is
    decided by a uniform random number: ``recall``, ``rate`` and ``session``."""
    r = model.retrievability(elapsed, s)
    recalled = recall < r
    rating = np.where(recalled, ratings(rate, answers.review_rating) + 1, 1)
    new_d = model.next_d(d, rating)
    new_s = model.recall_s(s, r, d, rating)
    cost: FloatArray = answers.review_costs[rating]
    lapsed = np.nonzero(~recalled)[0]
    if len(lapsed):
        new_s[lapsed] = model.forget_s(s[lapsed], r[lapsed], d[lapsed])
        if relearning.step_count:
            relearned_s, relearned_d, relearn_cost = apply_steps(
                model,
                new_s[lapsed],
                new_d[lapsed],
                relearning.pick(session[lapsed]),
                answers.relearning_costs,
            )
            new_s[lapsed], new_d[lapsed] = relearned_s, relearned_d
            cost[lapsed] += relearn_cost
    return new_s, new_d, cost


def _new_cards(quota: IntArray, intro: IntArray, n_copies: int) -> IntArray:
    """The cards seen for the first time today: ``quota[c]`` of copy c, after the
    ``intro[c]`` it has seen. The order of the cards decides which of the load balancer's
    draws each one gets."""
    count = int(quota.sum())
    if count == quota[0] * n_copies and intro.min() == intro.max():
        # Every copy introduces as many: one run of consecutive cards.
        return np.arange(intro[0] * n_copies, (intro[0] + quota[0]) * n_copies)
    copy = np.repeat(np.arange(n_copies, dtype=np.int64), quota)
    offset = np.arange(count) - np.repeat(np.cumsum(quota) - quota, quota)
    fresh: IntArray = copy + n_copies * (intro[copy] + offset)
    return fresh
