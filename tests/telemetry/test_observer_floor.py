"""The benchmark's SDK floor (``bench/observer_floor.py``) makes exactly the SDK calls the
observers make: the same spans (names, kinds, parents, attributes, span events, statuses)
and the same metric values, from the recorded program alone. Otherwise its ratio to the
observers would compare different work."""

from __future__ import annotations

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry, generate_latest

from bench.observer_floor import Floor, compare, floor_replay, observers_replay, record_program
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


def test_the_verdict_reads_the_median_of_the_per_round_ratios() -> None:
    # rounds of 1.10×, 1.20× and 1.30×; the middle round is the slow one on both sides, so
    # the ratio of the two medians (130 ÷ 100) would say 1.3
    floor = Floor((110, 600, 130), (100, 500, 100), events=3, calls={})
    assert floor.ratios == [1.1, 1.2, 1.3]
    assert floor.ratio == 1.2
    assert floor.observers_ms == 130 / 1e6  # medians of each side, for the report
    assert floor.verdict.endswith("NOT MET")
    assert Floor((110,), (100,), events=1, calls={}).verdict.endswith(": met")
    assert Floor((115,), (100,), events=1, calls={}).verdict.endswith(": met")  # the goal itself


def test_compare_times_both_sides_once_per_round() -> None:
    events = scripted_session("s1")
    floor = compare(events, 3, InMemorySpanExporter)
    assert len(floor.observers_ns) == len(floor.floor_ns) == 3
    assert floor.events == len(events)
    assert floor.calls["span starts"] > 0
    assert all(t > 0 for t in (*floor.observers_ns, *floor.floor_ns))
