"""What a metric family is (``MetricSpec``) and the bucket lists of the histograms.

Part of ``harness.telemetry.names``, which re-exports every name here (observers, dashboards
and tests import ``names`` only); a module of its own to keep each module small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

MetricType = Literal["counter", "gauge", "histogram"]


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One exported metric family. ``name`` is what PromQL queries (counters end ``_total``;
    histograms add ``_bucket``/``_sum``/``_count``)."""

    name: str
    type: MetricType
    help: str
    labels: tuple[str, ...]
    buckets: tuple[float, ...] = ()


GEN_AI_TOKEN_USAGE_BUCKETS: Final = (
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0,
    4194304.0, 16777216.0, 67108864.0,
)  # fmt: skip
"""gen-ai-metrics.md advisory buckets for ``gen_ai.client.token.usage``."""
GEN_AI_DURATION_BUCKETS: Final = (
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
)  # fmt: skip
"""gen-ai-metrics.md advisory buckets for ``gen_ai.client.operation.duration``."""
DROPPED_MESSAGES_BUCKETS: Final = tuple(float(2**power) for power in range(11))
"""1, 2, 4, ... 1024 messages."""
DROPPED_TURNS_BUCKETS: Final = tuple(float(2**power) for power in range(9))
"""1, 2, 4, ... 256 turns."""
UTILIZATION_BUCKETS: Final = (
    0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.25, 1.5, 2.0,
)  # fmt: skip
"""Request estimate ÷ window; above 1.0 only for refused or overflowing calls."""
ESTIMATE_ACCURACY_BUCKETS: Final = (0.5, 0.75, 0.9, 0.95, 1.0, 1.05, 1.1, 1.25, 1.5, 2.0)
"""Reported input tokens ÷ our estimate."""
