"""Wiring for composition roots: options in, observers and one shutdown callable out.

``build_telemetry`` is called by the CLI and the pytest plugin; nothing else builds tracer
providers, registries or servers, and nothing here touches the global ones.

- traces: built when any of ``otel_jsonl``, ``otlp`` or ``span_exporters`` is set. The
  JSON-lines file and extra exporters (an ``InMemorySpanExporter`` in tests) use a simple
  (synchronous) processor, so an ended span is on disk at once; OTLP/HTTP uses a batch
  processor and reads the standard ``OTEL_EXPORTER_OTLP_*`` variables; the resource reads
  ``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES`` and the sampler ``OTEL_TRACES_SAMPLER``.
- metrics: built when ``registry``, ``serve_metrics_port`` or ``metrics_out`` is set (a
  fresh registry when none is given); ``--serve-metrics`` binds 127.0.0.1 only;
  ``--metrics-out`` is written at shutdown; ``--hold-metrics SECONDS``: ``Telemetry.hold``,
  called after a completed run, keeps the server up that long (so a scraper sees the final
  values), at most an hour; Ctrl-C ends it early. An interrupted run does not hold.
- cost: with metrics and ``price_of`` (``--prices``), a ``CostObserver`` on the same registry.
- transcript: JSON lines per event, flushed per line.

Observer order matters: the OTel observer runs first so the Prometheus observer can attach
the trace id of the span that recorded each event as an exemplar. The two are subscribed as
one ``Fanout`` (one dispatch and one shared lock per event, issue 15), then the cost
observer and the transcript.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import SynchronousMultiSpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
)
from opentelemetry.sdk.trace.sampling import Sampler
from prometheus_client import CollectorRegistry

from harness.events import Observer
from harness.pricing.formula import PriceOf
from harness.telemetry import names as n
from harness.telemetry.cost import CostObserver
from harness.telemetry.exporters import (
    OTLP_EXPORT_TIMEOUT_S,
    GuardedExporter,
    JsonLinesSpanExporter,
)
from harness.telemetry.exposition import (
    MetricsServer,
    mark_interrupted,
    serve_metrics,
    write_metrics,
)
from harness.telemetry.fanout import Fanout
from harness.telemetry.line_file import LineFileFailed
from harness.telemetry.otel import OtelObserver
from harness.telemetry.prom import PrometheusObserver
from harness.telemetry.run_marker import record_interrupted
from harness.telemetry.transcript import TranscriptWriter

MAX_HOLD_METRICS_S: Final = 3600.0
"""The longest ``hold_metrics_s`` accepted: holding is for a scrape or two, not a service."""


@dataclass(frozen=True, slots=True)
class TelemetryOptions:
    otel_jsonl: Path | None = None
    otel_jsonl_append: bool = True
    """Append to an existing span file (``False``: empty it first; ``load`` without
    ``--append``)."""
    span_file_failed: LineFileFailed | None = None
    """Told once when the span file cannot be written (see ``JsonLinesSpanExporter``)."""
    otlp: bool = False
    span_exporters: tuple[SpanExporter, ...] = ()
    registry: CollectorRegistry | None = None
    serve_metrics_port: int | None = None
    metrics_out: Path | None = None
    hold_metrics_s: float = 0.0
    transcript: Path | None = None
    transcript_failed: LineFileFailed | None = None
    """Told once when the transcript cannot be written, which then drops its later lines
    (see ``LineFile``); without it the error is raised to the event's publisher."""
    multiprocess: bool = False
    clock_to_ns: Callable[[float], int] | None = None
    sampler: Sampler | None = None  # None: the SDK's, from ``OTEL_TRACES_SAMPLER``
    warn: Callable[[str], None] | None = None  # exporter problems (default: one stderr line)
    price_of: PriceOf | None = None
    """``--prices``: with metrics, a cost observer counts ``names.COST_METRICS``."""


