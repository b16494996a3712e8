"""The benchmark's SDK floor (``bench/observer_floor.py``) makes exactly the SDK calls the
observers make: the same spans (names, kinds, parents, attributes, span events, statuses)
and the same metric values, from the recorded program alone. Otherwise its ratio to the
observers would compare different work."""

from __future__ import annotations

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry, generate_latest

from bench.observer_floor import floor_replay, observers_replay, record_program
from tests.telemetry.scripted import scripted_session


def _shape(spans: tuple[ReadableSpan, ...]) -> list[tuple[object, ...]]:
    names = {span.context.span_id: span.name for span in spans}
    return sorted(
        (
            span.name,
            str(span.kind),
            names.get(span.parent.span_id) if span.parent else None,
            sorted((span.attributes or {}).items()),
            [(event.name, sorted((event.attributes or {}).items())) for event in span.events],
            str(span.status.status_code),
        )
        for span in spans
    )


def _metrics(registry: CollectorRegistry) -> list[str]:
    # ``_created`` samples are creation timestamps: they differ between any two registries.
    text = generate_latest(registry).decode()
    return [line for line in text.splitlines() if "_created" not in line]


def test_the_floor_replays_the_observers_spans_and_metrics() -> None:
    events = scripted_session("s1") + scripted_session("s2")
    observed, replayed = InMemorySpanExporter(), InMemorySpanExporter()
    observed_metrics, replayed_metrics = CollectorRegistry(), CollectorRegistry()
    observers_replay(events, observed, observed_metrics)()
    floor_replay(record_program(events, InMemorySpanExporter()), replayed, replayed_metrics)()
    assert observed.get_finished_spans()  # the comparison is not of two empty runs
    assert _shape(replayed.get_finished_spans()) == _shape(observed.get_finished_spans())
    assert _metrics(replayed_metrics) == _metrics(observed_metrics)
    counted = [line for line in _metrics(observed_metrics) if "_total{" in line]
    assert any(not line.endswith(" 0.0") for line in counted)  # and not of empty metrics
