"""``TranscriptWriter.mark_interrupted``: the sessions a signal left unfinished end with an
``interrupted`` line, and readers of events step over it."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.events import Event, TurnFinished, TurnStarted
from harness.telemetry import InterruptedMark, TranscriptWriter, read_transcript
from tests.report.transcripts import Session


def _write(path: Path, events: list[Event], signal: str = "SIGINT") -> list[InterruptedMark]:
    writer = TranscriptWriter(path)
    for event in events:
        writer.on_event(event)
    marks = writer.mark_interrupted(signal)
    writer.close()
    return marks


def _last_line(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[-1])


def test_a_session_stopped_mid_turn_is_marked(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    events = Session(session_id="busy").turn().call(10).events
    assert _write(path, events) == [InterruptedMark("busy", "SIGINT")]
    assert _last_line(path) == {"kind": "interrupted", "session_id": "busy", "signal": "SIGINT"}
    assert read_transcript(path, strict=True) == events  # the mark is not an event


def test_between_turns_the_last_session_seen_is_marked(tmp_path: Path) -> None:
    first = Session(session_id="first").turn().end().events
    second = Session(session_id="second").turn().end().events
    marks = _write(tmp_path / "t.jsonl", [*second, *first, *second], "SIGTERM")
    assert marks == [InterruptedMark("second", "SIGTERM")]


def test_before_any_event_the_mark_names_no_session(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    assert _write(path, []) == [InterruptedMark(None, "SIGINT")]
    assert read_transcript(path) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.booleans()), min_size=1, max_size=12))
def test_exactly_the_sessions_with_an_open_turn_are_marked(steps: list[tuple[str, bool]]) -> None:
    """Any interleaving of turn starts and ends: the marks name the sessions whose last
    turn event is a start, or else the last session seen."""

    writer = TranscriptWriter(io.StringIO())
    open_now: dict[str, bool] = {}
    last: str | None = None  # with no steps at all, the writer marks a session with no id
    for session_id, starts in steps:
        builder = Session(session_id=session_id).turn()
        event = builder.events[0] if starts else builder.end().events[-1]
        assert isinstance(event, TurnStarted if starts else TurnFinished)
        writer.on_event(event)
        open_now[session_id], last = starts, session_id
    expected: list[str | None] = [sid for sid, is_open in open_now.items() if is_open] or [last]
    assert [mark.session_id for mark in writer.mark_interrupted("SIGINT")] == expected
