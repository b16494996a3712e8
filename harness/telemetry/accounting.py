"""Accounting: every decision event is recorded once as a metric and once as a span event.

``account(events, registry, spans)`` returns, for each decision kind, how many events were
published, how much the kind's counter grew and how many span events the spans carry.
They must be equal: nothing recorded twice, nothing dropped (issue 6, accounting test).
Pass ``baseline=counter_totals(registry)`` taken before the run when the registry already
held counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from opentelemetry.sdk.trace import ReadableSpan
from prometheus_client import CollectorRegistry

from harness.events import Event, HistoryTrimmed, event_kind
from harness.telemetry import names as n

ACCOUNTED: Final[dict[str, n.MetricSpec]] = {
    "HistoryTrimmed": n.TRIMS,
    "BudgetResolved": n.BUDGET_DECISIONS,
    "CapacityChecked": n.CAPACITY_CHECKS,
    "OverflowDetected": n.OVERFLOW_VERDICTS,
    "RecoveryAttempted": n.RECOVERIES,
    "ProviderContextEdited": n.PROVIDER_EDITS,
    "WireFindingObserved": n.WIRE_FINDINGS,
}
"""Decision kinds and the counter that counts them one-for-one; each kind's span event is
``names.SPAN_EVENT_OF_KIND[kind]``."""


@dataclass(frozen=True, slots=True)
class Tally:
    events: int
    metric: float
    span_events: int

    @property
    def balanced(self) -> bool:
        return self.events == self.metric == self.span_events


def counter_totals(registry: CollectorRegistry) -> dict[str, float]:
    """Each accounted counter's value summed over all its label sets."""
    wanted = {spec.name for spec in ACCOUNTED.values()}
    totals = dict.fromkeys(wanted, 0.0)
    for family in registry.collect():
        for sample in family.samples:
            if sample.name in wanted:
                totals[sample.name] += sample.value
    return totals


def span_event_counts(spans: Iterable[ReadableSpan]) -> Counter[str]:
    return Counter(event.name for span in spans for event in span.events)


def account(
    events: Iterable[Event],
    registry: CollectorRegistry,
    spans: Iterable[ReadableSpan],
    *,
    baseline: Mapping[str, float] | None = None,
) -> dict[str, Tally]:
    """Per decision kind: events seen, counter delta since ``baseline``, span events."""
    seen = Counter(event_kind(event) for event in events)
    totals = counter_totals(registry)
    before = baseline or {}
    recorded = span_event_counts(spans)
    return {
        kind: Tally(
            events=seen[kind],
            metric=totals[spec.name] - before.get(spec.name, 0.0),
            span_events=recorded[n.SPAN_EVENT_OF_KIND[kind]],
        )
        for kind, spec in ACCOUNTED.items()
    }


def unbalanced(tallies: Mapping[str, Tally]) -> dict[str, Tally]:
    """The kinds whose three counts differ (empty when the accounting holds)."""
    return {kind: tally for kind, tally in tallies.items() if not tally.balanced}


def cache_loss_tally(
    events: Iterable[Event],
    registry: CollectorRegistry,
    spans: Iterable[ReadableSpan],
    *,
    baseline: float = 0.0,
) -> Tally:
    """Cache loss accounts in tokens: the sum over ``HistoryTrimmed`` events, the cache-loss
    counter's growth since ``baseline``, and the sum of the trim span events' attribute."""
    total = sum(e.cache_loss_tokens or 0 for e in events if isinstance(e, HistoryTrimmed))
    metric = -baseline
    for family in registry.collect():
        for sample in family.samples:
            if sample.name == n.CACHE_LOSS.name:
                metric += sample.value
    recorded = 0
    for span in spans:
        for event in span.events:
            value = (event.attributes or {}).get(n.ATTR_CACHE_LOSS_TOKENS)
            if event.name == n.EVENT_HISTORY_TRIMMED and isinstance(value, int):
                recorded += value
    return Tally(events=total, metric=metric, span_events=recorded)
