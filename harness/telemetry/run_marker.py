"""The span that says a signal stopped the run: ``trimscope.run.interrupted``.

The JUnit file, the transcript and the metrics each say so in their own shape; the span
outputs (``--otel-jsonl``, ``--otlp``) carry spans only, so the mark is a span too: a
consumer reading span records (``jq 'select(.name == ...)'``, a trace UI) needs no second
record shape. It is a root span of its own trace, of no duration, with ``trimscope.run.
signal``; written after every span still open was ended (``trimscope.incomplete``), so in
the JSON-lines file it is the last line.

It bypasses the run's sampler: the mark is a fact about the run, not a sampled turn, so a
``--trace-sample 0.1`` run (or ``OTEL_TRACES_SAMPLER=always_off``) that was stopped still
says so. It goes through the run's own span processors (a provider sharing them, sampling
everything), so every span exporter gets it the way it gets any span.
"""

from __future__ import annotations

import time

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SynchronousMultiSpanProcessor, TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_ON

from harness.telemetry import names as n


def record_interrupted(
    processors: SynchronousMultiSpanProcessor, resource: Resource, signal: str
) -> None:
    """End one ``trimscope.run.interrupted`` span naming ``signal`` on ``processors`` (the
    run's tracer provider's): call before they are shut down."""
    marker = TracerProvider(
        sampler=ALWAYS_ON,
        resource=resource,
        active_span_processor=processors,
        shutdown_on_exit=False,  # the run's provider shuts the shared processors down
    )
    tracer = marker.get_tracer(n.INSTRUMENTATION_NAME, schema_url=n.SEMCONV_SCHEMA_URL)
    now = time.time_ns()
    span = tracer.start_span(
        n.SPAN_RUN_INTERRUPTED, attributes={n.ATTR_RUN_SIGNAL: signal}, start_time=now
    )
    span.end(end_time=now)
