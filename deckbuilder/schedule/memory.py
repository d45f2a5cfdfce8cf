"""FSRS-6 memory formulas on NumPy arrays: recall probability, difficulty, stability, interval.

The same formulas py-fsrs and fsrs-rs use, applied to every simulated card at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from fsrs.scheduler import MAX_DIFFICULTY as D_MAX
from fsrs.scheduler import MIN_DIFFICULTY as D_MIN
from fsrs.scheduler import STABILITY_MIN as S_MIN

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

S_MAX = 36500.0  # fsrs-rs's greatest stability (py-fsrs sets none), in days


def _within(values: FloatArray, low: float, high: float) -> FloatArray:
    """``values`` kept within low..high, in place (np.clip costs more on short arrays)."""
    np.maximum(values, low, out=values)
    np.minimum(values, high, out=values)
    return values


class MemoryModel:
    """FSRS-6 with one set of parameters and a desired retention.

    Ratings are 1..4 (Again..Easy); per-rating constants are looked up in small tables,
    where rating 0 stands for no answer and leaves stability and difficulty as they are.
    """

    def __init__(self, w: Sequence[float], desired_retention: float) -> None:
        self.w = w = [float(x) for x in w]
        self.decay = -w[20]
        self.factor = 0.9 ** (1.0 / self.decay) - 1.0
        self.ivl_per_s = self.interval_factor(desired_retention)
        ratings = np.arange(1, 5, dtype=np.float64)
        easy_d = w[4] - math.exp(w[5] * 3.0) + 1.0  # the mean-reversion target
        # next_d = w7 * easy_d + (1 - w7) * (d + (10 - d) / 9 * delta[r]), written as
        # offset[r] + scale[r] * d: one multiply-add per card.
        delta = np.concatenate([[0.0], -w[6] * (ratings - 3.0)])
        self.d_offset = w[7] * easy_d + (1.0 - w[7]) * 10.0 * delta / 9.0
        self.d_scale = (1.0 - w[7]) * (1.0 - delta / 9.0)
        self.d_offset[0], self.d_scale[0] = 0.0, 1.0
        self.init_d_table = np.concatenate(
            [[0.0], np.clip(w[4] - np.exp(w[5] * (ratings - 1)) + 1, D_MIN, D_MAX)]
        )
        self.init_s_table = np.asarray([0.0, *w[:4]])
        self.recall_bonus = np.asarray([0.0, 1.0, w[15], 1.0, w[16]]) * math.exp(w[8])
        self.short_factor = np.concatenate([[0.0], np.exp(w[17] * (ratings - 3.0 + w[18]))])
        # Good and Easy never shorten stability within a day: their growth is at least 1
        # (as no answer's is exactly 1).
        self.short_floor = np.asarray([1.0, 0.0, 0.0, 1.0, 1.0])
        self.forget_cap = 1.0 / math.exp(w[17] * w[18])

    def interval_factor(self, desired_retention: float) -> float:
        """Days of interval per day of stability at ``desired_retention``: the interval
        after which the forgetting curve falls to it."""
        return float((desired_retention ** (1.0 / self.decay) - 1.0) / self.factor)

    def retrievability(self, elapsed: FloatArray, s: FloatArray) -> FloatArray:
        """The forgetting curve: (1 + factor * elapsed / S) ** decay."""
        result: FloatArray = np.exp(self.decay * np.log1p(self.factor * elapsed / s))
        return result

    def next_d(self, d: FloatArray, rating: IntArray) -> FloatArray:
        return _within(self.d_offset[rating] + self.d_scale[rating] * d, D_MIN, D_MAX)

    def recall_s(self, s: FloatArray, r: FloatArray, d: FloatArray, rating: IntArray) -> FloatArray:
        w = self.w
        grow = self.recall_bonus[rating] * (11.0 - d) * s ** -w[9] * np.expm1((1.0 - r) * w[10])
        return _within(s * (1.0 + grow), S_MIN, S_MAX)

    def forget_s(self, s: FloatArray, r: FloatArray, d: FloatArray) -> FloatArray:
        w = self.w
        long_term = w[11] * d ** -w[12] * ((s + 1.0) ** w[13] - 1.0) * np.exp((1.0 - r) * w[14])
        return _within(np.minimum(long_term, s * self.forget_cap), S_MIN, S_MAX)

    def short_term_s(self, s: FloatArray, rating: IntArray) -> FloatArray:
        inc = np.maximum(self.short_factor[rating] * s ** -self.w[19], self.short_floor[rating])
        return _within(s * inc, S_MIN, S_MAX)

    def interval(
        self, s: FloatArray, maximum: int, factor: float | FloatArray | None = None
    ) -> IntArray:
        """The interval in days for stability ``s`` at this model's desired retention, or
        at the one each ``factor`` (see :meth:`interval_factor`) stands for."""
        # Round half away from zero (as fsrs-rs), at least 1 day, at most the maximum.
        days = np.floor(s * (self.ivl_per_s if factor is None else factor) + 0.5)
        out: IntArray = np.minimum(np.maximum(days, 1), maximum).astype(np.int64)
        return out
