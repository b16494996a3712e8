"""A span file whose disk fills up (issue 28): cut back to its last whole line, reported
once, every later span counted and none raised to the SDK (whose processor logs a
traceback per span it sees fail)."""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from harness.events import TurnStarted
from harness.telemetry import line_file
from harness.telemetry.exporters import JsonLinesSpanExporter, read_span_lines
from harness.telemetry.setup import TelemetryOptions, span_file_exporter
from harness.telemetry.transcript import TranscriptWriter, read_transcript
from tests.small_disk import small_disk

SPANS = 40


def _spans(exporter: JsonLinesSpanExporter, count: int = SPANS) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    for number in range(count):
        with tracer.start_as_current_span(f"span-{number}") as span:
            span.set_attribute("padding", "x" * 200)
    provider.shutdown()


def _assert_whole_lines(path: Path) -> list[dict[str, object]]:
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the span file ends in a torn line"
    return read_span_lines(path)


def test_an_injected_full_disk_stops_the_file_at_its_last_whole_span(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "spans.jsonl"
    written = 0

    def fill_up(fd: int, data: bytes) -> None:  # the 11th write: half a line, then ENOSPC
        nonlocal written
        written += 1
        if written > 10:
            os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.write(fd, data)

    monkeypatch.setattr(line_file, "write_all", fill_up)
    told: list[tuple[Path, OSError]] = []
    exporter = JsonLinesSpanExporter(path, on_failure=lambda p, e: told.append((p, e)))
    with caplog.at_level(logging.DEBUG):
        _spans(exporter)
    records = _assert_whole_lines(path)
    assert [r["name"] for r in records] == [f"span-{n}" for n in range(10)]
    assert [(p, e.errno) for p, e in told] == [(path, errno.ENOSPC)]  # once, not per span
    assert exporter.failure is not None
    assert exporter.failure.errno == errno.ENOSPC
    assert exporter.dropped == SPANS - 10
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_real_small_disk_keeps_whole_lines_and_counts_the_rest(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        told: list[OSError] = []
        exporter = JsonLinesSpanExporter(
            disk / "spans.jsonl", on_failure=lambda _, error: told.append(error)
        )
        _spans(exporter, 2_000)  # ~0.7 MB of spans on a 64 KiB disk
        records = _assert_whole_lines(disk / "spans.jsonl")
    assert [e.errno for e in told] == [errno.ENOSPC]
    assert records
    assert exporter.dropped > 0
    assert len(records) + exporter.dropped == 2_000


def test_a_span_file_is_emptied_unless_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    _spans(JsonLinesSpanExporter(path, append=False), 3)
    _spans(JsonLinesSpanExporter(path, append=True), 2)
    assert len(_assert_whole_lines(path)) == 5
    _spans(JsonLinesSpanExporter(path, append=False), 1)
    assert len(_assert_whole_lines(path)) == 1


def _turn(turn_id: str) -> TurnStarted:
    return TurnStarted(
        session_id="s", turn_id=turn_id, agent_name="a", provider="p", model="m", user_text_bytes=1
    )


def test_a_transcript_without_a_failure_callback_raises_after_cutting_the_torn_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run`` stops on a transcript it cannot write (no callback): the error is raised,
    and the file still ends at its last whole line."""
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    writer.on_event(_turn("t1"))

    def half_then_full(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(line_file, "write_all", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        writer.on_event(_turn("t2"))
    writer.close()
    assert [type(e).__name__ for e in read_transcript(path, strict=True)] == ["TurnStarted"]


def test_a_span_file_nobody_watches_warns_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run`` and ``proxy`` pass no callback: the failure is still said, once."""

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(line_file, "write_all", full)
    warned: list[str] = []
    path = tmp_path / "spans.jsonl"
    options = TelemetryOptions(otel_jsonl=path, warn=warned.append)
    exporter = span_file_exporter(options)
    assert exporter is not None
    _spans(exporter, 3)
    assert warned == [
        f"cannot write spans to {path}: No space left on device; later spans are dropped"
    ]
    assert exporter.dropped == 3
