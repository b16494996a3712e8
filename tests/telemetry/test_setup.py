"""``build_telemetry``: the observer set a composition root gets from its options."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_fd_to_metric_families

from harness.events import EventBus, RecoveryAttempted
from harness.telemetry import (
    OtelObserver,
    PrometheusObserver,
    TelemetryOptions,
    TranscriptWriter,
    build_telemetry,
    read_span_lines,
    read_transcript,
)
from harness.telemetry import names as n
from harness.telemetry.fanout import Fanout
from harness.telemetry.setup import hold_metrics
from tests.telemetry.metrics_text import value
from tests.telemetry.scripted import Script, scripted_session


def _run(options: TelemetryOptions) -> None:
    telemetry = build_telemetry(options)
    bus = EventBus(strict=True)
    for observer in telemetry.observers:
        bus.subscribe(observer)
    for event in scripted_session():
        bus.publish(event)
    telemetry.shutdown()


def test_nothing_asked_builds_nothing() -> None:
    telemetry = build_telemetry(TelemetryOptions())
    assert telemetry.observers == ()
    telemetry.shutdown()


def test_observers_come_otel_first_then_prometheus_then_transcript(tmp_path: Path) -> None:
    telemetry = build_telemetry(
        TelemetryOptions(
            span_exporters=(InMemorySpanExporter(),),
            registry=CollectorRegistry(),
            transcript=tmp_path / "t.jsonl",
        )
    )
    kinds = [type(o) for o in telemetry.observers]
    assert kinds == [Fanout, TranscriptWriter]  # spans and metrics: one subscription
    fanout = telemetry.observers[0]
    assert isinstance(fanout, Fanout)
    assert fanout.observers == (telemetry.otel, telemetry.prometheus)
    assert [type(o) for o in fanout.observers] == [OtelObserver, PrometheusObserver]
    telemetry.shutdown()
    telemetry.shutdown()  # idempotent


@pytest.mark.parametrize(("sampler", "recorded"), [(ALWAYS_OFF, False), (ALWAYS_ON, True)])
def test_an_injected_sampler_decides_which_traces_are_recorded(
    sampler: Sampler, recorded: bool
) -> None:
    exporter = InMemorySpanExporter()
    registry = CollectorRegistry()
    _run(TelemetryOptions(span_exporters=(exporter,), registry=registry, sampler=sampler))
    assert bool(exporter.get_finished_spans()) is recorded
    assert value(registry, n.PROVIDER_CALLS.name) == 4  # metrics count every call either way


def test_otel_jsonl_writes_one_json_object_per_finished_span(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    _run(TelemetryOptions(otel_jsonl=path))
    records = read_span_lines(path)
    names = [r["name"] for r in records]
    assert names.count("invoke_agent coder") == 3
    assert names.count("chat gpt-test") == 4
    assert "trimscope.trim" in names
    agent = next(r for r in records if r["name"] == "invoke_agent coder")
    assert agent["resource"]["attributes"]["service.name"] == "trimscope"
    assert len(path.read_text().splitlines()) == len(records)


def test_spans_reach_disk_as_they_end(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    telemetry = build_telemetry(TelemetryOptions(otel_jsonl=path))
    events = scripted_session()
    telemetry.observers[0].on_event(events[0])  # the seeding trim: a span that ends at once
    assert [r["name"] for r in read_span_lines(path)] == ["trimscope.trim"]
    telemetry.shutdown()


def test_metrics_out_transcript_and_server(tmp_path: Path) -> None:
    metrics_out = tmp_path / "m" / "metrics.prom"
    transcript = tmp_path / "t.jsonl"
    telemetry = build_telemetry(
        TelemetryOptions(metrics_out=metrics_out, serve_metrics_port=0, transcript=transcript)
    )
    assert telemetry.metrics_server is not None
    url = telemetry.metrics_server.url
    assert url.startswith("http://127.0.0.1:")
    for event in scripted_session():
        for observer in telemetry.observers:
            observer.on_event(event)
    with urllib.request.urlopen(url, timeout=5) as response:
        assert b"trimscope_history_trims_total" in response.read()
    telemetry.shutdown()
    with metrics_out.open() as stream:
        assert "trimscope_history_trims" in {f.name for f in text_fd_to_metric_families(stream)}
    assert read_transcript(transcript) == scripted_session()
    with pytest.raises(urllib.error.URLError):  # the server is stopped
        urllib.request.urlopen(url, timeout=2)


def test_hold_keeps_serving_after_the_run_and_shutdown_does_not_hold() -> None:
    telemetry = build_telemetry(TelemetryOptions(serve_metrics_port=0, hold_metrics_s=0.6))
    assert telemetry.metrics_server is not None
    url = telemetry.metrics_server.url
    script = Script()
    script.turn()
    script.overflow(script.call(7900, outcome="overflow"))  # pending when the run ends
    for event in script.events:
        if not isinstance(event, RecoveryAttempted):
            for observer in telemetry.observers:
                observer.on_event(event)
    holding = threading.Thread(target=telemetry.hold)
    started = time.monotonic()
    holding.start()
    time.sleep(0.1)
    with urllib.request.urlopen(url, timeout=5) as response:  # served, settled, while held
        assert b'trimscope_provider_overflows_total{error_type="context_length_exceeded"' in (
            response.read()
        )
    holding.join(timeout=10)
    assert time.monotonic() - started >= 0.5
    telemetry.shutdown()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)
    # shutdown never holds: with a long hold it still returns long before it (a margin of
    # minutes, not a timing threshold: a loaded machine cannot make it fail).
    long_hold = build_telemetry(TelemetryOptions(serve_metrics_port=0, hold_metrics_s=300))
    started = time.monotonic()
    long_hold.shutdown()
    assert time.monotonic() - started < 150


def test_hold_without_a_server_or_time_returns_at_once() -> None:
    telemetry = build_telemetry(TelemetryOptions(registry=CollectorRegistry()))
    started = time.monotonic()
    telemetry.hold()
    assert time.monotonic() - started < 5  # "at once": no 0.2 s threshold a loaded machine can miss
    telemetry.shutdown()


def test_hold_keyboard_interrupt_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(self: threading.Event, timeout: float | None = None) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(threading.Event, "wait", interrupted)
    hold_metrics(3600)  # returns at once instead of raising


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (TelemetryOptions(hold_metrics_s=5), "needs serve_metrics_port"),
        (TelemetryOptions(serve_metrics_port=0, hold_metrics_s=-1), "within 0..3600"),
        (TelemetryOptions(serve_metrics_port=0, hold_metrics_s=3601), "within 0..3600"),
    ],
)
def test_hold_is_bounded_and_needs_a_server(options: TelemetryOptions, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_telemetry(options)


def test_shutdown_counts_overflows_still_pending_before_writing(tmp_path: Path) -> None:
    """A run that ends between an overflow and its settlement (an aborted turn)."""
    metrics_out = tmp_path / "metrics.prom"
    telemetry = build_telemetry(TelemetryOptions(metrics_out=metrics_out))
    script = Script()
    script.turn()
    script.overflow(script.call(7900, outcome="overflow"))
    for event in script.events:
        if not isinstance(event, RecoveryAttempted):
            for observer in telemetry.observers:
                observer.on_event(event)
    telemetry.shutdown()
    with metrics_out.open() as stream:
        overflows = {
            sample.labels["recovered"]: sample.value
            for family in text_fd_to_metric_families(stream)
            for sample in family.samples
            if sample.name == n.OVERFLOWS.name
        }
    assert overflows == {"false": 1.0}


def test_service_name_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_SERVICE_NAME", "trimscope-ci")
    path = tmp_path / "spans.jsonl"
    _run(TelemetryOptions(otel_jsonl=path))
    assert read_span_lines(path)[0]["resource"]["attributes"]["service.name"] == "trimscope-ci"


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, int]]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.rfile.read(length)
        self.received.append((self.path, self.headers["Content-Type"], length))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, str, int]]]]:
    server = HTTPServer(("127.0.0.1", 0), _Collector)
    _Collector.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", _Collector.received
    server.shutdown()
    server.server_close()


def test_otlp_http_is_configured_by_the_standard_variables(
    collector: tuple[str, list[tuple[str, str, int]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint, received = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    _run(TelemetryOptions(otlp=True))
    assert received
    assert {path for path, _, _ in received} == {"/v1/traces"}
    assert all(kind == "application/x-protobuf" and size > 0 for _, kind, size in received)


def test_span_records_are_the_sdks_json(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    _run(TelemetryOptions(otel_jsonl=path))
    record = json.loads(path.read_text().splitlines()[0])
    assert {"name", "context", "kind", "start_time", "end_time", "attributes", "events"} <= set(
        record
    )
