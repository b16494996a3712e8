"""The Locust-mode summary: every worker's metrics, aggregated by ``MultiProcessCollector``.

The counts are the harness's own metrics (``trimscope_history_trims_total``,
``trimscope_provider_calls_total``, ...) and the load families of ``harness.load.metrics``,
summed over worker processes. Overhead and round-trip quantiles are interpolated from the
histogram buckets (marked approximate). The cache and cost sections are computed by the
asyncio mode's code from the aggregated token counters (``registry_spend``). Locust's own
request table (``--json-file``) is added as ``locust_requests``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from prometheus_client import CollectorRegistry

from harness.load import metrics as m
from harness.load.registry_spend import REQUEST_SIZES_NOTE, registry_spend
from harness.load.summary import (
    LoadSummary,
    Quantiles,
    failed_calls,
    rate,
    trim_rows,
    with_costs,
)
from harness.load.template import LoadPlan
from harness.pricing.table import PriceTable
from harness.quantile import percentile
from harness.telemetry import multiprocess_registry
from harness.telemetry import names as n

_MIB = 1024 * 1024


def _histogram(registry: CollectorRegistry, name: str) -> Quantiles:
    count = int(m.total(registry, f"{name}_count"))
    if count == 0:
        return Quantiles(0, None, None, None, approximate=True)
    cumulative = m.buckets(registry, name)
    seconds = m.total(registry, f"{name}_sum")

    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, 4)

    return Quantiles(
        count,
        ms(m.bucket_quantile(0.5, cumulative)),
        ms(m.bucket_quantile(0.95, cumulative)),
        ms(seconds / count),
        approximate=True,
    )


def _single(counts: Mapping[tuple[str, ...], int]) -> dict[str, int]:
    merged: dict[str, int] = {}
    for (key,), value in counts.items():
        merged[key] = merged.get(key, 0) + value
    return {k: v for k, v in merged.items() if v}


def _locust_rows(stats: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for entry in stats:
        times = entry.get("response_times")
        expanded: list[float] = []
        if isinstance(times, Mapping):
            for value, count in times.items():
                expanded.extend([float(value)] * int(count))
        rows.append(
            {
                "type": entry.get("method"),
                "name": entry.get("name"),
                "requests": entry.get("num_requests"),
                "failures": entry.get("num_failures"),
                "p50_ms": percentile(expanded, 0.5),
                "p95_ms": percentile(expanded, 0.95),
            }
        )
    return rows


def _log_notes(log: str) -> list[str]:
    """Locust's own errors and tracebacks, a few lines of them, for the notes."""
    found = [
        line.strip()
        for line in log.splitlines()
        if re.search(r"\b(ERROR|CRITICAL|Traceback|Error:)", line)
    ]
    return [f"locust: {line}" for line in found[:5]]


def failed_so_far(registry: CollectorRegistry) -> int:
    """Failed provider calls the workers have counted so far (``FAILED_CALL_OUTCOMES``)."""
    return failed_calls(_single(m.by_labels(registry, n.PROVIDER_CALLS.name, n.LABEL_OUTCOME)))


def _trim_counts(registry: CollectorRegistry) -> dict[tuple[str, str], int]:
    """Trims counted by (reason, trigger), the pairs never counted left out."""
    return {
        (reason, trigger): count
        for (reason, trigger), count in m.by_labels(
            registry, n.TRIMS.name, n.LABEL_REASON, n.LABEL_TRIGGER
        ).items()
        if count
    }


def _locust_notes(workers: int, log: str) -> list[str]:
    """What a Locust summary cannot say as an asyncio one does, then Locust's own errors."""
    return [
        f"Locust mode: {workers} worker process(es), metrics aggregated from"
        " PROMETHEUS_MULTIPROC_DIR; quantiles interpolated from histogram buckets",
        "harness CPU is not aggregated across processes",
        REQUEST_SIZES_NOTE,
        *_log_notes(log),
    ]


def _session_outcomes(registry: CollectorRegistry) -> tuple[int, int, int]:
    """Sessions completed, failed and interrupted, as every worker counted them."""
    sessions = _single(m.by_labels(registry, m.SESSIONS, n.LABEL_OUTCOME))
    return (
        sessions.get(m.COMPLETED, 0),
        sessions.get(m.FAILED, 0),
        sessions.get(m.INTERRUPTED, 0),
    )


def locust_summary(
    plan: LoadPlan,
    workers: int,
    multiproc: Path,
    elapsed: float,
    *,
    locust_stats: Sequence[Mapping[str, object]],
    log: str,
    prices: PriceTable | None = None,
    price_as: str | None = None,
) -> LoadSummary:
    """The summary of what every worker counted; priced with ``prices`` as an asyncio
    run's (``with_costs``)."""
    registry = multiprocess_registry(multiproc)
    completed, failed, interrupted = _session_outcomes(registry)
    started = completed + failed + interrupted
    trims = _trim_counts(registry)
    calls = _single(m.by_labels(registry, n.PROVIDER_CALLS.name, n.LABEL_OUTCOME))
    provider_calls = sum(calls.values())
    trims_total = sum(trims.values())
    peak = m.maximum(registry, m.PEAK_RSS)
    summary = LoadSummary(
        mode="locust",
        template=plan.template.name,
        provider_kinds=sorted({p.kind for p in plan.template.providers}),
        sessions_requested=plan.sessions,
        concurrency=plan.concurrency,
        turns=plan.turns,
        duration_limit_s=plan.duration_s,
        stopped_by="count" if completed + failed >= plan.sessions else "duration",
        elapsed_s=round(elapsed, 4),
        sessions_started=started,
        sessions_completed=completed,
        sessions_interrupted=interrupted,
        sessions_failed=failed,
        sessions_per_s=rate(completed, elapsed),
        provider_calls=provider_calls,
        provider_calls_per_s=rate(provider_calls, elapsed),
        calls_by_outcome=calls,
        failed_calls=failed_calls(calls),
        turns_by_outcome=_single(m.by_labels(registry, n.TURNS.name, n.LABEL_OUTCOME)),
        turn_errors=_single(m.by_labels(registry, m.TURN_ERRORS, m.LABEL_ERROR_TYPE)),
        trims=trim_rows(trims, started),
        trims_total=trims_total,
        trims_per_session=round(trims_total / started, 4) if started else 0.0,
        recoveries=_single(m.by_labels(registry, n.RECOVERIES.name, n.LABEL_OUTCOME)),
        overflows_detected=int(m.total(registry, n.OVERFLOW_VERDICTS.name)),
        capacity_refusals=int(m.total(registry, n.CAPACITY_REFUSALS.name)),
        tool_calls=int(m.total(registry, n.TOOL_CALLS.name)),
        overhead=_histogram(registry, m.OVERHEAD),
        round_trip=_histogram(registry, m.ROUND_TRIP),
        provider_waits=_histogram(registry, m.PROVIDER_WAITS),
        peak_rss_mb=round(peak / _MIB, 1) if peak else 0.0,
        harness_cpu_s=None,
        notes=_locust_notes(workers, log),
        locust_requests=_locust_rows(locust_stats),
    )
    return with_costs(summary, registry_spend(registry), prices, price_as)
