"""Quantiles of a whole run in bounded memory: a logarithmic histogram (DDSketch's mapping).

A load run times every provider call; keeping each sample (and sorting a copy at the end)
made memory grow with the number of calls. A ``Sketch`` keeps a count per bucket instead:
bucket ``i`` holds the values in ``(γ^(i-1), γ^i]`` with ``γ = (1 + α) / (1 − α)``, and
answers with ``2γ^i / (γ + 1)``, which is within ``α`` (relative) of every value in the
bucket (Masson, Rim and Lee, "DDSketch", VLDB 2019, §2). Indices are clamped to the
range that ``MIN_POSITIVE`` … ``MAX_VALUE`` spans, so a sketch never holds more than
``max_buckets`` counts, however many values it is given; values at or below
``MIN_POSITIVE`` (zero included) are counted apart and answered as 0. Count, sum, least
and greatest are exact; quantiles are clamped to ``[least, greatest]``, so a sketch of
equal values answers exactly.

Why not a library: ``ddsketch`` (Datadog, 3.0.1) implements this mapping with more
(stores that collapse, protobuf export) at a few Python calls per value; the metrics'
fixed Prometheus histogram is too coarse for a p50 (18 buckets: 0.5 to 0.75 ms is one).
See docs/decisions.md, "Load sessions: outcomes, failed calls, timeouts, quantiles".
"""

from __future__ import annotations

import math
from typing import Final

RELATIVE_ACCURACY: Final = 0.005
"""α: every quantile a sketch answers is within 0.5% of a value of that rank."""
MIN_POSITIVE: Final = 1e-9
MAX_VALUE: Final = 1e12


class Sketch:
    """A bounded quantile sketch of non-negative values (see the module docstring)."""

    __slots__ = (
        "_counts", "_gamma", "_high", "_log_gamma", "_low",
        "count", "greatest", "least", "total", "zeros",
    )  # fmt: skip

    def __init__(self, relative_accuracy: float = RELATIVE_ACCURACY) -> None:
        if not 0 < relative_accuracy < 1:
            raise ValueError("relative_accuracy must be between 0 and 1")
        self._gamma = (1 + relative_accuracy) / (1 - relative_accuracy)
        self._log_gamma = math.log(self._gamma)
        self._low = self._index(MIN_POSITIVE)
        self._high = self._index(MAX_VALUE)
        self._counts: dict[int, int] = {}
        self.count = 0
        self.zeros = 0
        self.total = 0.0
        self.least = math.inf
        self.greatest = -math.inf

    @property
    def max_buckets(self) -> int:
        return self._high - self._low + 1

    def _index(self, value: float) -> int:
        return math.ceil(math.log(value) / self._log_gamma)

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.least = min(self.least, value)
        self.greatest = max(self.greatest, value)
        if value <= MIN_POSITIVE:
            self.zeros += 1
            return
        index = min(max(self._index(value), self._low), self._high)
        counts = self._counts
        counts[index] = counts.get(index, 0) + 1

    def __len__(self) -> int:
        return self.count

    @property
    def buckets(self) -> int:
        """Buckets in use (at most ``max_buckets``)."""
        return len(self._counts) + (1 if self.zeros else 0)

    def mean(self) -> float | None:
        return self.total / self.count if self.count else None

    def _at_rank(self, rank: int) -> float:
        """The value of 0-based rank ``rank``, within α (the first and last exactly)."""
        if rank == 0:
            return self.least
        if rank == self.count - 1:
            return self.greatest
        if rank < self.zeros:
            return 0.0
        seen = self.zeros
        for index in sorted(self._counts):
            seen += self._counts[index]
            if seen > rank:
                value = 2 * self._gamma**index / (self._gamma + 1)
                return min(max(value, self.least), self.greatest)
        return self.greatest

    def quantile(self, q: float) -> float | None:
        """The ``q``-quantile (0–1), interpolated between closest ranks as
        ``harness.load.tally.percentile`` does, each rank's value within α."""
        if not self.count:
            return None
        position = (self.count - 1) * q
        low = math.floor(position)
        high = min(low + 1, self.count - 1)
        below = self._at_rank(low)
        above = self._at_rank(high) if high != low else below
        return below + (above - below) * (position - low)