@dataclass(slots=True)
class Telemetry:
    """What ``build_telemetry`` made. Subscribe ``observers`` in order; call ``shutdown``
    once at the end (it is idempotent): it ends open spans, flushes exporters, writes
    ``--metrics-out``, stops the metrics server and closes the transcript."""

    observers: tuple[Observer, ...]
    shutdown: Callable[[], None]
    tracer_provider: TracerProvider | None = None
    registry: CollectorRegistry | None = None
    metrics_server: MetricsServer | None = None
    otel: OtelObserver | None = None
    prometheus: PrometheusObserver | None = None
    cost: CostObserver | None = None
    transcript: TranscriptWriter | None = None
    span_file: JsonLinesSpanExporter | None = None
    """The ``otel_jsonl`` exporter: its ``failure`` and ``dropped`` spans."""
    hold_metrics_s: float = 0.0
    interrupted_by: str | None = None
    """Set by ``mark_interrupted``: shutdown then ends a ``trimscope.run.interrupted`` span."""

    def hold(self, until: threading.Event | None = None) -> None:
        """After a completed run: count what is still pending, then keep serving for
        ``hold_metrics_s`` (Ctrl-C, or ``until`` set, ends the wait early). Nothing
        without a server."""
        if self.metrics_server is None or self.hold_metrics_s <= 0:
            return
        if self.prometheus is not None:
            self.prometheus.close()
        hold_metrics(self.hold_metrics_s, until)

    def mark_interrupted(self, signal: str) -> None:
        """Say in the metrics (served and ``--metrics-out``) and the spans (``--otel-jsonl``,
        ``--otlp``: a last ``trimscope.run.interrupted`` span, ended by ``shutdown`` after the
        spans left open) that ``signal`` stopped the run; call before ``shutdown``."""
        self.interrupted_by = signal
        if self.registry is not None:
            mark_interrupted(self.registry, signal)


def build_resource() -> Resource:
    """``service.name=trimscope`` unless ``OTEL_SERVICE_NAME``/``OTEL_RESOURCE_ATTRIBUTES``
    say otherwise."""
    base = Resource.create({"service.name": n.SERVICE_NAME})
    return base.merge(OTELResourceDetector().detect())


def build_tracer_provider(
    options: TelemetryOptions,
    processors: SynchronousMultiSpanProcessor | None = None,
    span_file: JsonLinesSpanExporter | None = None,
) -> TracerProvider | None:
    """The run's tracer provider, its span processors in ``processors`` when given (the
    run marker shares them), or ``None`` when no span output is asked for. ``span_file``:
    the ``otel_jsonl`` exporter, when the caller made it (``span_file_exporter``)."""
    exporters = list(options.span_exporters)
    span_file = span_file or span_file_exporter(options)
    if span_file is not None:
        exporters.append(span_file)
    if not exporters and not options.otlp:
        return None
    provider = TracerProvider(
        resource=build_resource(), sampler=options.sampler, active_span_processor=processors
    )
    for exporter in exporters:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    if options.otlp:
        provider.add_span_processor(BatchSpanProcessor(otlp_exporter(options.warn)))
    return provider


def span_file_exporter(options: TelemetryOptions) -> JsonLinesSpanExporter | None:
    """The ``otel_jsonl`` file's exporter, or ``None`` when no file is asked for."""
    if options.otel_jsonl is None:
        return None
    return JsonLinesSpanExporter(
        options.otel_jsonl,
        append=options.otel_jsonl_append,
        on_failure=options.span_file_failed or _span_file_warning(options.warn or _to_stderr),
    )


def _span_file_warning(warn: Callable[[str], None]) -> LineFileFailed:
    """A span file's failure said once through ``warn`` when nobody else is told of it."""

    def told(path: Path, error: OSError) -> None:
        warn(f"cannot write spans to {path}: {error.strerror}; later spans are dropped")

    return told


def otlp_exporter(warn: Callable[[str], None] | None = None) -> GuardedExporter:
    """The OTLP/HTTP exporter the standard variables configure, bounded in time
    (``OTLP_EXPORT_TIMEOUT_S`` unless a timeout variable is set) and guarded: an
    unreachable collector is reported once (``warn``, default stderr), never retried at
    the run's expense."""
    timeout_set = any(os.environ.get(name) for name in _OTLP_TIMEOUT_VARIABLES)
    inner = OTLPSpanExporter(timeout=None if timeout_set else OTLP_EXPORT_TIMEOUT_S)
    return GuardedExporter(inner, target=inner._endpoint, warn=warn or _to_stderr)


_OTLP_TIMEOUT_VARIABLES: Final = ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")


def _to_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


