"""Anki's load balancer, as its FSRS simulator applies it: each answered card's interval
moves within Anki's fuzz range to a day with fewer cards due.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt
from fsrs.scheduler import FUZZ_RANGES

from deckbuilder.schedule.memory import FloatArray, IntArray

# The most a table of cards due per copy and day may take. A small deck is simulated in
# many copies (a one-card deck's sweep in 300,000), and a table of all their days would
# take gigabytes over ten years; past this size the counts come from the cards' due days.
TABLE_BYTES = 32 << 20
# Cells of the day-by-card matrices the balancer weighs at once: a day on which many
# cards are placed is weighed in parts of this size.
CHUNK_CELLS = 1 << 19


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


class _DueCounts(Protocol):
    """How many cards of a copy are due on a counted day (days before the simulator's
    horizon; later days count as empty)."""

    depth: int  # work per card of a window beyond its days: how CHUNK_CELLS is shared

    def window(self, replica: IntArray, start: IntArray, width: int) -> IntArray:
        """Counts of copy ``replica[j]`` on days ``start[j]`` to ``start[j] + width - 1``:
        a row per day, a column per card (days past the table count as empty). Many
        cards weigh a few days each: NumPy works along the long rows."""

    def add(self, replica: IntArray, due: IntArray) -> None:
        """Cards of copies ``replica`` placed on days ``due``."""

    def postpone(self, per_replica: IntArray, day: int) -> None:
        """Cards due but over the review limit, counted again on the day after ``day``."""


class _Table:
    """The counts as a table: a row of days per copy (for a deck in few copies)."""

    depth = 0

    def __init__(self, n_rep: int, row: int, horizon: int, planned: IntArray, bound: int) -> None:
        self.horizon = horizon
        self.counts: npt.NDArray[np.unsignedinteger] = np.empty(
            (n_rep, row), dtype=np.min_scalar_type(bound)
        )
        self.counts[:] = planned
        self.one = self.counts.dtype.type(1)  # np.add.at is slow with another type
        self.flat = self.counts.reshape(-1)
        self.offset = np.arange(n_rep, dtype=np.int64) * row

    def window(self, replica: IntArray, start: IntArray, width: int) -> IntArray:
        days = np.minimum(start + np.arange(width)[:, None], self.counts.shape[1] - 1)
        out: IntArray = self.flat[self.offset[replica] + days]
        return out

    def add(self, replica: IntArray, due: IntArray) -> None:
        counted = due < self.horizon
        np.add.at(self.flat, due[counted] + self.offset[replica[counted]], self.one)

    def postpone(self, per_replica: IntArray, day: int) -> None:
        if day + 1 < self.horizon:
            self.counts[:, day + 1] += per_replica.astype(self.counts.dtype)


class _FromDue:
    """The counts read from the simulation's due days, as many as the copy has cards: no
    table (for a small deck in many copies).

    ``due`` is the simulation's array, card i of copy ``i % n_rep``; it sets an answered
    card's due day after :meth:`LoadBalancer.place` returns, so a day's cards see the
    counts of earlier days only, as with the table."""

    def __init__(
        self, due: IntArray, n_rep: int, row: int, horizon: int, planned: IntArray
    ) -> None:
        self.due = due.reshape(-1, n_rep)  # column c: copy c's cards
        self.depth = self.due.shape[0]
        self.row, self.horizon, self.planned = row, horizon, planned
        self.waiting = np.zeros(n_rep, dtype=np.int64)
        self.waiting_day = -1

    def window(self, replica: IntArray, start: IntArray, width: int) -> IntArray:
        n = len(replica)
        due = self.due[:, replica]
        at = due - start  # cards never introduced are due at the largest int64: far past
        seen = (at >= 0) & (at < width) & (due < self.horizon)
        cell = (at * n + np.arange(n, dtype=np.int64))[seen]
        counts: IntArray = np.bincount(cell, minlength=width * n).reshape(width, n)
        days = np.minimum(start + np.arange(width)[:, None], self.row - 1)
        counts += self.planned[days]
        if self.waiting_day >= 0:
            counts += (days == self.waiting_day) * self.waiting[replica]
        return counts

    def add(self, replica: IntArray, due: IntArray) -> None:
        pass  # the simulation records the due days

    def postpone(self, per_replica: IntArray, day: int) -> None:
        if day + 1 < self.horizon:
            self.waiting, self.waiting_day = per_replica, day + 1


class LoadBalancer:
    """Anki's load balancer as its simulator applies it, for every simulated copy.

    Each answered card's interval moves to a day of its fuzz range, drawn with weight 1
    for a day with no card due and ``due**-2.15 * interval**-3`` otherwise, where
    ``due`` counts the cards scheduled for that day in the card's copy of the deck (as
    the simulator counts them: over 1.5 times the simulated days; later days count as
    empty). Anki places a day's cards one at a time, each seeing the ones before it;
    here a day's cards are placed together, seeing the counts from earlier days.

    The counts are a table of each copy's days, or, when that table would take over
    TABLE_BYTES, read from the simulation's ``due`` days (see :class:`_FromDue`); both
    give the same counts, so the same days.
    """

    COUNT_EXPONENT = 2.15
    INTERVAL_EXPONENT = 3.0

    def __init__(
        self,
        n_rep: int,
        days: int,
        maximum: int,
        cards: int,
        new_per_day: int,
        due: IntArray | None = None,
    ) -> None:
        self.n_rep = n_rep
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
        # A small deck's cards are weighed in classes of ranges about as wide (see
        # _balanced): a range of n days in the class of the least of 1, 2, 3, 4, 6, 8,
        # 12, ... days that is at least n, so a class weighs few days past its ranges.
        powers = [1 << b for b in range(1, self.row.bit_length() + 1)]
        self.class_width = np.asarray([1, *sorted(powers + [p * 3 // 2 for p in powers])])
        n = np.arange(1, self.row + 1)
        self.width_class = np.searchsorted(self.class_width, n).astype(np.int8)
        # The work reckoned for a range of n days weighed by card, against the days
        # ahead weighed by copy: the least power of two at least n.
        self.card_cost = 1 << np.ceil(np.log2(n)).astype(np.int64)
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
        planned = np.zeros(self.row, dtype=np.int64)
        if new_per_day > 0 and cards > 0:
            first = np.bincount(np.arange(cards) // new_per_day)[: self.horizon]
            planned[: len(first)] = first
        table = n_rep * self.row * np.min_scalar_type(2 * cards + 1).itemsize
        self.due_counts: _DueCounts = (
            _Table(n_rep, self.row, self.horizon, planned, 2 * cards + 1)
            if due is None or table <= TABLE_BYTES
            else _FromDue(due, n_rep, self.row, self.horizon, planned)
        )

    def postpone(self, per_replica: IntArray, day: int) -> None:
        """Cards due but over the review limit move to tomorrow, in the counts too."""
        self.due_counts.postpone(per_replica, day)

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
        self.due_counts.add(replica, day + pick)
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
        if self.n_rep == 1:
            return self._pick_by_copy(np.zeros(1, np.int64), replica, lo, hi, days_ahead, day, draw)
        if min(self.n_rep, len(lo)) * days_ahead <= 2 * int(self.card_cost[hi - lo].sum()):
            # The copies answering today, in order (np.unique would sort every card's copy,
            # and its first call loads numpy.ma).
            copies = np.flatnonzero(np.bincount(replica, minlength=self.n_rep))
            return self._pick_by_copy(copies, replica, lo, hi, days_ahead, day, draw)
        pick: IntArray = lo.copy()  # a range of one day (class 0) leaves no choice
        cls = self.width_class[hi - lo]
        order = np.argsort(cls, kind="stable")  # a radix sort: cls is one byte
        ends = np.cumsum(np.bincount(cls)).tolist()
        for b in range(1, len(ends)):
            group = order[ends[b - 1] : ends[b]]
            if len(group):
                pick[group] = self._pick_by_card(
                    replica[group], lo[group], hi[group], int(self.class_width[b]), day, draw[group]
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
        end to end as one increasing sequence, and each card's draw looked up in it; a
        part of the copies at a time, each keeping its place in the whole sequence."""
        # Each card's copy among ``copies`` (its own number when they are all of them).
        every = copies[-1] == len(copies) - 1
        where = replica if every else np.searchsorted(copies, replica)
        ahead = self.interval_weight[1 : top + 1]
        per_part = max(1, CHUNK_CELLS // (top + 1 + self.due_counts.depth))
        if len(copies) <= per_part:
            return self._pick_in_part(copies, 0, where, lo, hi, top, day, draw, ahead)
        pick = np.empty_like(lo)
        for first in range(0, len(copies), per_part):
            part = copies[first : first + per_part]
            cards = np.nonzero((where >= first) & (where < first + len(part)))[0]
            pick[cards] = self._pick_in_part(
                part, first, where[cards], lo[cards], hi[cards], top, day, draw[cards], ahead
            )
        return pick

    def _pick_in_part(
        self,
        part: IntArray,
        first: int,
        where: IntArray,
        lo: IntArray,
        hi: IntArray,
        top: int,
        day: int,
        draw: FloatArray,
        ahead: FloatArray,
    ) -> IntArray:
        """:meth:`_pick_by_copy` for the copies ``part``, from the ``first``-th on."""
        c = self.due_counts.window(part, np.full(len(part), day + 1), top).T
        cum = np.empty((len(part), top + 1))
        cum[:, 0] = 0.0
        np.cumsum(self._weights(c, ahead), axis=1, out=cum[:, 1:])
        if first or len(part) > 1:  # each copy's row above the last (its weights sum to < top)
            cum += np.arange(first, first + len(part), dtype=np.float64)[:, None] * (top + 1.0)
        base = (where - first) * (top + 1)
        flat = cum.reshape(-1)
        left = flat[lo - 1 + base]
        target = left + draw * (flat[hi + base] - left)
        pick: IntArray = np.minimum(np.searchsorted(flat, target, side="right") - base, hi)
        return pick

    def _pick_by_card(
        self, replica: IntArray, lo: IntArray, hi: IntArray, width: int, day: int, draw: FloatArray
    ) -> IntArray:
        """Running weights of each card's own range (``width`` days, its class's),
        and its draw looked up in them; a part of the cards at a time. Past a card's
        range the sums only grow, so its draw never lands there."""
        span = np.arange(width, dtype=np.int64)[:, None]  # a row per day, a column per card
        per_part = max(1, CHUNK_CELLS // (width + self.due_counts.depth))
        pick = np.empty_like(lo)
        for first in range(0, len(lo), per_part):
            part = slice(first, first + per_part)
            lo_, last = lo[part], hi[part] - lo[part]
            k = np.minimum(lo_ + span, hi[part])
            c = self.due_counts.window(replica[part], day + lo_, width)
            cum = np.cumsum(self._weights(c, self.interval_weight[k]), axis=0)
            target = draw[part] * cum[last, np.arange(len(lo_))]
            pick[part] = lo_ + np.minimum((cum <= target).sum(axis=0), last)
        return pick
