"""A run stopped by a signal says so in its spans: a last ``trimscope.run.interrupted`` span,
whatever the sampler kept; a run that was not stopped has none. (The real-signal tests are
``tests/scenarios/test_interrupted_run.py`` and ``tests/load/test_interrupted_load.py``.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler

from harness.events import EventBus, ToolCallStarted
from harness.telemetry import TelemetryOptions, build_telemetry, read_span_lines
from harness.telemetry import names as n
from tests.telemetry.scripted import scripted_session

# the scripted session up to a tool call in flight: its agent and tool spans are open
EVENTS = scripted_session()
MID_TURN = next(i for i, e in enumerate(EVENTS) if isinstance(e, ToolCallStarted)) + 1


def _spans(path: Path, sampler: Sampler, signal: str | None, events: int) -> list[dict[str, Any]]:
    """The span records of a run of the first ``events`` events, marked stopped by
    ``signal`` (unless ``None``) before its shutdown."""
    telemetry = build_telemetry(TelemetryOptions(otel_jsonl=path, sampler=sampler))
    bus = EventBus(strict=True)
    for observer in telemetry.observers:
        bus.subscribe(observer)
    for event in EVENTS[:events]:
        bus.publish(event)
    if signal is not None:
        telemetry.mark_interrupted(signal)
    telemetry.shutdown()
    return read_span_lines(path)


@pytest.mark.parametrize("signal", ["SIGINT", "SIGTERM"])
def test_a_stopped_run_ends_its_span_file_with_the_mark(tmp_path: Path, signal: str) -> None:
    records = _spans(tmp_path / "s.jsonl", ALWAYS_ON, signal, MID_TURN)
    *spans, mark = records
    assert mark["name"] == n.SPAN_RUN_INTERRUPTED
    assert mark["attributes"] == {n.ATTR_RUN_SIGNAL: signal}
    assert mark["parent_id"] is None  # a root span of a trace of its own
    assert mark["context"]["trace_id"] not in {s["context"]["trace_id"] for s in spans}
    assert mark["start_time"] == mark["end_time"]
    assert mark["resource"] == spans[0]["resource"]
    # the spans the signal left open were ended before it, and say so
    incomplete = {s["name"] for s in spans if s["attributes"].get(n.ATTR_INCOMPLETE)}
    assert incomplete == {"invoke_agent coder", "execute_tool read_file"}
    assert [r["name"] for r in records].count(n.SPAN_RUN_INTERRUPTED) == 1


def test_the_mark_is_kept_when_the_sampler_keeps_nothing(tmp_path: Path) -> None:
    """Sampling picks turns to trace; the mark is about the run and is always written."""
    records = _spans(tmp_path / "s.jsonl", ALWAYS_OFF, "SIGINT", MID_TURN)
    assert [(r["name"], r["attributes"]) for r in records] == [
        (n.SPAN_RUN_INTERRUPTED, {n.ATTR_RUN_SIGNAL: "SIGINT"})
    ]


@pytest.mark.parametrize("events", [MID_TURN, len(EVENTS)], ids=["mid-turn", "whole"])
def test_a_run_not_stopped_has_no_mark(tmp_path: Path, events: int) -> None:
    records = _spans(tmp_path / "s.jsonl", ALWAYS_ON, None, events)
    assert records
    assert n.SPAN_RUN_INTERRUPTED not in {r["name"] for r in records}


def test_every_span_exporter_gets_the_mark(tmp_path: Path) -> None:
    """``--otlp`` gets it as the file does: through the run's span processors."""
    memory = InMemorySpanExporter()
    telemetry = build_telemetry(TelemetryOptions(span_exporters=(memory,), sampler=ALWAYS_OFF))
    telemetry.mark_interrupted("SIGTERM")
    telemetry.shutdown()
    (mark,) = memory.get_finished_spans()
    assert mark.name == n.SPAN_RUN_INTERRUPTED
    assert dict(mark.attributes or {}) == {n.ATTR_RUN_SIGNAL: "SIGTERM"}


def test_reading_skips_a_torn_last_line_only(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    whole = _spans(path, ALWAYS_ON, None, len(EVENTS))
    text = path.read_text(encoding="utf-8")
    path.write_text(text + '{"name": "chat gp', encoding="utf-8")  # killed mid-write
    assert read_span_lines(path) == whole
    first, rest = text.split("\n", 1)
    path.write_text(first[:-5] + "\n" + rest, encoding="utf-8")
    with pytest.raises(ValueError, match=r"s\.jsonl:1: not a span record"):
        read_span_lines(path)
    assert json.loads(first)  # the line torn on purpose was a record
