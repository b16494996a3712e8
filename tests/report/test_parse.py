"""Reading transcripts for a report: files and folders, every bad line named file:line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.events import EVENT_KINDS, Event, event_kind
from harness.report import ReportInputError, discover, read_file
from harness.report.parse import FIELD_TYPES, parse_line
from tests.report.transcripts import Session, busy_session, lines, write


def test_every_event_kind_round_trips_through_the_checked_reader() -> None:
    events = busy_session().events
    assert {event_kind(e) for e in events} == {kind.__name__ for kind in EVENT_KINDS}
    assert [parse_line(line.encode()) for line in lines(events)] == events


def test_every_declared_field_type_is_checkable() -> None:
    # A new event field of an unsupported type must fail here, not in a user's report.
    for kind, hints in FIELD_TYPES.items():
        for name in hints:
            with pytest.raises(ReportInputError, match=rf"{kind}\.{name}: expected"):
                parse_line(_with(busy_session().events, kind, **{name: {"not": "valid"}}))


def _record(events: list[Event], kind: str) -> dict[str, Any]:
    record: dict[str, Any] = next(
        json.loads(line) for line in lines(events) if f'"kind": "{kind}"' in line
    )
    return record


def _with(events: list[Event], kind: str, **changes: object) -> bytes:
    record = _record(events, kind) | changes
    return json.dumps(record).encode()


def test_folders_are_searched_recursively_for_jsonl_and_files_taken_as_given(
    tmp_path: Path,
) -> None:
    a = write(tmp_path / "run" / "a.jsonl", Session("a").turn().end())
    b = write(tmp_path / "run" / "nested" / "b.jsonl", Session("b").turn().end())
    (tmp_path / "run" / "notes.txt").write_text("not a transcript")
    single = write(tmp_path / "single.log", Session("c").turn().end())
    assert discover([tmp_path / "run", single, a]) == [a, b, single]


def test_a_missing_path_or_a_folder_without_transcripts_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportInputError, match="no such file or folder"):
        discover([tmp_path / "absent.jsonl"])
    with pytest.raises(ReportInputError, match=r"no \.jsonl transcript"):
        discover([tmp_path])


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"kind": "Nonsense", "session_id": "s"}', "unknown event kind 'Nonsense'"),
        ('{"session_id": "s"}', "unknown event kind None"),
    ],
)
def test_a_malformed_line_names_file_and_line(tmp_path: Path, bad_line: str, message: str) -> None:
    good = lines(Session().turn().end().events)
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([good[0], bad_line, good[1]]) + "\n")
    with pytest.raises(ReportInputError, match=rf"^{re.escape(str(path))}:2: {message}"):
        read_file(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"estimate_tokens": "12"}, "ProviderCallStarted.estimate_tokens: expected an integer"),
        ({"compacted": 1}, "ProviderCallStarted.compacted: expected true or false"),
        ({"model": 3}, "ProviderCallStarted.model: expected a string or null"),
        ({"call_id": None}, "ProviderCallStarted.call_id: expected a string, got null"),
        ({"surprise": 1}, r"ProviderCallStarted: unknown field\(s\) 'surprise'"),
    ],
)
def test_wrong_and_unknown_fields_are_named(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_with(busy_session().events, "ProviderCallStarted", **change) + b"\n")
    with pytest.raises(ReportInputError, match=rf"^{re.escape(str(path))}:1: {message}"):
        read_file(path)


def test_a_missing_field_is_named() -> None:
    record = _record(busy_session().events, "ProviderCallStarted")
    del record["call_id"]
    with pytest.raises(ReportInputError, match="ProviderCallStarted: missing field 'call_id'"):
        parse_line(json.dumps(record).encode())


def test_a_field_with_a_default_may_be_absent() -> None:
    record = _record(busy_session().events, "TurnFinished")
    del record["error_type"], record["at"]
    assert parse_line(json.dumps(record).encode()).at == 0.0


def test_transcript_text_in_errors_cannot_drive_the_terminal() -> None:
    with pytest.raises(ReportInputError) as caught:
        parse_line(json.dumps({"kind": "\x1b[31mred" + "x" * 200}).encode())
    assert "\x1b" not in str(caught.value)
    assert len(str(caught.value)) < 120


def test_an_unknown_trigger_is_refused_with_the_allowed_values() -> None:
    line = _with(busy_session().events, "HistoryTrimmed", trigger="sideways")
    with pytest.raises(ReportInputError, match="trigger: expected one of 'proactive'"):
        parse_line(line)


def test_bad_utf8_is_named_with_its_line(tmp_path: Path) -> None:
    good = lines(Session().turn().end().events)
    path = tmp_path / "t.jsonl"
    path.write_bytes(good[0].encode() + b"\n" + b'{"kind": "\xff"}\n' + good[1].encode() + b"\n")
    with pytest.raises(ReportInputError, match=rf"^{re.escape(str(path))}:2: not UTF-8"):
        read_file(path)


def test_an_incomplete_last_line_is_skipped_unless_strict(tmp_path: Path) -> None:
    good = lines(Session().turn().end().events)
    path = tmp_path / "t.jsonl"
    path.write_text(good[0] + "\n" + good[1][:20])  # the writer died mid-line
    read = read_file(path)
    assert (len(read.events), read.torn_line) == (1, 2)
    with pytest.raises(ReportInputError, match=rf"^{re.escape(str(path))}:2: not JSON"):
        read_file(path, strict=True)


def test_a_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    good = lines(Session().turn().end().events)
    path = tmp_path / "t.jsonl"
    path.write_text(good[0] + "\n" + good[1])
    assert (len(read_file(path).events), read_file(path).torn_line) == (2, None)


def test_a_bad_line_before_the_last_is_never_taken_for_a_torn_one(tmp_path: Path) -> None:
    good = lines(Session().turn().end().events)
    path = tmp_path / "t.jsonl"
    path.write_text(good[0] + "\n" + good[1][:20] + "\n" + good[1] + "\n")
    with pytest.raises(ReportInputError, match=rf"^{re.escape(str(path))}:2: not JSON"):
        read_file(path)


def test_blank_lines_are_ignored(tmp_path: Path) -> None:
    good = lines(Session().turn().end().events)
    path = tmp_path / "t.jsonl"
    path.write_text("\n" + good[0] + "\n\n  \n" + good[1] + "\n\n")
    assert len(read_file(path).events) == 2


def test_a_device_is_refused_as_not_a_regular_file_unread() -> None:
    with pytest.raises(ReportInputError, match="not a regular file or folder"):
        discover([Path("/dev/zero")])  # read, it would never end
