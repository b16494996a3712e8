"""Each invariant of the judge, from hand-made request logs: a session that keeps the rule
passes, one that breaks it is named with the invariant and the call."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fakes.rows import Row, tool_call_row, tool_result_row
from fakes.rows import WireToolCall as W
from harness.sut.judge import (
    Call,
    SessionLog,
    Turn,
    Violation,
    judge_findings,
    judge_session,
)
from harness.wire.model import Finding

SYSTEM = Row("system", "sys")
WINDOW = 1000


def user(text: str) -> Row:
    return Row("user", text)


def call(number: int, turn: int, *rows: Row, tokens: int = 10, outcome: str = "reply",
         status: int = 200) -> Call:  # fmt: skip
    return Call(number, turn, (SYSTEM, *rows), tokens, outcome, status)


def session(calls: list[Call], turns: list[Turn] | None = None) -> SessionLog:
    turns = turns or [Turn(1, "q1", "answer"), Turn(2, "q2", "answer")]
    return SessionLog("sys", WINDOW, tuple(turns), tuple(calls))


def invariants(found: list[Violation]) -> list[tuple[str, int | None]]:
    return [(v.invariant, v.call) for v in found]


def test_a_session_that_keeps_every_rule_passes() -> None:
    log = session(
        [call(1, 1, user("q1")), call(2, 2, user("q1"), Row("assistant", "a"), user("q2"))]
    )
    assert judge_session(log) == []


def pair(call_id: str) -> tuple[Row, Row]:
    return tool_call_row(None, [W(call_id, "echo", "{}")]), tool_result_row(call_id, "hi")


def test_tool_pairing_a_result_without_its_call_is_named() -> None:
    _, result = pair("c1")
    log = session([call(1, 1, user("q1"), result)], [Turn(1, "q1", "answer")])
    assert invariants(judge_session(log)) == [("tool_pairing", 1)]


def test_tool_pairing_a_call_without_its_result_is_named_unless_last() -> None:
    asked, _ = pair("c1")
    broken = session([call(1, 1, user("q1"), asked, user("more"))], [Turn(1, "q1", "answer")])
    assert invariants(judge_session(broken)) == [("tool_pairing", 1)]
    last = session([call(1, 1, user("q1"), asked)], [Turn(1, "q1", "answer")])
    assert judge_session(last) == []


@given(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=6, unique=True), st.data())
def test_tool_pairing_holds_for_whole_pairs_and_breaks_without_any_one_result(
    call_ids: list[str], data: st.DataObject
) -> None:
    rows = [row for call_id in call_ids for row in pair(call_id)]
    whole = session([call(1, 1, user("q1"), *rows, user("next"))], [Turn(1, "q1", "answer")])
    assert judge_session(whole) == []
    dropped = data.draw(st.sampled_from(call_ids))
    broken_rows = [r for r in rows if r != pair(dropped)[1]]
    broken = session([call(1, 1, user("q1"), *broken_rows, user("x"))], [Turn(1, "q1", "answer")])
    assert ("tool_pairing", 1) in invariants(judge_session(broken))


def test_system_kept_a_dropped_or_changed_system_prompt_is_named() -> None:
    changed = Call(2, 2, (Row("system", "sys!"), user("q2")), 10, "reply", 200)
    dropped = Call(3, 2, (user("q2"),), 10, "reply", 200)
    log = session([call(1, 1, user("q1")), changed, dropped])
    assert invariants(judge_session(log)) == [("system_kept", 2), ("system_kept", 3)]


def test_current_user_kept_a_turn_whose_request_lost_its_user_message_is_named() -> None:
    log = session([call(1, 1, user("q1")), call(2, 2, user("q1"), Row("assistant", "a"))])
    assert invariants(judge_session(log)) == [("current_user_kept", 2)]


def test_within_window_a_request_over_the_told_window_is_named() -> None:
    log = session([call(1, 1, user("q1"), tokens=WINDOW + 1), call(2, 2, user("q2"))])
    assert invariants(judge_session(log)) == [("within_window", 1)]


def test_recovers_from_overflow_resending_the_same_request_is_not_recovering() -> None:
    overflow = call(1, 1, user("q1"), tokens=50, outcome="overflow", status=400)
    again = call(2, 1, user("q1"), tokens=50)
    log = session([overflow, again], [Turn(1, "q1", "answer")])
    assert invariants(judge_session(log)) == [("recovers_from_overflow", 1)]


def test_recovers_from_overflow_a_smaller_retry_that_answers_passes() -> None:
    old = (user("q0"), Row("assistant", "a0"))
    overflow = call(1, 2, *old, user("q1"), tokens=50, outcome="overflow", status=400)
    smaller = call(2, 2, user("q1"), tokens=20)
    turns = [Turn(1, "q0", "answer"), Turn(2, "q1", "answer")]
    assert judge_session(session([overflow, smaller], turns)) == []


def test_recovers_from_overflow_giving_up_while_older_turns_are_sent_is_named() -> None:
    overflow = call(1, 2, user("q0"), user("q1"), tokens=50, outcome="overflow", status=400)
    turns = [Turn(1, "q0", "answer"), Turn(2, "q1", "error", "overflow", "too long")]
    assert invariants(judge_session(session([overflow], turns))) == [("recovers_from_overflow", 1)]
    # only the newest turn left and it cannot fit: a clean error is right
    alone = call(1, 2, user("q1"), tokens=50, outcome="overflow", status=400)
    assert judge_session(session([alone], turns)) == []


def test_session_survives_failure_an_overflow_that_keeps_the_failed_turn_is_named() -> None:
    first = call(1, 1, user("big"), outcome="overflow", status=400)
    second = call(2, 2, user("big"), user("q2"), outcome="overflow", status=400)
    turns = [Turn(1, "big", "error", "overflow", "x"), Turn(2, "q2", "error", "overflow", "y")]
    found = invariants(judge_session(session([first, second], turns)))
    assert ("session_survives_failure", 2) in found


def test_session_survives_failure_the_same_refusal_again_is_named() -> None:
    turns = [
        Turn(1, "q1", "error", "internal", "broken"),
        Turn(2, "q2", "error", "internal", "broken"),
    ]
    assert invariants(judge_session(session([], turns))) == [("session_survives_failure", None)]


def test_no_trim_on_lookalike_fewer_rows_after_a_rate_limit_is_named() -> None:
    limited = call(1, 2, user("q0"), Row("assistant", "a"), user("q1"), outcome="fault", status=429)
    trimmed = call(2, 2, user("q1"))
    turns = [Turn(1, "q0", "answer"), Turn(2, "q1", "answer")]
    assert invariants(judge_session(session([limited, trimmed], turns))) == [
        ("no_trim_on_lookalike", 2)
    ]


def finding(kind: str, number: int = 1) -> Finding:
    return Finding(session="s", call=number, kind=kind, status=200, detail=kind)  # type: ignore[arg-type]


def test_wire_order_comes_from_turn_order_findings() -> None:
    assert invariants(judge_findings([finding("turn_order", 3)], 0, reports_events=True)) == [
        ("wire_order", 3)
    ]


def test_event_honest_compares_reported_trims_with_the_wire() -> None:
    assert invariants(judge_findings([finding("overflow")], 2, reports_events=True)) == [
        ("event_honest", None)
    ]
    assert invariants(judge_findings([finding("trim")], 0, reports_events=True)) == [
        ("event_honest", None)
    ]
    assert judge_findings([finding("trim")], 0, reports_events=False) == []
    assert judge_findings([], 5, reports_events=True) == []  # no findings: nothing to compare


@st.composite
def growing_sessions(draw: st.DrawFn) -> SessionLog:
    """A well-behaved session: each turn's requests carry the system prompt, every earlier
    exchange and the turn's own user message, within the window."""
    texts = draw(st.lists(st.text("abcdef ", min_size=1, max_size=8), min_size=1, max_size=6))
    turns: list[Turn] = []
    calls: list[Call] = []
    history = [SYSTEM]
    for number, text in enumerate(texts, start=1):
        history.append(user(text))
        for _ in range(draw(st.integers(1, 3))):
            calls.append(Call(len(calls) + 1, number, tuple(history), len(history), "reply", 200))
        history.append(Row("assistant", f"answer {number}"))
        turns.append(Turn(number, text, "answer"))
    return SessionLog("sys", WINDOW, tuple(turns), tuple(calls))


