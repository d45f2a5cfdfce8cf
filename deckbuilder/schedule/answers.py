"""The simulated learner's answers: ratings drawn as Anki's simulator draws them.

First and review ratings come from fixed distributions; the same-day answers of a learning
or relearning session follow a Markov chain, as in fsrs-rs. Answers are drawn for many
cards at once, in NumPy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deckbuilder.schedule.memory import FloatArray, IntArray, MemoryModel

__all__ = ["MAX_SHORT_TERM_STEPS", "StepPool", "apply_steps", "draw_ratings", "step_ratings"]

MAX_SHORT_TERM_STEPS = 5  # same-day ratings simulated per learning/relearning session, as fsrs-rs


def draw_ratings(rng: np.random.Generator, probabilities: Sequence[float], n: int) -> IntArray:
    """n ratings (1-based) drawn from a discrete distribution (weights need not sum to 1)."""
    cumulative = np.cumsum(probabilities)
    u = rng.random(n) * cumulative[-1]
    out: IntArray = 1 + np.searchsorted(cumulative[:-1], u, side="right")
    return out


def step_ratings(
    rng: np.random.Generator,
    start: IntArray,
    step_count: int,
    transitions: FloatArray,
) -> IntArray:
    """Same-day (re)learning answers after a first answer ``start``, as fsrs-rs draws them.

    Answers follow a Markov chain (``transitions[r - 1]`` is the distribution of the
    answer after answer ``r``). A session ends after ``step_count`` passing answers in a
    row (one fewer when it started with Good or Easy), on Easy, or after
    MAX_SHORT_TERM_STEPS answers; Hard neither counts nor resets. Returns one row per
    session: its answers (1..4), padded with 0. The answers do not depend on memory
    state, so they can be drawn before the cards are simulated.
    """
    n = len(start)
    out = np.zeros((n, MAX_SHORT_TERM_STEPS), dtype=np.int64)
    if step_count == 0 or n == 0:
        return out
    cumulative = np.cumsum(transitions, axis=1)
    cumulative = cumulative / cumulative[:, -1:]  # each row a distribution over 1..4
    rating = start.copy()
    consecutive = np.zeros(n, dtype=np.int64)
    needed = np.where(rating > 2, step_count - 1, step_count)
    for j in range(MAX_SHORT_TERM_STEPS):
        active = np.flatnonzero((consecutive < needed) & (rating < 4))
        if len(active) == 0:
            break
        u = rng.random(len(active))
        nxt = 1 + (u[:, None] >= cumulative[rating[active] - 1, :3]).sum(axis=1)
        out[active, j] = nxt
        rating[active] = nxt
        consecutive[active] = np.where(nxt == 1, 0, consecutive[active] + (nxt > 2))
    return out


def apply_steps(
    model: MemoryModel, s: FloatArray, d: FloatArray, steps: IntArray, costs: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Memory state and seconds after the same-day answers in ``steps`` (0 = none)."""
    cost_table = np.concatenate([[0.0], costs])
    cost: FloatArray = cost_table[steps].sum(axis=1)
    longest = int((steps > 0).sum(axis=1).max(initial=0))
    for j in range(longest):
        r = steps[:, j]
        act = r > 0
        rr = np.maximum(r, 1)
        s = np.where(act, model.short_term_s(s, rr), s)
        d = np.where(act, model.next_d(d, rr), d)
    return s, d, cost


class StepPool:
    """Relearning sessions (each starting with Again) drawn ahead, ``size`` or more at a
    time, and handed out in order. The batches decide the order of the random draws, so
    a seed's forecast depends on them."""

    def __init__(
        self, rng: np.random.Generator, step_count: int, transitions: FloatArray, size: int
    ) -> None:
        self.rng, self.step_count, self.transitions = rng, step_count, transitions
        self.size = max(size, 256)
        self.pool = np.zeros((0, MAX_SHORT_TERM_STEPS), dtype=np.int64)
        self.next = 0

    def take(self, n: int) -> IntArray:
        """The next ``n`` sessions."""
        if self.next + n > len(self.pool):
            fresh = step_ratings(
                self.rng,
                np.ones(max(n, self.size), dtype=np.int64),
                self.step_count,
                self.transitions,
            )
            self.pool = np.concatenate([self.pool[self.next :], fresh])
            self.next = 0
        out: IntArray = self.pool[self.next : self.next + n]
        self.next += n
        return out
