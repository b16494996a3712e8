"""Every trim trigger and decision path of the agent loop, against a real fake provider
over the in-process transport (spec 8-14)."""

from __future__ import annotations

import asyncio
import json

import pytest

import fakes
from harness.events import (
    CapacityChecked,
    HistoryTrimmed,
    ProviderCallFinished,
    RecoveryAttempted,
    TrimTrigger,
)
from harness.providers import ContextWindowExceeded
from harness.runtime import (
    BREADCRUMB,
    REASON_BUDGET,
    REASON_TURN_LIMIT,
    ChatMessage,
    ContextCapacityExceeded,
    RuntimeProfile,
    native_tool_result_row,
)
from tests.agent.support import build_rig

say = fakes.say


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_proactive_trim_runs_before_the_first_call_of_a_turn() -> None:
    """Spec 9: iteration 0 trims when the history is over budget; the request carries the
    breadcrumb right after the system row. Rows: sys 5, "aaaa…"(40 B) 14, "ok" 5 -> the
    second turn's history is 5 + 14 + 5 + ("b" 1 B -> 5) = 29 > 20; keeping the newest
    turn costs 5 + 5 = 10."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=20),
        tools=False,
        script=fakes.FakeScript(default=say("ok")),
    )
    run(rig.agent.turn("a" * 40))
    run(rig.agent.turn("b"))
    trims = rig.recorder.of("HistoryTrimmed")
    assert len(trims) == 1
    trim = trims[0]
    assert isinstance(trim, HistoryTrimmed)
    assert (trim.trigger, trim.reason, trim.dropped_messages, trim.kept_turns) == (
        TrimTrigger.PROACTIVE,
        REASON_BUDGET,
        2,
        1,
    )
    assert (trim.tokens_before, trim.tokens_after, trim.budget_tokens) == (29, 10, 20)
    assert rig.sent_rows(2) == [("system", "sys"), ("user", BREADCRUMB), ("user", "b")]
    kinds = rig.kinds()
    second_turn = kinds[kinds.index("TurnStarted", 1) :]
    assert second_turn.index("HistoryTrimmed") < second_turn.index("ProviderCallStarted")


def test_budget_zero_disables_proactive_trim_but_not_the_capacity_check() -> None:
    """Spec 6.2 and 8: max_context_tokens = 0 never trims proactively; a prepared request
    over the served window is still refused before dispatch."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=0),
        configured_window=30,
        tools=False,
        script=fakes.FakeScript(default=say("ok")),
    )
    with pytest.raises(ContextCapacityExceeded) as caught:
        run(rig.agent.turn("x" * 200))  # sys 5 + ceil(200/4)+4 = 59 > 30
    assert caught.value.estimate == 59
    assert caught.value.model_context_window == 30
    assert rig.recorder.of("HistoryTrimmed") == []
    assert rig.recorder.of("ProviderCallStarted") == []
    assert rig.fake.log.entries() == ()  # not a byte was sent
    check = rig.recorder.of("CapacityChecked")[0]
    assert isinstance(check, CapacityChecked)
    assert not check.fits


