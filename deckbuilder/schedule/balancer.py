"""Anki's load balancer, as its FSRS simulator applies it: each answered card's interval
moves within Anki's fuzz range to a day with fewer cards due.
"""

from __future__ import annotations

import numpy as np
from fsrs.scheduler import FUZZ_RANGES

from deckbuilder.schedule.memory import FloatArray, IntArray

__all__ = ["LoadBalancer", "fuzz_bounds"]


def fuzz_bounds(ivl: IntArray, maximum: int) -> tuple[IntArray, IntArray]:
    """Anki's fuzz range of each interval: the days the load balancer may choose from.

    One day either side, plus a share of the interval's days in each of FSRS's fuzz
    ranges (py-fsrs's FUZZ_RANGES: 15% of those between 2.5 and 7, 10% of those between
    7 and 20 and 5% of those past 20; none below 2.5 days); rounded, kept within
    1..maximum, and at least two days wide when the interval is over 2.
    """
    x = np.minimum(np.maximum(ivl, 1), maximum).astype(np.float64)
    delta = 1.0 + sum(
        share["factor"] * np.clip(np.minimum(x, share["end"]) - share["start"], 0.0, None)
        for share in FUZZ_RANGES
    )
    delta = np.where(x < FUZZ_RANGES[0]["start"], 0.0, delta)
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
        # Fuzz ranges as tables up to an interval whose range starts past the counted
        # days: a longer one lands where it is moot (see place).
        self.longest = min(maximum, 2 * self.horizon + 10)
        ivl = np.arange(self.longest + 1, dtype=np.int64)
        self.lower, self.upper = fuzz_bounds(ivl, maximum)
        # A row per copy: the counted days, then the empty days that a range crossing
        # their end may reach.
        crossing = (self.upper - self.lower)[self.lower < self.horizon]
        self.row = self.horizon + int(crossing.max(initial=0)) + 2
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

    def place(self, draw: FloatArray, replica: IntArray, ivl: IntArray, day: int) -> IntArray:
        """The balanced intervals of cards answered on ``day`` (at most ``maximum``), each
        chosen by a uniform number in ``draw``."""
        ivl = np.minimum(ivl, self.longest)
        lo, hi = self.lower[ivl], self.upper[ivl]
        # A card whose range starts past the counted days is never reviewed again in the
        # simulation and is not counted, so where it lands is moot: the start of its range.
        # The others are weighed; a range that crosses the end of the counted days has
        # empty days there, so their row reaches past it.
        pick: IntArray = lo.copy()
        near = np.nonzero(lo < self.horizon - day)[0]
        if len(near):
            pick[near] = self._balanced(replica[near], lo[near], hi[near], day, draw[near])
        due = np.minimum(day + pick, self.horizon)  # the horizon's slot collects the rest
        np.add.at(self.flat, due + self.offset[replica], 1)
        self.counts[:, self.horizon] = 0
        return pick

    def _balanced(
        self, replica: IntArray, lo: IntArray, hi: IntArray, day: int, draw: FloatArray
    ) -> IntArray:
        """A day in each card's range ``lo..hi``, drawn with the balancer's weights."""
        # Two ways to the same draw: weigh the days ahead once per copy of the deck that
        # answered cards today (cheap for a big deck, where the copies are few), or
        # weigh each card's own fuzz range (cheap for a small deck in many copies), in
        # groups of cards with ranges about as wide, so that a few wide ranges do not
        # widen the work of the many narrow ones.
        days_ahead = int(hi.max())
        if len(self.offset) == 1:
            return self._pick_by_copy(self.offset, replica, lo, hi, days_ahead, day, draw)
        bits = np.ceil(np.log2(hi - lo + 1)).astype(np.int64)  # widths up to 2**bits
        if min(len(self.offset), len(lo)) * days_ahead <= 2 * int((1 << bits).sum()):
            copies = np.unique(replica)
            return self._pick_by_copy(copies, replica, lo, hi, days_ahead, day, draw)
        pick = np.empty_like(lo)
        for b in np.nonzero(np.bincount(bits))[0].tolist():
            group = np.nonzero(bits == b)[0]
            pick[group] = self._pick_by_card(
                replica[group], lo[group], hi[group], 1 << b, day, draw[group]
            )
        return pick

    def _weights(self, c: IntArray, ahead: FloatArray) -> FloatArray:
        """The weight of a day that has ``c`` cards due, ``ahead`` being the interval
        weight of its distance from today."""
        w: FloatArray = self.count_weight[c] * ahead + (c == 0)
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
        every_copy = len(copies) == len(self.offset)
        if every_copy:
            c = self.counts[:, day + 1 : day + top + 1]
        else:
            c = self.counts[copies[:, None], np.arange(day + 1, day + top + 1)]
        cum = np.empty((len(copies), top + 1))
        cum[:, 0] = 0.0
        np.cumsum(self._weights(c, self.interval_weight[1 : top + 1]), axis=1, out=cum[:, 1:])
        if len(copies) > 1:  # each copy's row above the last (a row's weights sum to < top)
            cum += np.arange(len(copies), dtype=np.float64)[:, None] * (top + 1.0)
        base = (replica if every_copy else np.searchsorted(copies, replica)) * (top + 1)
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
        w = self._weights(
            self.flat[(self.offset[replica] + day)[:, None] + k], self.interval_weight[k]
        )
        w[span > (hi - lo)[:, None]] = 0.0
        cum = np.cumsum(w, axis=1)
        target = draw * cum[:, -1]
        pick: IntArray = lo + np.minimum((cum <= target[:, None]).sum(axis=1), hi - lo)
        return pick
