"""Load-run metrics next to the harness's own, and reading a registry back into numbers.

The harness's trim, budget, capacity and call metrics come from ``PrometheusObserver``
(``harness.telemetry``). A load run adds three families of its own (names here, not in
``telemetry/names/``, because only load runs emit them):

- ``trimscope_load_sessions_total{outcome=completed|failed|interrupted}`` (``failed``: every
  turn of the session failed, see ``session_outcome``);
- ``trimscope_load_turn_errors_total{error_type}``: turns that failed, by the error's type
  (the Locust summary's turn errors come from it);
- ``trimscope_load_harness_overhead_seconds`` and ``trimscope_load_round_trip_seconds``
  (histograms, per provider call: the agent's own time, the HTTP round trip);
- ``trimscope_load_provider_waits_seconds`` (histogram: each wait the provider asked for,
  a Retry-After, slept apart from the overhead);
- ``trimscope_load_peak_rss_bytes`` (gauge; ``max`` across processes in multiprocess mode).

In Locust mode every worker writes them to ``PROMETHEUS_MULTIPROC_DIR`` and the launcher
reads the aggregate through ``MultiProcessCollector``; quantiles then come from the
histogram buckets (``bucket_quantile``, as PromQL's ``histogram_quantile`` does).
"""

from __future__ import annotations

import math
from collections import Counter as Tally
from collections.abc import Iterator, Mapping
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.samples import Sample

from harness.events import Event, TurnFinished

SESSIONS: Final = "trimscope_load_sessions_total"
TURN_ERRORS: Final = "trimscope_load_turn_errors_total"
LABEL_ERROR_TYPE: Final = "error_type"
COMPLETED, FAILED, INTERRUPTED = "completed", "failed", "interrupted"
SESSION_OUTCOMES: Final = (COMPLETED, FAILED, INTERRUPTED)
OVERHEAD: Final = "trimscope_load_harness_overhead_seconds"
ROUND_TRIP: Final = "trimscope_load_round_trip_seconds"
PEAK_RSS: Final = "trimscope_load_peak_rss_bytes"
PROVIDER_WAITS: Final = "trimscope_load_provider_waits_seconds"

OVERHEAD_BUCKETS: Final = (
    0.000_05, 0.000_1, 0.000_2, 0.000_3, 0.000_5, 0.000_75, 0.001, 0.001_5, 0.002, 0.003,
    0.005, 0.0075, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0,
)  # fmt: skip
ROUND_TRIP_BUCKETS: Final = (
    0.000_5, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1,
    0.15, 0.2, 0.3, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
)  # fmt: skip

WAIT_BUCKETS: Final = (0.001, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0)


class LoadMetrics:
    """The load families on an injected registry (never the global one)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.sessions = Counter(
            SESSIONS, "Load sessions that ended, by outcome.", ["outcome"], registry=registry
        )
        self.turn_errors = Counter(
            TURN_ERRORS,
            "Load turns that failed, by the error's type.",
            [LABEL_ERROR_TYPE],
            registry=registry,
        )
        self.overhead = Histogram(
            OVERHEAD,
            "Agent time per provider call outside the HTTP round trip (trim, estimate, checks).",
            registry=registry,
            buckets=OVERHEAD_BUCKETS,
        )
        self.round_trip = Histogram(
            ROUND_TRIP,
            "Provider client time per call: HTTP round trip with wire encoding and decoding.",
            registry=registry,
            buckets=ROUND_TRIP_BUCKETS,
        )
        self.provider_waits = Histogram(
            PROVIDER_WAITS,
            "Waits the provider asked for (Retry-After), slept apart from the overhead.",
            registry=registry,
            buckets=WAIT_BUCKETS,
        )
        self.peak_rss = Gauge(
            PEAK_RSS,
            "Peak resident set size of the load process.",
            registry=registry,
            multiprocess_mode="max",
        )

    def session_ended(self, outcome: str) -> None:
        """One of ``SESSION_OUTCOMES`` (see ``session_outcome``)."""
        self.sessions.labels(outcome).inc()

    def on_event(self, event: Event) -> None:
        """An observer of the run's bus: counts failed turns by error type."""
        if isinstance(event, TurnFinished) and event.error_type:
            self.turn_errors.labels(event.error_type).inc()

    def call(self, ref: str, seconds: float, error: BaseException | None) -> None:
        del ref, error  # per-call outcomes are the harness's own provider-call metric
        self.round_trip.observe(seconds)


def session_outcome(ran_every_turn: bool, turns_run: int, turn_errors: int) -> str:
    """``completed``; ``failed`` when every turn it ran failed (issue 28: a session whose
    every turn failed had counted as completed); else ``interrupted`` (the deadline, a
    signal or an error stopped it before its last turn)."""
    if not ran_every_turn:
        return INTERRUPTED
    return FAILED if turns_run and turn_errors >= turns_run else COMPLETED


# --- reading a registry ---------------------------------------------------------------------


def samples(registry: CollectorRegistry) -> Iterator[Sample]:
    for family in registry.collect():
        yield from family.samples


def total(registry: CollectorRegistry, name: str) -> float:
    """Sum of ``name`` over every label set (counters: give the ``_total`` name)."""
    return sum(s.value for s in samples(registry) if s.name == name)


def by_labels(registry: CollectorRegistry, name: str, *labels: str) -> Tally[tuple[str, ...]]:
    """Values of ``name`` summed per combination of ``labels``."""
    found: Tally[tuple[str, ...]] = Tally()
    for sample in samples(registry):
        if sample.name == name:
            key = tuple(sample.labels.get(label, "") for label in labels)
            found[key] += int(sample.value)
    return found


def maximum(registry: CollectorRegistry, name: str) -> float | None:
    values = [s.value for s in samples(registry) if s.name == name]
    return max(values) if values else None


def buckets(registry: CollectorRegistry, name: str) -> dict[float, float]:
    """Cumulative bucket counts of histogram ``name``, summed over label sets."""
    counts: dict[float, float] = {}
    for sample in samples(registry):
        if sample.name == f"{name}_bucket":
            bound = float(sample.labels["le"])
            counts[bound] = counts.get(bound, 0.0) + sample.value
    return counts


def bucket_quantile(q: float, cumulative: Mapping[float, float]) -> float | None:
    """``histogram_quantile``: linear interpolation inside the bucket holding rank q·n."""
    if not cumulative:
        return None
    bounds = sorted(cumulative)
    count = cumulative[bounds[-1]]
    if count <= 0:
        return None
    rank = q * count
    lower_bound, lower_count = 0.0, 0.0
    for bound in bounds:
        upper = cumulative[bound]
        if upper >= rank:
            if math.isinf(bound):
                return lower_bound  # the +Inf bucket: PromQL returns the highest finite bound
            span = upper - lower_count
            fraction = (rank - lower_count) / span if span > 0 else 1.0
            return lower_bound + (bound - lower_bound) * fraction
        lower_bound, lower_count = bound, upper
    return bounds[-1]
