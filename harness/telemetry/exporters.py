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

import contextlib
import json
import logging
import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult


def span_to_record(span: ReadableSpan) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(span.to_json(indent=None))
    return record


SPAN_FILE_MODE: Final = 0o644
"""A span file's mode (before the umask), as the SDK-free ``open`` gave it."""
SpanFileFailed = Callable[[Path, OSError], None]
"""Told once, at a span file's first failed write: the file and the system's error."""


class JsonLinesSpanExporter(SpanExporter):
    """Writes one JSON object per finished span to ``path``: appended to what the file
    holds (``append``), or to an emptied file.

    A file is one output among several, and its disk may fill up while the run goes on: a
    write that fails cuts the file back to its last whole line (never a torn one), closes
    it, keeps the error (``failure``) and tells ``on_failure`` once; every span from then on
    is counted in ``dropped`` (those of the failed write included) and never written. No
    export raises: the SDK's processor would log a traceback for every span (issue 28:
    ~12,000 of them on a full 64 KiB tmpfs)."""

    def __init__(
        self, path: Path, *, append: bool = True, on_failure: SpanFileFailed | None = None
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        self.path = path
        self._fd: int | None = os.open(path, flags, SPAN_FILE_MODE)
        self._size = os.lseek(self._fd, 0, os.SEEK_END)  # after the last whole line
        self._on_failure = on_failure
        self._lock = threading.Lock()
        self.failure: OSError | None = None
        self.dropped = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        data = "".join(
            json.dumps(span_to_record(span), separators=(",", ":")) + "\n" for span in spans
        ).encode("utf-8")
        with self._lock:
            if self._fd is None:  # failed before (or shut down: nothing is dropped then)
                self.dropped += len(spans) if self.failure is not None else 0
                return SpanExportResult.FAILURE
            try:
                _write_all(self._fd, data)
            except OSError as error:
                self.dropped += len(spans)
                self._fail(error)
                return SpanExportResult.FAILURE
            self._size += len(data)
        return SpanExportResult.SUCCESS

    def _fail(self, error: OSError) -> None:
        """Cut the torn line off, close the file, keep and report the error (lock held)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):  # freeing blocks works on a full disk
                os.ftruncate(fd, self._size)
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.failure is None:
            self.failure = error
            if self._on_failure is not None:
                self._on_failure(self.path, error)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True  # every write went to the file at once

    def shutdown(self) -> None:
        with self._lock:
            if self._fd is None:
                return
            try:
                os.fsync(self._fd)
            except OSError as error:
                self._fail(error)
                return
            os.close(self._fd)
            self._fd = None


def _write_all(fd: int, data: bytes) -> None:
    """``data`` written whole (``os.write`` may write part of it, then fail)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


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
