"""The accounting test across the whole scenario library (issue 6).

Every scenario file under ``scenarios/`` is loaded (``load_all``) and run (``run_scenario``)
with the observers ``trimscope run`` composes: ``build_telemetry`` with an in-memory span
exporter (OTel observer) and a fresh ``CollectorRegistry`` (Prometheus observer). For each
decision kind the accounting helper covers, the events the runner recorded, the counter's
delta and the span events must be equal; and finer than totals, each event must be one
counter increment under its own labels and one span event with its own attributes, so a
dropped event cannot hide behind a doubled one.

It checks accounting, not verdicts: a scenario that fails its own expectations (or whose
turns raise, as many do on purpose) is fine here; a scenario that crashes the runner, or an
observer that raises (the bus is strict), fails the test.

One test per file (fresh observers each), so a mismatch names its scenario; every file also
feeds one shared set of observers, checked last, as ``trimscope run scenarios/`` composes
them (sessions that share an id across scenarios, pending overflows). Counters beyond the
helper's that also count one event each (refusals, settled overflows, calls, turns, tools)
are checked the same way. About 10 ms a scenario (95 files: 6 s, of which 1.5 s is the
provider latency of ``telemetry-every-metric``), so a few hundred stay well under a minute.
Marked ``slow`` so that a quick inner loop can deselect it (``-m "not slow"``); it runs by
default and in CI.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallFinished,
    TurnFinished,
    WireFindingObserved,
    event_kind,
)
from harness.scenarios.loader import discover, load_all
from harness.scenarios.runner import run_scenario
from harness.telemetry import (
    PrometheusObserver,
    TelemetryOptions,
    account,
    build_telemetry,
    unbalanced,
)
from harness.telemetry import names as n
from harness.telemetry.accounting import ACCOUNTED, cache_loss_tally
from harness.telemetry.attributes import Decision, decision_attributes
from tests.telemetry.scripted import every_kind_session

pytestmark = pytest.mark.slow

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"
FILES = discover([LIBRARY]) if LIBRARY.is_dir() else []

Labels = tuple[str, ...]


def _unknown(value: str | None) -> str:
    return value if value else n.UNKNOWN


def _trim_labels(event: HistoryTrimmed) -> Labels:
    reason, trigger = n.trim_reason_label(event.reason), str(event.trigger)
    return (reason, trigger, _unknown(event.provider), event.source)


def _budget_labels(event: BudgetResolved) -> Labels:
    return (event.provider, _unknown(event.model), str(event.rule), event.window_source)


def _capacity_labels(event: CapacityChecked) -> Labels:
    return (event.provider, _unknown(event.model), event.purpose, n.bool_label(event.fits))


def _overflow_labels(event: OverflowDetected) -> Labels:
    return (
        event.provider,
        event.error_type or n.ERROR_TYPE_OTHER,
        n.bool_label(event.reference_verdict),
        n.bool_label(event.extended_verdict),
        event.source,
    )


def _recovery_labels(event: RecoveryAttempted) -> Labels:
    outcome = event.outcome if event.outcome in n.RECOVERY_OUTCOMES else n.OTHER
    return (event.provider, outcome)


def _provider_edit_labels(event: ProviderContextEdited) -> Labels:
    return (event.edit, event.compaction or n.PROVIDER_EDIT_APPLIED, event.provider, event.source)


def _wire_finding_labels(event: WireFindingObserved) -> Labels:
    return (event.finding, event.wire, event.source)


EXPECTED_LABELS: dict[str, Callable[[Any], Labels]] = {
    "HistoryTrimmed": _trim_labels,
    "BudgetResolved": _budget_labels,
    "CapacityChecked": _capacity_labels,
    "OverflowDetected": _overflow_labels,
    "RecoveryAttempted": _recovery_labels,
    "ProviderContextEdited": _provider_edit_labels,
    "WireFindingObserved": _wire_finding_labels,
}
"""Each accounted kind's labels, in the order of its ``MetricSpec.labels``."""

ONE_FOR_ONE: dict[str, tuple[n.MetricSpec, Callable[[Event], bool]]] = {
    "capacity refusals": (
        n.CAPACITY_REFUSALS,
        lambda e: isinstance(e, CapacityChecked) and not e.fits,
    ),
    "overflows settled": (n.OVERFLOWS, lambda e: isinstance(e, OverflowDetected)),
    "provider calls": (n.PROVIDER_CALLS, lambda e: isinstance(e, ProviderCallFinished)),
    "turns": (n.TURNS, lambda e: isinstance(e, TurnFinished)),
    "tool calls": (n.TOOL_CALLS, lambda e: isinstance(e, ToolCallFinished)),
}
"""Counters outside the helper that also count one event each (an overflow once settled)."""


def _counter_samples(registry: CollectorRegistry, spec: n.MetricSpec) -> Counter[Labels]:
    found: Counter[Labels] = Counter()
    for family in registry.collect():
        for sample in family.samples:
            if sample.name == spec.name:
                found[tuple(sample.labels[label] for label in spec.labels)] += int(sample.value)
    return +found


def _frozen(attributes: Mapping[str, Any] | None) -> frozenset[tuple[str, Any]]:
    items = (attributes or {}).items()
    return frozenset((k, tuple(v) if isinstance(v, list | tuple) else v) for k, v in items)


