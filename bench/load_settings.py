"""What ``python -m bench load`` runs and the goals it judges: sizes, rounds, sampling and
every goal, defined once for the bench's modules (``bench/load*.py``)."""

from __future__ import annotations

from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

ROUNDS = 5  # medians of five: a single round on 2 shared cores varies by ±5%
SHORT_TURNS, SHORT_SESSIONS, LONG_TURNS, LONG_SESSIONS, LENGTH_ROUNDS = 20, 20, 300, 4, 3
GOAL_SESSION_LENGTH = 1.1  # issue 15: per-call agent time, long ÷ short sessions
GOAL_MEMORY = 1.25  # issue 15: an idle 50-turn session's memory ÷ its history's text
SAMPLE_ONE_IN = 10
SAMPLED = ParentBased(TraceIdRatioBased(1 / SAMPLE_ONE_IN))
"""Information beside the goal: a load run's traces sampled per turn, metrics complete."""
SESSIONS, CONCURRENCY, TURNS = 120, 20, 6
MEMORY_SESSIONS, MEMORY_TURNS, MEMORY_WINDOW = 20, 50, 400_000
GOAL_OVERHEAD, GOAL_OBSERVERS, GOAL_CACHING = 0.10, 0.10, 0.05  # issues 15 and 16
GOAL_OBSERVERS_LATENT = 0.01
"""Issue 15: with a fake that takes time to answer (``--latency-ms``, 50 in ``make bench``),
observers on vs off, every trace or one in ten, stay within 1%."""
RUN_LIMIT_S = 60.0  # no single run may take longer (the plan's duration cap)
