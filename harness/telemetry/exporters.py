"""Span exporters the project adds to the SDK's: a JSON-lines file (``--otel-jsonl FILE``).

Each finished span is one line: the SDK's own ``ReadableSpan.to_json`` rendering
(name, context.trace_id/span_id, kind, parent_id, start_time, end_time, status,
attributes, events, links, resource), compacted to a single line and flushed, so a
crashed run keeps every span that had ended.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult


def span_to_record(span: ReadableSpan) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(span.to_json(indent=None))
    return record


class JsonLinesSpanExporter(SpanExporter):
    """Appends one JSON object per finished span to ``path``."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._stream = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(
            json.dumps(span_to_record(span), separators=(",", ":")) + "\n" for span in spans
        )
        with self._lock:
            if self._stream.closed:
                return SpanExportResult.FAILURE
            self._stream.write(lines)
            self._stream.flush()
        return SpanExportResult.SUCCESS

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        with self._lock:
            if not self._stream.closed:
                self._stream.flush()
        return True

    def shutdown(self) -> None:
        with self._lock:
            self._stream.close()


def read_span_lines(path: Path) -> list[dict[str, Any]]:
    """The span records of a JSON-lines span file, in the order they ended."""
    with path.open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]
