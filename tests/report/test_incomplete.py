"""Sessions a signal (or a crash) stopped are shown as incomplete and never counted as real."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.report import ReportInputError, build
from harness.report.parse import read_file
from harness.telemetry.transcript import InterruptedMark
from tests.report.transcripts import Session, busy_session, write


def _append(path: Path, *records: dict[str, object]) -> Path:
    with path.open("a", encoding="utf-8") as stream:
        for record in records:
            stream.write(json.dumps(record) + "\n")
    return path


def _mark(session_id: str | None, signal: str = "SIGINT") -> dict[str, object]:
    return InterruptedMark(session_id, signal).to_record()


def test_an_interrupted_session_is_shown_but_left_out_of_the_totals(tmp_path: Path) -> None:
    done = busy_session("done")
    stopped = Session(session_id="stopped").turn().call(100).end()  # its turns ended...
    path = write(tmp_path / "run.jsonl", done, stopped)
    _append(path, _mark("stopped"))  # ...but the run was stopped before its next one
    report = build([path])
    by_id = {s.session_id: s for s in report.sessions}
    assert by_id["stopped"].incomplete == "interrupted by SIGINT"
    assert by_id["done"].incomplete is None
    alone = build([write(tmp_path / "alone.jsonl", busy_session("done"))])
    assert report.totals.sessions == alone.totals.sessions == 1
    assert report.totals.calls == alone.totals.calls
    assert report.totals.incomplete_sessions == 1
    html = report.html()
    assert "incomplete: interrupted by SIGINT" in html
    assert 'data-incomplete="1"' in html
    assert any("1 incomplete session(s)" in note for note in report.notes)


def test_a_mark_before_any_event_is_a_note_on_the_file(tmp_path: Path) -> None:
    path = _append(tmp_path / "empty.jsonl", _mark(None, "SIGTERM"))
    report = build([path])
    assert report.sessions == ()
    assert report.notes == [f"{path}: interrupted by SIGTERM before any event was recorded"]


def test_the_mark_is_read_apart_from_the_events(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", Session().turn().call(5).end())
    _append(path, _mark("s1", "SIGTERM"))
    read = read_file(path)
    assert read.interruptions == (InterruptedMark("s1", "SIGTERM"),)
    assert len(read.events) == len(Session().turn().call(5).end().events)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"kind": "interrupted", "session_id": "s1"}, "interrupted: missing field 'signal'"),
        (
            {"kind": "interrupted", "session_id": 3, "signal": "SIGINT"},
            "interrupted.session_id: expected a string or null, got 3",
        ),
        (
            {"kind": "interrupted", "session_id": "s1", "signal": "SIGINT", "x": 1},
            "interrupted: unknown field(s) 'x'",
        ),
    ],
)
def test_a_malformed_mark_names_its_line(
    tmp_path: Path, record: dict[str, object], message: str
) -> None:
    path = write(tmp_path / "t.jsonl", Session().turn().end())
    _append(path, record)
    lines = path.read_text(encoding="utf-8").count("\n")
    with pytest.raises(ReportInputError, match=re.escape(f"t.jsonl:{lines}: {message}")):
        build([path])
