"""Random numbers tied to a card and its n-th answer, the same at every desired retention.

A sweep compares thirty retentions simulated in one run. Were each answer drawn from one
stream of random numbers, the retentions would differ by their noise as much as by their
workload, and the curve would zigzag (reviews falling as retention rises). Here the n-th
answer of a card draws the same numbers at every retention (common random numbers): a card
recalled at a lower retention is recalled at a higher one too, as its recall is more
likely there. The numbers are a hash of the seed, the card, the answer's number and what
they are for (SplitMix64's mixing function), computed for many cards at once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from deckbuilder.schedule.memory import FloatArray, IntArray

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
