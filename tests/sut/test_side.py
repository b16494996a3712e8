"""Side requests (``harness.sut.side``): a summariser's request is judged apart from the
conversation, and nothing a conversation request does can make it one."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fakes.rows import Row
from fakes.serving.log import Exchange
from harness.sut.judge import Call, SessionLog, Turn, judge_session
from harness.sut.observe import final_answers, findings
from harness.sut.protocol import Event
from harness.sut.report import outcome_json, summary_table, write_junit
from harness.sut.side import reported_side_calls, side_requests
from harness.sut.suite import JudgedSession
from tests.sut.summarising import run_summarising

SYSTEM = "You are a careful astronomer."
Q1, Q2 = "Which planets have rings around them?", "How many moons does Saturn have today?"
A1 = "Saturn has the brightest rings."
TURNS = (Turn(1, Q1, "answer"), Turn(2, Q2, "answer"))


def request(number: int, turn: int, *rows: Row, tokens: int = 10) -> Call:
    return Call(number, turn, rows, tokens, "reply", 200)


def log(*calls: Call, window: int = 1000) -> SessionLog:
    return SessionLog(SYSTEM, window, TURNS, calls)


SYS, U1, AS1, U2 = Row("system", SYSTEM), Row("user", Q1), Row("assistant", A1), Row("user", Q2)
SUMMARY = Row("user", f"Summarise:\nuser: {Q1}\nassistant: {A1}")


def summarised(
    summary: Row = SUMMARY, *, second: tuple[Row, ...] = (SYS, U1, AS1, U2)
) -> SessionLog:
    return log(request(1, 1, SYS, U1), request(2, 2, summary), request(3, 2, *second))


def test_a_summary_request_is_a_side_request_and_breaks_nothing() -> None:
    session = summarised()
    assert side_requests(session) == {2}
    assert judge_session(session, side_requests(session)) == []
    judged_as_conversation = {v.invariant for v in judge_session(session)}
    assert judged_as_conversation == {"system_kept", "current_user_kept"}


def test_a_request_that_holds_the_turns_question_is_the_conversation() -> None:
    assert side_requests(summarised(Row("user", f"Before: {Q1}\nNow: {Q2}"))) == frozenset()
    assert side_requests(summarised(Row("user", "Summarise what we said."))) == frozenset()


def test_a_side_request_is_still_judged_for_its_pairing_and_window() -> None:
    orphan = Row("tool", '{"tool_call_id": "c9", "content": "x"}')
    calls = (request(1, 1, SYS, U1), request(2, 2, SUMMARY, orphan, tokens=5000))
    session = log(*calls, request(3, 2, SYS, U1, AS1, U2))
    side = side_requests(session)
    assert side == {2}
    found = [(v.invariant, v.call) for v in judge_session(session, side)]
    assert found == [("tool_pairing", 2), ("within_window", 2)]


def test_a_turn_with_only_side_looking_requests_is_judged_as_the_conversation() -> None:
    session = log(request(1, 1, SYS, U1), request(2, 2, SUMMARY))
    assert side_requests(session) == frozenset()
    assert {v.invariant for v in judge_session(session, side_requests(session))} == {
        "system_kept",
        "current_user_kept",
    }


def test_an_announced_side_request_needs_no_transcript_but_cannot_carry_the_conversation() -> None:
    short = Row("user", "Summarise briefly.")
    assert side_requests(summarised(short)) == frozenset()
    assert side_requests(summarised(short), reported={2}) == {2}
    dropped = log(request(1, 1, SYS, U1), request(2, 2, U1, AS1, U2), request(3, 2, SYS, U2))
    assert side_requests(dropped, reported={2}) == frozenset()  # it carries turn 1: not side


def test_announcements_are_read_from_side_request_events_with_a_call_number() -> None:
    events = [
        Event(session="s", kind="side_request", call=2),  # type: ignore[call-arg]
        Event(session="s", kind="side_request", call="3"),  # type: ignore[call-arg]
        Event(session="s", kind="side_request"),
        Event(session="s", kind="trim", call=4),  # type: ignore[call-arg]
    ]
    assert reported_side_calls(events) == {2}


texts = st.sampled_from(["q1", "q2", "a1", "a2", "q1\na1", "sum: q1 a1", "sys", "{}", ""])
rows = st.builds(Row, st.sampled_from(["system", "user", "assistant", "tool"]), texts)
calls = st.lists(st.lists(rows, min_size=1, max_size=5), min_size=1, max_size=6)


@given(calls, st.sets(st.integers(1, 6)))
def test_a_request_carrying_the_system_prompt_or_an_earlier_row_is_never_side(
    sent: list[list[Row]], reported: set[int]
) -> None:
    turns = tuple(Turn(n, f"q{n}", "answer") for n in range(1, len(sent) + 1))
    session = SessionLog(
        "sys", 1000, turns, tuple(request(n, n, *r) for n, r in enumerate(sent, 1))
    )
    side = side_requests(session, reported)
    for number in side:
        call = session.calls[number - 1]
        earlier = {
            row for c in session.calls[: number - 1] if c.number not in side for row in c.rows
        }
        assert number > 1
        assert not any(row in earlier for row in call.rows)
        assert not any(row.role == "system" and "sys" in row.content for row in call.rows)
    # and every turn keeps a conversation request
    assert {c.turn for c in session.calls} == {
        c.turn for c in session.calls if c.number not in side
    }


def test_a_summarising_runtime_passes_with_one_side_request(tmp_path: Path) -> None:
    judged: list[JudgedSession] = []
    outcome = run_summarising("summarise", tmp_path, judged)
    assert (outcome.verdict, outcome.violations, outcome.requests) == ("PASS", (), 3)
    assert (outcome.side_requests, outcome.trims) == (1, 0)
    # the wire observer reads the conversation without it: no system dropped at call 2,
    # no compaction at call 3 (read as one, the summary request looks like both)
    assert judged[0].wire_findings == ()


def test_dropping_the_system_prompt_in_a_conversation_request_is_still_named(
    tmp_path: Path,
) -> None:
    outcome = run_summarising("drop-system", tmp_path)
    assert outcome.verdict == "FAIL"
    assert [(v.invariant, v.call) for v in outcome.violations] == [("system_kept", 3)]
    assert outcome.side_requests == 1


def test_a_side_request_without_a_transcript_counts_only_when_announced(tmp_path: Path) -> None:
    announced = run_summarising("announce", tmp_path / "a")
    assert (announced.verdict, announced.side_requests) == ("PASS", 1)
    silent = run_summarising("silent", tmp_path / "s")
    assert silent.side_requests == 0
    assert [(v.invariant, v.call) for v in silent.violations] == [
        ("system_kept", 2),
        ("current_user_kept", 2),
    ]


def _gemini(*contents: dict[str, Any]) -> Exchange:
    return Exchange(
        call_index=0, method="POST", path="/v1beta/models/gemini-test:generateContent",
        request_headers={}, request_body={"contents": list(contents)}, counter="heuristic",
        window=1000, tokens=None, outcome="reply", status=200, response_headers={},
        response_body={"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}}]},
    )  # fmt: skip


def _said(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def test_the_wire_reads_a_side_request_alone_for_its_order_only() -> None:
    call = {"role": "model", "parts": [{"functionCall": {"name": "lookup", "args": {}}}]}
    exchanges = [
        _gemini(_said("user", Q1)),
        _gemini(call, _said("user", f"Summarise:\nuser: {Q1}")),  # a call opening it: bad order
        _gemini(_said("user", Q1), _said("model", "ok"), _said("user", Q2)),
    ]
    alone = {(f.call, f.kind) for f in findings("gemini", "s", exchanges, side={2})}
    assert alone == {(2, "turn_order")}
    together = {(f.call, f.kind) for f in findings("gemini", "s", exchanges)}
    assert {(2, "turn_order"), (3, "compaction")} <= together


def test_a_summary_of_the_turn_just_answered_is_side_only_once_the_wire_answered_it() -> None:
    after_answer = Row("user", f"Summarise:\nuser: {Q1}")  # ADK, at the invocation's end
    session = log(request(1, 1, SYS, U1), request(2, 1, after_answer), request(3, 2, SYS, U2))
    assert side_requests(session) == frozenset()  # the turn's question: the conversation
    assert side_requests(session, answered={1}) == {2}
    assert side_requests(session, answered={3}) == frozenset()  # turn 1 never answered


def test_final_answers_are_successful_answers_without_a_tool_call() -> None:
    text, calling, refused = (_gemini(_said("user", Q1)) for _ in range(3))
    function_call: dict[str, Any] = {"functionCall": {"name": "lookup", "args": {}}}
    calling = replace(
        calling,
        response_body={"candidates": [{"content": {"role": "model", "parts": [function_call]}}]},
    )
    refused = replace(refused, status=400, response_body={"error": {"code": 400, "message": "no"}})
    assert final_answers("gemini", "s", [text, calling, refused, text]) == {1, 4}


def test_side_requests_are_counted_in_the_json_the_junit_and_the_table(tmp_path: Path) -> None:
    outcome = run_summarising("summarise", tmp_path)
    assert outcome_json(outcome)["side_requests"] == 1
    write_junit(tmp_path / "sut.xml", [outcome], [], None)
    case = ET.parse(tmp_path / "sut.xml").getroot().find("testcase")
    assert case is not None
    assert [(p.get("name"), p.get("value")) for p in case.iter("property")] == [
        ("side_requests", "1")
    ]
    table = summary_table([outcome], None)
    column = next(c for c in table.columns if c.header == "side requests")
    assert list(column.cells) == ["1"]