def test_capacity_check_equal_to_window_fits() -> None:
    """Decision 19.8: estimate <= window is sendable. sys 5 + "x"*100 (29) = 34."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=0),
        configured_window=34,
        tools=False,
        script=fakes.FakeScript(default=say("ok")),
    )
    assert run(rig.agent.turn("x" * 100)) == "ok"


def test_reported_usage_trim_follows_a_reply_over_budget() -> None:
    """Spec 3.5 / 9: the fake over-reports input (factor 3); after turn 2's reply the
    reported count exceeds the budget and the working history is trimmed (budget reason)."""
    script = fakes.FakeScript(
        default=fakes.FakeBehaviour(
            reply=fakes.ScriptedReply(text="ok"), usage=fakes.UsageReport(input_factor=3.0)
        )
    )
    rig = build_rig(profile=RuntimeProfile(max_context_tokens=40), tools=False, script=script)
    run(rig.agent.turn("a" * 40))  # request 5 + 14 = 19 -> reported 57 > 40, one turn only
    run(rig.agent.turn("b" * 8))  # 5+14+5+6 = 30 <= 40: no proactive; reported 90 > 40
    trims = [e for e in rig.recorder.of("HistoryTrimmed") if isinstance(e, HistoryTrimmed)]
    assert [t.trigger for t in trims] == [TrimTrigger.REPORTED_USAGE]
    assert trims[0].tokens_before == 90
    assert trims[0].reason == REASON_BUDGET


def test_reactive_recovery_trims_to_two_thirds_and_retries() -> None:
    """Spec 10: the fake's real window (60) is smaller than the configured one; each
    overflow trims to floor(2 * estimate / 3) and retries. Turn 3's history is
    5 + (24 + 5) * 2 + 24 = 87 > 60. Recovery 1: target 58; dropping turn 1 (2 rows) leaves
    5 + 29 + 24 = 58; the breadcrumb (50 B -> 17) makes the retry 75, still over.
    Recovery 2: target floor(75 * 2 / 3) = 50; dropping turn 2 leaves 5 + 17 + 24 = 46."""
    rig = build_rig(
        profile=RuntimeProfile(),
        fake_window=60,
        tools=False,
        script=fakes.FakeScript(default=say("ok")),
    )
    run(rig.agent.turn("a" * 80))  # 5 + 24 = 29 <= 60
    run(rig.agent.turn("b" * 80))  # 29 + 5 + 24 = 58 <= 60
    assert run(rig.agent.turn("c" * 80)) == "ok"
    recoveries = [
        e for e in rig.recorder.of("RecoveryAttempted") if isinstance(e, RecoveryAttempted)
    ]
    assert [(r.estimate_tokens, r.target_budget_tokens, r.outcome) for r in recoveries] == [
        (87, 58, "retrying"),
        (75, 50, "retrying"),
    ]
    trims = [e for e in rig.recorder.of("HistoryTrimmed") if isinstance(e, HistoryTrimmed)]
    assert [
        (t.trigger, t.dropped_messages, t.kept_turns, t.tokens_before, t.tokens_after)
        for t in trims
    ] == [
        (TrimTrigger.REACTIVE, 2, 2, 87, 58),
        (TrimTrigger.REACTIVE, 2, 1, 75, 46),
    ]
    finished = [
        e for e in rig.recorder.of("ProviderCallFinished") if isinstance(e, ProviderCallFinished)
    ]
    assert [f.outcome for f in finished][-3:] == ["overflow", "overflow", "ok"]
    assert rig.sent_rows(5) == [("system", "sys"), ("user", BREADCRUMB), ("user", "c" * 80)]


def test_reactive_recovery_uses_up_an_iteration() -> None:
    """Spec 10: the retry after a recovery counts against max_tool_iterations; with one
    iteration the loop goes straight to the tools-free summary request after recovering."""
    rig = build_rig(
        profile=RuntimeProfile(max_tool_iterations=1),
        fake_window=60,
        tools=False,
        script=fakes.FakeScript(default=say("ok")),
    )
    run(rig.agent.turn("a" * 80))
    run(rig.agent.turn("b" * 80))
    with pytest.raises(ContextWindowExceeded):  # the summary request overflows too
        run(rig.agent.turn("c" * 80))
    turn3 = rig.recorder.events[[e.turn_id for e in rig.recorder.events].index("turn-3") :]
    purposes = [e.purpose for e in turn3 if isinstance(e, CapacityChecked)]
    assert purposes == ["tool_loop", "max_iterations_summary"]
    assert [
        getattr(e, "iterations", None) for e in turn3 if type(e).__name__ == "TurnFinished"
    ] == [1]


def test_original_overflow_surfaces_when_only_one_turn_is_left() -> None:
    """Spec 10: nothing can be dropped -> history unchanged, no HistoryTrimmed, the
    provider's error propagates."""
    rig = build_rig(
        profile=RuntimeProfile(),
        fake_window=20,
        tools=False,
        script=fakes.FakeScript(default=say("ok")),
    )
    with pytest.raises(ContextWindowExceeded):
        run(rig.agent.turn("z" * 200))
    assert rig.recorder.of("HistoryTrimmed") == []
    recovery = rig.recorder.of("RecoveryAttempted")[0]
    assert getattr(recovery, "outcome", None) == "only_one_turn_left"
    assert getattr(recovery, "trimmed", None) is False


def test_turn_limit_trims_agent_history_with_exactly_one_breadcrumb() -> None:
    """Spec 3.3 / 11 / 13: after each turn, Agent.history keeps max_history_messages
    turns; one breadcrumb after the system row; the turn-limit reason; once per trim."""
    rig = build_rig(
        profile=RuntimeProfile(max_history_messages=2),
        tools=False,
        script=fakes.FakeScript(default=say("ok")),
    )
    for n in range(5):
        run(rig.agent.turn(f"q{n}"))
    rows = rig.agent.working_history()
    assert [r.content for r in rows] == ["sys", BREADCRUMB, "q3", "ok", "q4", "ok"]
    trims = [e for e in rig.recorder.of("HistoryTrimmed") if isinstance(e, HistoryTrimmed)]
    assert [t.trigger for t in trims] == [TrimTrigger.TURN_LIMIT] * 3
    assert all(t.reason == REASON_TURN_LIMIT and t.kept_turns == 2 for t in trims)
    assert [t.dropped_messages for t in trims] == [2, 2, 2]
    assert rig.agent.history_has_trim_breadcrumb