def _span_events(spans: Iterable[ReadableSpan]) -> Counter[tuple[str, frozenset[Any]]]:
    return Counter((e.name, _frozen(e.attributes)) for span in spans for e in span.events)


@dataclass
class Observed:
    """What ``build_telemetry`` composes for ``trimscope run``, with an in-memory exporter."""

    exporter: InMemorySpanExporter = field(default_factory=InMemorySpanExporter)
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.telemetry = build_telemetry(
            TelemetryOptions(span_exporters=(self.exporter,), registry=self.registry)
        )

    def problems(self) -> list[str]:
        self.telemetry.shutdown()  # ends spans still open, settles pending overflows
        return _problems(self.events, self.registry, self.exporter.get_finished_spans())


@pytest.fixture(scope="module")
def shared() -> Iterator[Observed]:
    """One set of observers across every scenario, as ``trimscope run scenarios/`` has."""
    observed = Observed()
    yield observed
    observed.telemetry.shutdown()


def _run(path: Path, shared: Observed) -> Observed:
    """Run one file with fresh observers (and the shared ones)."""
    (item,) = load_all([path])
    fresh = Observed()
    observers = (*fresh.telemetry.observers, *shared.telemetry.observers)
    try:
        run = asyncio.run(run_scenario(item.scenario, observers))
    finally:
        fresh.telemetry.shutdown()
    fresh.events = run.events
    shared.events += run.events
    return fresh


def _problems(
    events: Sequence[Event], registry: CollectorRegistry, spans: Sequence[ReadableSpan]
) -> list[str]:
    problems = [
        f"{kind}: {tally.events} events, counter +{tally.metric:g}, {tally.span_events} span events"
        for kind, tally in unbalanced(account(events, registry, spans)).items()
    ]
    recorded = _span_events(spans)
    for kind, spec in ACCOUNTED.items():
        of_kind = [e for e in events if event_kind(e) == kind]
        wanted = Counter(EXPECTED_LABELS[kind](e) for e in of_kind)
        got = _counter_samples(registry, spec)
        if got != wanted:
            problems.append(f"{spec.name} by labels: expected {dict(wanted)}, got {dict(got)}")
        name = n.SPAN_EVENT_OF_KIND[kind]
        attributes = Counter(
            (name, _frozen(decision_attributes(cast(Decision, e)))) for e in of_kind
        )
        on_spans = Counter({key: c for key, c in recorded.items() if key[0] == name})
        if attributes != on_spans:
            missing, extra = attributes - on_spans, on_spans - attributes
            problems.append(
                f"{name} span events: missing {sum(missing.values())}, "
                f"extra {sum(extra.values())}: {list(missing or extra)[:2]}"
            )
    loss = cache_loss_tally(events, registry, spans)
    if not loss.balanced:
        problems.append(f"cache loss: {loss}")
    reported = sum(e.input_tokens or 0 for e in events if isinstance(e, ProviderCallFinished))
    split = sum(_counter_samples(registry, n.INPUT_TOKENS).values())
    if reported != split:
        problems.append(f"input tokens: {reported} reported, {n.INPUT_TOKENS.name} +{split}")
    for what, (spec, counts) in ONE_FOR_ONE.items():
        seen = sum(1 for e in events if counts(e))
        metric = sum(_counter_samples(registry, spec).values())
        if seen != metric:
            problems.append(f"{what}: {seen} events, {spec.name} +{metric}")
    return problems


def test_the_library_is_not_empty() -> None:
    assert FILES, f"no scenario files under {LIBRARY}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_decision_is_recorded_once_as_metric_and_span_event(
    path: Path, shared: Observed
) -> None:
    assert _run(path, shared).problems() == []


def test_one_set_of_observers_across_the_library_balances_too(shared: Observed) -> None:
    """After the per-file tests (file order), the observers every file also fed: sessions
    that share an id across scenarios (channel senders) or end without TurnFinished must
    not move a count from one scenario to another. Run alone, it runs the library itself."""
    if not shared.events:
        for path in FILES:
            _run(path, shared)
    assert shared.events
    assert shared.problems() == []


def test_the_check_passes_a_session_with_every_kind_and_catches_a_double_and_a_drop() -> None:
    """A trim counted twice and a budget decision lost are both reported, by label and by
    total, even when they would cancel out in a grand total."""
    events = every_kind_session()
    exporter = InMemorySpanExporter()
    registry = CollectorRegistry()
    telemetry = build_telemetry(TelemetryOptions(span_exporters=(exporter,), registry=registry))
    for event in events:
        for observer in telemetry.observers:
            observer.on_event(event)
    telemetry.shutdown()
    spans = exporter.get_finished_spans()
    assert _problems(events, registry, spans) == []
    trim = next(e for e in events if isinstance(e, HistoryTrimmed))
    budget = next(e for e in events if isinstance(e, BudgetResolved))
    registry_with_double = CollectorRegistry()
    replay = PrometheusObserver(registry_with_double)
    for event in [*events, trim]:
        if event is not budget:
            replay.on_event(event)
    replay.close()
    problems = _problems(events, registry_with_double, spans)
    assert any(p.startswith("HistoryTrimmed:") for p in problems)
    assert any(p.startswith("BudgetResolved:") for p in problems)
    assert any(p.startswith(f"{n.TRIMS.name} by labels") for p in problems)