def build_telemetry(options: TelemetryOptions) -> Telemetry:
    """Observers for ``options`` (OTel, then Prometheus, then transcript) and their shutdown."""
    _check_hold(options)
    steps: list[Callable[[], None]] = []
    telemetry = Telemetry(
        observers=(), shutdown=_once(steps), hold_metrics_s=options.hold_metrics_s
    )
    observers: list[Observer] = []
    lock = threading.Lock()  # one for both observers: ``Fanout`` takes it once per event
    # the SDK leaves this constructor unannotated
    processors = SynchronousMultiSpanProcessor()  # type: ignore[no-untyped-call]
    telemetry.span_file = span_file_exporter(options)
    provider = build_tracer_provider(options, processors, telemetry.span_file)
    if provider is not None:
        telemetry.tracer_provider = provider
        telemetry.otel = OtelObserver(provider, clock_to_ns=options.clock_to_ns, lock=lock)
        # the spans left open end first, then the run's mark, then shutdown flushes them
        steps += [telemetry.otel.close, _marker(telemetry, processors), provider.shutdown]
    if _wants_metrics(options):
        _add_metrics(telemetry, options, lock, steps)
    shared = [o for o in (telemetry.otel, telemetry.prometheus) if o is not None]
    if shared:  # one subscription, spans first: the metrics read their trace ids
        observers.append(Fanout(shared))
    if telemetry.cost is not None:
        observers.append(telemetry.cost)
    if options.transcript is not None:
        telemetry.transcript = TranscriptWriter(
            options.transcript, on_failure=options.transcript_failed
        )
        observers.append(telemetry.transcript)
        steps.append(telemetry.transcript.close)
    telemetry.observers = tuple(observers)
    return telemetry


def _marker(telemetry: Telemetry, processors: SynchronousMultiSpanProcessor) -> Callable[[], None]:
    """The shutdown step that ends the run's ``trimscope.run.interrupted`` span, if any."""

    def mark() -> None:
        if telemetry.interrupted_by is not None and telemetry.tracer_provider is not None:
            resource = telemetry.tracer_provider.resource
            record_interrupted(processors, resource, telemetry.interrupted_by)

    return mark


def _wants_metrics(options: TelemetryOptions) -> bool:
    return (
        options.registry is not None
        or options.serve_metrics_port is not None
        or options.metrics_out is not None
    )


def _add_metrics(
    telemetry: Telemetry,
    options: TelemetryOptions,
    lock: threading.Lock,
    steps: list[Callable[[], None]],
) -> None:
    registry = options.registry if options.registry is not None else CollectorRegistry()
    exemplars = telemetry.otel.exemplar_of if telemetry.otel is not None else None
    telemetry.registry = registry
    telemetry.prometheus = PrometheusObserver(
        registry, exemplars=exemplars, multiprocess=options.multiprocess, lock=lock
    )
    if options.price_of is not None:
        telemetry.cost = CostObserver(registry, options.price_of)
    steps.append(telemetry.prometheus.close)  # settles pending overflows before any export
    if options.metrics_out is not None:
        out = options.metrics_out
        steps.append(lambda: write_metrics(registry, out))
    if options.serve_metrics_port is not None:
        telemetry.metrics_server = serve_metrics(registry, options.serve_metrics_port)
        steps.append(telemetry.metrics_server.close)


def _check_hold(options: TelemetryOptions) -> None:
    hold = options.hold_metrics_s
    if not 0 <= hold <= MAX_HOLD_METRICS_S:
        raise ValueError(f"hold_metrics_s must be within 0..{MAX_HOLD_METRICS_S:g}, not {hold}")
    if hold > 0 and options.serve_metrics_port is None:
        raise ValueError("hold_metrics_s needs serve_metrics_port: there is nothing to hold")


def hold_metrics(seconds: float, until: threading.Event | None = None) -> None:
    """Wait ``seconds`` while the metrics server (its own thread) keeps serving; Ctrl-C
    (SIGINT, when it raises ``KeyboardInterrupt``) or ``until`` being set (a stop routed by
    ``harness.interrupt``) ends the wait early and shutdown goes on."""
    with contextlib.suppress(KeyboardInterrupt):
        (until or threading.Event()).wait(seconds)


def _once(steps: list[Callable[[], None]]) -> Callable[[], None]:
    """Run every step once, in order, even when one fails; re-raise the first failure."""
    lock = threading.Lock()
    done = False

    def shutdown() -> None:
        nonlocal done
        with lock:
            if done:
                return
            done = True
        first: BaseException | None = None
        for step in steps:
            try:
                step()
            except Exception as exc:
                first = first or exc
        if first is not None:
            raise first

    return shutdown
