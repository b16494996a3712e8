"""Observers that turn events into spans, metrics and transcripts.

Every name they emit is in ``harness.telemetry.names``. Tracer providers and registries are
injected; only composition roots build real ones, through ``build_telemetry``.
"""

from harness.telemetry.accounting import Tally, account, counter_totals, unbalanced
from harness.telemetry.exporters import JsonLinesSpanExporter, read_span_lines
from harness.telemetry.exposition import (
    MetricsServer,
    mark_worker_dead,
    multiprocess_enabled,
    multiprocess_registry,
    reset_multiprocess_dir,
    serve_metrics,
    write_metrics,
)
from harness.telemetry.otel import OtelObserver, event_clock_ns
from harness.telemetry.prom import PrometheusObserver
from harness.telemetry.setup import Telemetry, TelemetryOptions, build_telemetry
from harness.telemetry.transcript import (
    InterruptedMark,
    TranscriptError,
    TranscriptWriter,
    event_from_record,
    event_to_record,
    iter_transcript,
    read_transcript,
)

__all__ = [
    "InterruptedMark",
    "JsonLinesSpanExporter",
    "MetricsServer",
    "OtelObserver",
    "PrometheusObserver",
    "Tally",
    "Telemetry",
    "TelemetryOptions",
    "TranscriptError",
    "TranscriptWriter",
    "account",
    "build_telemetry",
    "counter_totals",
    "event_clock_ns",
    "event_from_record",
    "event_to_record",
    "iter_transcript",
    "mark_worker_dead",
    "multiprocess_enabled",
    "multiprocess_registry",
    "read_span_lines",
    "read_transcript",
    "reset_multiprocess_dir",
    "serve_metrics",
    "unbalanced",
    "write_metrics",
]
