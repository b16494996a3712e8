"""Transcripts: one flushed JSON line per event; a crashed run keeps what it recorded."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness.events import (
    EVENT_KINDS,
    CompactionOutcome,
    ProviderContextEdited,
    ProviderEditKind,
    event_kind,
)
from harness.telemetry import (
    TranscriptError,
    TranscriptWriter,
    event_from_record,
    event_to_record,
    read_transcript,
)
from tests.telemetry.scripted import every_kind_session, scripted_session

ROOT = Path(__file__).resolve().parents[2]


def test_every_event_kind_round_trips(tmp_path: Path) -> None:
    events = every_kind_session()
    assert {type(e) for e in events} == set(EVENT_KINDS)
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    for event in events:
        writer.on_event(event)
    writer.close()
    assert read_transcript(path) == events


def test_a_line_is_the_kind_and_every_field(tmp_path: Path) -> None:
    event = scripted_session()[0]
    record = event_to_record(event)
    assert record["kind"] == "HistoryTrimmed" == event_kind(event)
    assert record["trigger"] == "turn_limit"
    assert record["turn_id"] is None
    assert event_from_record(json.loads(json.dumps(record))) == event


def test_each_line_is_flushed_before_the_next_event(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path)
    for count, event in enumerate(scripted_session(), start=1):
        writer.on_event(event)
        assert len(path.read_text().splitlines()) == count  # read by another handle
    writer.close()


def test_a_crashed_run_keeps_every_recorded_event(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    crash = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from harness.telemetry import TranscriptWriter
        from tests.telemetry.scripted import scripted_session
        writer = TranscriptWriter(Path({str(path)!r}))
        for event in scripted_session()[:7]:
            writer.on_event(event)
        os._exit(3)  # no close, no flush at exit: a crash
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", crash], env=env, timeout=60, check=False)
    assert done.returncode == 3
    assert read_transcript(path) == scripted_session()[:7]


def test_a_torn_last_line_is_skipped_unless_strict(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    events = scripted_session()[:3]
    lines = [json.dumps(event_to_record(e)) + "\n" for e in events]
    path.write_text("".join(lines) + lines[0][:20])
    assert read_transcript(path) == events
    with pytest.raises(TranscriptError):
        read_transcript(path, strict=True)


def test_a_malformed_line_in_the_middle_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    line = json.dumps(event_to_record(scripted_session()[0]))
    path.write_text(f"{line}\nnot json\n{line}\n")
    with pytest.raises(TranscriptError, match=":2:"):
        read_transcript(path)


def test_an_unknown_kind_is_an_error() -> None:
    with pytest.raises(TranscriptError, match="unknown event kind"):
        event_from_record({"kind": "Nope", "session_id": "s", "turn_id": None})


def test_writes_to_an_open_stream() -> None:
    stream = io.StringIO()
    writer = TranscriptWriter(stream)
    for event in scripted_session()[:2]:
        writer.on_event(event)
    writer.close()  # not ours to close
    assert not stream.closed
    assert [json.loads(line)["kind"] for line in stream.getvalue().splitlines()] == [
        "HistoryTrimmed",
        "TurnStarted",
    ]


def test_optional_enum_fields_are_read_back_as_enums() -> None:
    edited = next(e for e in scripted_session() if isinstance(e, ProviderContextEdited))
    record = json.loads(json.dumps(event_to_record(edited)))
    back = event_from_record({**record, "compaction": "failed"})
    assert isinstance(back, ProviderContextEdited)
    assert type(back.edit) is ProviderEditKind
    assert type(back.compaction) is CompactionOutcome
    assert back.compaction is CompactionOutcome.FAILED


def test_an_unknown_enum_value_is_an_error() -> None:
    edited = next(e for e in scripted_session() if isinstance(e, ProviderContextEdited))
    record = {**event_to_record(edited), "compaction": "half"}
    with pytest.raises(TranscriptError, match=r"ProviderContextEdited\.compaction"):
        event_from_record(record)