def test_turn_limit_applies_on_seeding_outside_a_turn() -> None:
    """Spec 9: seed_history trims at once; the event has no turn id."""
    rig = build_rig(profile=RuntimeProfile(max_history_messages=1), tools=False)
    rig.agent.seed_conversation_history(
        [
            ChatMessage("system", "s"),
            ChatMessage("user", "1"),
            ChatMessage("assistant", "a"),
            ChatMessage("user", "2"),
        ]
    )
    trims = rig.recorder.of("HistoryTrimmed")
    assert len(trims) == 1
    assert getattr(trims[0], "turn_id", "x") is None
    assert [r.content for r in rig.agent.working_history()] == ["s", BREADCRUMB, "2"]


def test_turn_limit_also_runs_when_the_turn_fails() -> None:
    """Spec 9: the turn limit applies on the error path too."""
    script = fakes.FakeScript(steps=(say("ok"), fakes.fail("server_error", status=503)))
    rig = build_rig(profile=RuntimeProfile(max_history_messages=1), tools=False, script=script)
    run(rig.agent.turn("first"))
    with pytest.raises(Exception, match="503"):
        run(rig.agent.turn("second"))
    assert [r.content for r in rig.agent.working_history()] == ["sys", BREADCRUMB, "second"]


def test_tool_result_is_truncated_once_when_recorded() -> None:
    """Spec 16: a 200-byte result with max_tool_result_chars 100 is recorded as 66 bytes,
    the marker, 34 bytes; the next request carries exactly that."""
    script = fakes.FakeScript(
        steps=(
            fakes.call_tools(fakes.ScriptedToolCall("echo", {"text": "a" * 200}, "call_1")),
            say("done"),
        )
    )
    rig = build_rig(profile=RuntimeProfile(max_tool_result_chars=100), script=script)
    assert run(rig.agent.turn("go")) == "done"
    role, content = rig.sent_rows(2)[-1]
    assert role == "tool"
    envelope = json.loads(content)
    expected = "a" * 66 + "\n\n[... 100 characters truncated ...]\n\n" + "a" * 34
    assert envelope == {"tool_call_id": "call_1", "content": expected, "attachments": []}


def test_orphan_tool_rows_are_swept_before_each_iteration() -> None:
    """Spec 15: a seeded tool row with no owning assistant never reaches the provider."""
    rig = build_rig(
        profile=RuntimeProfile(), tools=False, script=fakes.FakeScript(default=say("ok"))
    )
    rig.agent.seed_conversation_history(
        [
            ChatMessage("system", "sys"),
            ChatMessage("user", "q"),
            native_tool_result_row("ghost", "lost"),
            ChatMessage("assistant", "a"),
        ]
    )
    run(rig.agent.turn("next"))
    assert [role for role, _ in rig.sent_rows(1)] == ["system", "user", "assistant", "user"]


def test_rate_limit_is_retried_after_its_retry_after() -> None:
    """Decision: a 429 is retried (up to 2 times) after the retry-after wait."""
    script = fakes.FakeScript(steps=(fakes.fail("rate_limit", retry_after=7), say("ok")))
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    rig = build_rig(profile=RuntimeProfile(), tools=False, script=script, sleep=sleep)
    assert run(rig.agent.turn("hi")) == "ok"
    assert waits == [7.0]
    outcomes = [getattr(e, "outcome", None) for e in rig.recorder.of("ProviderCallFinished")]
    assert outcomes == ["rate_limited", "ok"]


def test_max_iterations_summary_request_has_no_tools_and_is_capacity_checked() -> None:
    """Spec 8 / turn/max_iter.rs: after max_tool_iterations, one tools-free request with
    the summary prompt; the capacity check runs for it (purpose max_iterations_summary)."""
    call = fakes.call_tools(fakes.ScriptedToolCall("echo", {"text": "x"}))
    script = fakes.FakeScript(steps=(call, call), default=say("summary"))
    rig = build_rig(profile=RuntimeProfile(max_tool_iterations=2), script=script)
    assert run(rig.agent.turn("loop")) == "summary"
    checks = [e for e in rig.recorder.of("CapacityChecked") if isinstance(e, CapacityChecked)]
    assert [c.purpose for c in checks] == ["tool_loop", "tool_loop", "max_iterations_summary"]
    assert checks[-1].tool_schema_tokens == 0
    last = [e for e in rig.fake.log.entries() if e.call_index is not None][-1]
    assert "tools" not in last.request_body  # type: ignore[operator]
