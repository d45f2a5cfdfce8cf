"""The simulated learner's answers: ratings drawn as Anki's simulator draws them.

First and review ratings come from fixed distributions; the same-day answers of a learning
or relearning session follow a Markov chain, as in fsrs-rs. Answers are drawn for many
cards at once, in NumPy arrays, from random numbers tied to each card's answers (below).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from deckbuilder.schedule.memory import FloatArray, IntArray, MemoryModel

MAX_SHORT_TERM_STEPS = 5  # same-day ratings simulated per learning/relearning session, as fsrs-rs


def ratings(u: FloatArray, cumulative: FloatArray) -> IntArray:
    """Ratings (1-based) from uniform numbers ``u``, distributed as the weights whose
    running sums (``np.cumsum``) are ``cumulative`` (they need not sum to 1)."""
    out: IntArray = 1 + np.searchsorted(cumulative[:-1], u * cumulative[-1], side="right")
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
    MAX_SHORT_TERM_STEPS answers; Hard neither counts nor resets. Returns one column per
    session: its answers (1..4) from row 0 on, then 0 (a row per answer, so that NumPy
    works along the sessions). The answers do not depend on memory state, so they can
    be drawn before the cards are simulated.
    """
    n = len(start)
    out = np.zeros((MAX_SHORT_TERM_STEPS, n), dtype=np.int64)
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
        out[j, active] = nxt
        rating[active] = nxt
        consecutive[active] = np.where(nxt == 1, 0, consecutive[active] + (nxt > 2))
    return out


def apply_steps(
    model: MemoryModel, s: FloatArray, d: FloatArray, steps: IntArray, costs: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Memory state and seconds after the same-day answers in ``steps`` (as
    :func:`step_ratings` gives them: a column per session, 0 = none). ``costs[r]`` is
    the seconds of answer r, ``costs[0]`` 0."""
    cost: FloatArray = costs[steps].sum(axis=0)
    longest = int(steps.any(axis=1).sum())  # each session's answers come first
    for rating in steps[:longest]:
        s = model.short_term_s(s, rating)
        d = model.next_d(d, rating)
    return s, d, cost


class SessionPool:
    """Relearning sessions (each starting with Again) drawn ahead, and handed out by a
    uniform number each: many cards at once, the same session for the same number."""

    SIZE = 1 << 16  # sessions drawn: far more than the kinds of session there are

    def __init__(self, rng: np.random.Generator, step_count: int, transitions: FloatArray) -> None:
        self.step_count = step_count
        self.pool = step_ratings(
            rng, np.ones(self.SIZE if step_count else 0, dtype=np.int64), step_count, transitions
        )

    def pick(self, u: FloatArray) -> IntArray:
        """A session for each uniform number in ``u``."""
        out: IntArray = self.pool[:, (u * self.pool.shape[1]).astype(np.int64)]
        return out


# Random numbers tied to a card and its n-th answer, the same at every desired retention.
#
# A sweep compares thirty retentions simulated in one run. Were each answer drawn from one
# stream of random numbers, the retentions would differ by their noise as much as by their
# workload, and the curve would zigzag (reviews falling as retention rises). Here the n-th
# answer of a card draws the same numbers at every retention (common random numbers): a card
# recalled at a lower retention is recalled at a higher one too, as its recall is more
# likely there. The numbers are a hash of the seed, the card, the answer's number and what
# they are for (SplitMix64's mixing function), computed for many cards at once.
Words = npt.NDArray[np.uint64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
ANSWER_BITS = 20  # a card's answers are counted in these bits of its position
BITS = 16  # of each number: four to a 64-bit hash
_MASK = np.uint64((1 << BITS) - 1)
_SCALE = 1.0 / (1 << BITS)


def _mix(z: Words) -> Words:
    """SplitMix64's finaliser: every input bit moves every output bit."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    out: Words = z ^ (z >> np.uint64(31))
    return out


class CardDraws:
    """Uniform numbers in [0, 1), in steps of 2**-16, for a card's n-th answer."""

    def __init__(self, seed: int) -> None:
        # A seed of any size (NumPy's generators take them), mixed into 64 bits.
        self.key = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0]

    def uniform(self, card: IntArray, answer: IntArray) -> tuple[FloatArray, ...]:
        """Four numbers for each card's ``answer``-th answer (0: its first): SplitMix64's
        number at the position (card, answer) of its sequence, cut in four."""
        position = card.astype(np.uint64) << np.uint64(ANSWER_BITS) | answer.astype(np.uint64)
        z = _mix(position * _GOLDEN + self.key)
        return tuple(((z >> np.uint64(BITS * i)) & _MASK) * _SCALE for i in range(4))
