"""Anki's load balancer, as its FSRS simulator applies it: each answered card's interval
moves within Anki's fuzz range to a day with fewer cards due.
"""

from __future__ import annotations

import numpy as np

from deckbuilder.schedule.memory import FloatArray, IntArray

__all__ = ["LoadBalancer", "fuzz_bounds"]


def fuzz_bounds(ivl: IntArray, maximum: int) -> tuple[IntArray, IntArray]:
    """Anki's fuzz range of each interval: the days the load balancer may choose from.

    One day either side, plus 15% of the interval's days between 2.5 and 7, 10% of
    those between 7 and 20 and 5% of those past 20 (none below 2.5 days); rounded,
    kept within 1..maximum, and at least two days wide when the interval is over 2.
    """
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


class LoadBalancer:
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
        self.horizon = days + days // 2  # the simulator's due-count array
        _, widest = fuzz_bounds(np.asarray([self.horizon + days + 2]), 10**9)
        # A row per copy: the counted days, then empty days for ranges that cross the end.
        self.row = self.horizon + 2 * int(widest[0]) + 2
        # Fuzz ranges as tables up to an interval past the row (a longer one only lands
        # past the row, and where is moot: see place).
        self.longest = min(maximum, 2 * self.row)
        ivl = np.arange(self.longest + 1, dtype=np.int64)
        self.lower, self.upper = fuzz_bounds(ivl, maximum)
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
        copies = np.unique(replica)
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
        k = np.arange(1, top + 1, dtype=np.int64)
        c = self.counts[copies[:, None], day + k]
        cum = np.empty((len(copies), top + 1))
        cum[:, 0] = 0.0
        np.cumsum(self._weights(c, k), axis=1, out=cum[:, 1:])
        # each copy's row above the last
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
        span = np.arange(width, dtype=np.int64)
        k = np.minimum(lo[:, None] + span, hi[:, None])
        w = self._weights(self.flat[(self.offset[replica] + day)[:, None] + k], k)
        w[span > (hi - lo)[:, None]] = 0.0
        cum = np.cumsum(w, axis=1)
        target = draw * cum[:, -1]
        pick: IntArray = lo + np.minimum((cum <= target[:, None]).sum(axis=1), hi - lo)
        return pick
