"""Span exporters the project adds to the SDK's: a JSON-lines file (``--otel-jsonl FILE``),
and a guard around the OTLP exporter (``--otlp``) for a collector that does not answer.

Each finished span is one line: the SDK's own ``ReadableSpan.to_json`` rendering
(name, context.trace_id/span_id, kind, parent_id, start_time, end_time, status,
attributes, events, links, resource), compacted to a single line and flushed, so a
crashed run keeps every span that had ended; the file is fsynced at shutdown, so a run's
last line (``trimscope.run.interrupted`` when a signal stopped it) is on disk before the
run exits. A run killed without warning may leave a torn last line: ``read_span_lines``
skips it. A write that fails (a full disk) never leaves one: see ``JsonLinesSpanExporter``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from harness.telemetry.line_file import LineFile, LineFileFailed


def span_to_record(span: ReadableSpan) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(span.to_json(indent=None))
    return record


class JsonLinesSpanExporter(SpanExporter):
    """Writes one JSON object per finished span to ``path``: appended to what the file
    holds (``append``), or to an emptied file.

    A file is one output among several, and its disk may fill up while the run goes on:
    the file is a ``LineFile``, which a failed write cuts back to its last whole line and
    closes; the error is kept (``failure``), ``on_failure`` is told once and every later
    span is counted in ``dropped``. No export raises: the SDK's processor would log a
    traceback for every span (issue 28: ~12,000 of them on a full 64 KiB tmpfs)."""

    def __init__(
        self, path: Path, *, append: bool = True, on_failure: LineFileFailed | None = None
    ) -> None:
        self.path = path
        self._file = LineFile(path, append=append, on_failure=on_failure or _ignore)

    @property
    def failure(self) -> OSError | None:
        return self._file.failure

    @property
    def dropped(self) -> int:
        return self._file.dropped

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        data = "".join(
            json.dumps(span_to_record(span), separators=(",", ":")) + "\n" for span in spans
        ).encode("utf-8")
        if self._file.write(data, len(spans)):
            return SpanExportResult.SUCCESS
        return SpanExportResult.FAILURE

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True  # every write went to the file at once

    def shutdown(self) -> None:
        self._file.close(sync=True)


def _ignore(path: Path, error: OSError) -> None:
    """A span file's failure nobody asked to hear of: kept in ``failure``, never raised."""


def read_span_lines(path: Path) -> list[dict[str, Any]]:
    """The span records of a JSON-lines span file, in the order they ended; a torn last
    line (a run killed while writing it) is skipped, a torn line before it is an error."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            if number == len(lines) and not text.endswith("\n"):
                break  # the last write never finished: every whole line is kept
            raise ValueError(f"{path}:{number}: not a span record: {error}") from error
    return records


OTLP_EXPORT_TIMEOUT_S: Final = 2.0
"""The longest one OTLP export may take, its own retries included (unless
``OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`` or ``OTEL_EXPORTER_OTLP_TIMEOUT`` say otherwise). The
SDK's default (10 s, retried with back-off) made a run against an absent collector end
10 s late; with ``GuardedExporter`` no run waits longer than this for one."""
OTLP_RETRY_AFTER_S: Final = 30.0
"""After a failed export, batches are dropped at once for this long, then one is tried."""
OTLP_LOGGER: Final = "opentelemetry.exporter.otlp.proto.http.trace_exporter"
_SHOWN_REASON = 160
_KEPT_MESSAGES = 8


class _Messages(logging.Filter):
    """Keeps the exporter logger's messages (the latest ones) and drops them: the guard
    reports instead."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: deque[str] = deque(maxlen=_KEPT_MESSAGES)

    def filter(self, record: logging.LogRecord) -> bool:
        self.seen.append(record.getMessage())
        return False


def _reason(messages: Sequence[str]) -> str:
    """The system's own error (``[Errno 111] Connection refused``) when a message has one,
    else the first message; the SDK's last one only says that it gave up."""
    for message in messages:
        if found := re.search(r"\[Errno -?\d+\] [^\"')]+", message):
            return found[0]
    return messages[0][:_SHOWN_REASON] if messages else "the export failed"


class GuardedExporter(SpanExporter):
    """Wraps an exporter to a collector the run does not control (OTLP): the first failed
    export is reported once, in one line naming the target and the reason, and the
    exporter's own retry and error logs are silenced while the guard is installed; after a
    failure, batches are dropped at once for ``retry_after_s`` (then one is tried again),
    so an unreachable collector costs the run at most one export's timeout at its end."""

    def __init__(
        self,
        inner: SpanExporter,
        *,
        target: str,
        warn: Callable[[str], None],
        retry_after_s: float = OTLP_RETRY_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
        logger: str = OTLP_LOGGER,
    ) -> None:
        self._inner = inner
        self._target = target
        self._warn = warn
        self._retry_after_s = retry_after_s
        self._clock = clock
        self._lock = threading.Lock()
        self._closed_until: float | None = None
        self._reported = False
        self.dropped = 0
        self._logger = logging.getLogger(logger)
        self._messages = _Messages()
        self._logger.addFilter(self._messages)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self._lock:
            if self._closed_until is not None and self._clock() < self._closed_until:
                self.dropped += len(spans)
                return SpanExportResult.FAILURE
        result = self._inner.export(spans)
        if result is SpanExportResult.SUCCESS:
            return result
        with self._lock:
            self._closed_until = self._clock() + self._retry_after_s
            self.dropped += len(spans)
            first, self._reported = not self._reported, True
        if first:
            self._warn(
                f"OTLP: cannot export spans to {self._target}:"
                f" {_reason(list(self._messages.seen))};"
                f" spans are dropped (tried again every {self._retry_after_s:g} s), the run"
                " goes on"
            )
        return result

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self._inner.force_flush(timeout_millis)

    def shutdown(self) -> None:
        try:
            self._inner.shutdown()
        finally:
            self._logger.removeFilter(self._messages)