@given(growing_sessions())
def test_a_well_behaved_session_violates_nothing(log: SessionLog) -> None:
    assert judge_session(log) == []


@given(growing_sessions(), st.data())
def test_dropping_the_current_user_message_from_any_request_is_named_at_that_call(
    log: SessionLog, data: st.DataObject
) -> None:
    broken = data.draw(st.sampled_from(log.calls))
    text = log.turns[broken.turn - 1].text
    rows = tuple(r for r in broken.rows if not (r.role == "user" and text in r.content))
    calls = tuple(
        Call(c.number, c.turn, rows, c.tokens, c.outcome, c.status) if c is broken else c
        for c in log.calls
    )
    found = judge_session(SessionLog(log.system, log.window, log.turns, calls))
    assert ("current_user_kept", broken.number) in invariants(found)


def test_a_request_refused_for_its_tool_pairing_is_a_tool_pairing_violation_only() -> None:
    """The fake refuses an orphaned tool result before decoding the request: its rows are
    empty, which must not read as a lost system prompt or user message."""
    refused = Call(2, 1, (), None, "rejected", 400, refused="tool pairing")
    log = session([call(1, 1, user("q1")), refused], [Turn(1, "q1", "error", "provider")])
    assert invariants(judge_session(log)) == [("tool_pairing", 2)]
