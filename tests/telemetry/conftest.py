"""Fixtures: an injected tracer provider with an in-memory exporter, a fresh registry per
test, and a strict bus with the OTel observer subscribed before the Prometheus one."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from harness.events import Event, EventBus
from harness.telemetry import OtelObserver, PrometheusObserver, event_clock_ns


class Harness:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.registry = CollectorRegistry()
        self.otel = OtelObserver(self.provider, clock_to_ns=event_clock_ns)
        self.prom = PrometheusObserver(self.registry, exemplars=self.otel.exemplar_of)
        self.bus = EventBus(strict=True)
        self.bus.subscribe(self.otel)
        self.bus.subscribe(self.prom)
        self.published: list[Event] = []

    def publish(self, events: Iterable[Event]) -> None:
        for event in events:
            self.bus.publish(event)
            self.published.append(event)

    @property
    def spans(self) -> tuple[ReadableSpan, ...]:
        return self.exporter.get_finished_spans()

    def spans_named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans if span.name == name]


@pytest.fixture
def harness() -> Iterator[Harness]:
    made = Harness()
    yield made
    made.provider.shutdown()
