"""FSRS-6 memory formulas on NumPy arrays: recall probability, difficulty, stability, interval.

The same formulas py-fsrs and fsrs-rs use, applied to every simulated card at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from deckbuilder.schedule.settings import S_MIN

__all__ = ["D_MAX", "D_MIN", "S_MAX", "FloatArray", "IntArray", "MemoryModel"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

S_MAX = 36500.0
D_MIN, D_MAX = 1.0, 10.0


class MemoryModel:
    """FSRS-6 with one set of parameters and a desired retention.

    Ratings are 1..4 (Again..Easy); per-rating constants are looked up in small tables.
    """

    def __init__(self, w: Sequence[float], desired_retention: float) -> None:
        self.w = w = [float(x) for x in w]
        self.decay = -w[20]
        self.factor = 0.9 ** (1.0 / self.decay) - 1.0
        self.ivl_per_s = (desired_retention ** (1.0 / self.decay) - 1.0) / self.factor
        ratings = np.arange(1, 5, dtype=np.float64)
        easy_d = w[4] - math.exp(w[5] * 3.0) + 1.0  # the mean-reversion target
        # next_d = w7 * easy_d + (1 - w7) * (d + (10 - d) / 9 * delta[r])
        self.d_delta = np.concatenate([[0.0], -w[6] * (ratings - 3.0)])
        self.d_target = w[7] * easy_d
        self.init_d_table = np.concatenate(
            [[0.0], np.clip(w[4] - np.exp(w[5] * (ratings - 1)) + 1, D_MIN, D_MAX)]
        )
        self.init_s_table = np.asarray([0.0, *w[:4]])
        self.recall_bonus = np.asarray([0.0, 1.0, w[15], 1.0, w[16]]) * math.exp(w[8])
        self.short_factor = np.concatenate([[0.0], np.exp(w[17] * (ratings - 3.0 + w[18]))])
        self.forget_cap = 1.0 / math.exp(w[17] * w[18])

    def retrievability(self, elapsed: FloatArray, s: FloatArray) -> FloatArray:
        """The forgetting curve: (1 + factor * elapsed / S) ** decay."""
        result: FloatArray = np.exp(self.decay * np.log1p(self.factor * elapsed / s))
        return result

    def next_d(self, d: FloatArray, rating: IntArray) -> FloatArray:
        damped = d + (10.0 - d) * (1.0 / 9.0) * self.d_delta[rating]
        out: FloatArray = np.minimum(
            np.maximum(self.d_target + (1.0 - self.w[7]) * damped, D_MIN), D_MAX
        )
        return out

    def recall_s(self, s: FloatArray, r: FloatArray, d: FloatArray, rating: IntArray) -> FloatArray:
        w = self.w
        grow = self.recall_bonus[rating] * (11.0 - d) * s ** -w[9] * np.expm1((1.0 - r) * w[10])
        out: FloatArray = np.minimum(np.maximum(s * (1.0 + grow), S_MIN), S_MAX)
        return out

    def forget_s(self, s: FloatArray, r: FloatArray, d: FloatArray) -> FloatArray:
        w = self.w
        long_term = w[11] * d ** -w[12] * ((s + 1.0) ** w[13] - 1.0) * np.exp((1.0 - r) * w[14])
        out: FloatArray = np.minimum(
            np.maximum(np.minimum(long_term, s * self.forget_cap), S_MIN), S_MAX
        )
        return out

    def short_term_s(self, s: FloatArray, rating: IntArray) -> FloatArray:
        inc = self.short_factor[rating] * s ** -self.w[19]
        inc = np.where(rating >= 3, np.maximum(inc, 1.0), inc)
        out: FloatArray = np.minimum(np.maximum(s * inc, S_MIN), S_MAX)
        return out

    def interval(self, s: FloatArray, maximum: int) -> IntArray:
        # Round half away from zero (as fsrs-rs), at least 1 day, at most the maximum.
        days = np.floor(s * self.ivl_per_s + 0.5)
        out: IntArray = np.minimum(np.maximum(days, 1), maximum).astype(np.int64)
        return out
