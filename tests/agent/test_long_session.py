"""Issue 4's "done when": a 100-turn Agent session against a fake with a small window.

It trims by budget and by turn limit, recovers from overflows the runtime did not predict
(the fake counts with its own tokenizer and has a smaller real window than configured),
refuses an unsendable request before dispatch, and each of those moments is an event
whose numbers are checked against what the fake actually received.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

import fakes
from harness.events import (
    CapacityChecked,
    HistoryTrimmed,
    ProviderCallStarted,
    RecoveryAttempted,
    TrimTrigger,
    TurnFinished,
)
from harness.runtime import (
    REASON_BUDGET,
    REASON_TURN_LIMIT,
    ChatMessage,
    ContextCapacityExceeded,
    RuntimeProfile,
    estimate_history_tokens,
    estimate_tool_schema_tokens,
)
from tests.agent.support import Rig, build_rig

Session = tuple[Rig, list[list[ChatMessage]], ContextCapacityExceeded]
"""The long session's rig, the rows of every request its fake decoded, the final error."""

PROFILE = RuntimeProfile(max_context_tokens=1_500, max_history_messages=12)


def _script() -> fakes.FakeScript:
    steps = []
    for n in range(100):
        if n % 2 == 0:
            call = fakes.ScriptedToolCall("echo", {"text": f"result {n} " + "r" * 300})
            steps.append(fakes.call_tools(call))
        steps.append(fakes.say(f"answer {n} " + "a" * 120))
    return fakes.FakeScript(tuple(steps), default=fakes.say("fine"))


@pytest.fixture(scope="module")
def session() -> Session:
    rig = build_rig(
        profile=PROFILE,
        fake_window=1_400,  # the real window, smaller than the configured 2,400
        configured_window=2_400,
        counter="provider",  # the fake's own tokenizer disagrees with the estimate
        script=_script(),
    )
    requests: list[list[ChatMessage]] = []

    async def drive() -> ContextCapacityExceeded:
        for n in range(100):
            await rig.agent.turn(f"turn {n}: " + "q" * (40 + 7 * (n % 13)))
        try:
            await rig.agent.turn("x" * 12_000)  # cannot fit the 2,400-token window
        except ContextCapacityExceeded as error:
            return error
        raise AssertionError("the oversized request was sent")

    error = asyncio.run(drive())
    for exchange in rig.fake.log.entries():
        if exchange.call_index is not None:
            requests.append([ChatMessage(r.role, r.content) for r in exchange.rows])
    return rig, requests, error


def test_every_trigger_fires_and_each_trim_is_one_event(session: Session) -> None:
    rig = session[0]
    trims = [e for e in rig.recorder.events if isinstance(e, HistoryTrimmed)]
    by_trigger = Counter(t.trigger for t in trims)
    assert by_trigger[TrimTrigger.PROACTIVE] > 0
    assert by_trigger[TrimTrigger.TURN_LIMIT] > 0
    assert by_trigger[TrimTrigger.REACTIVE] > 0
    for trim in trims:
        expected_reason = (
            REASON_TURN_LIMIT if trim.trigger is TrimTrigger.TURN_LIMIT else REASON_BUDGET
        )
        assert trim.reason == expected_reason
        assert trim.dropped_turns >= 1
        assert trim.dropped_messages >= trim.dropped_turns
        if trim.trigger is not TrimTrigger.TURN_LIMIT:
            assert trim.tokens_after is not None
            assert trim.tokens_before is not None
            assert trim.tokens_after < trim.tokens_before
            assert trim.provider == "openai.main"


def test_every_sent_estimate_is_exactly_what_the_provider_received(session: Session) -> None:
    """CapacityChecked.message_tokens equals the runtime's estimate of the rows the fake
    decoded from the wire, call by call; the schema operand is the tool estimate."""
    rig, requests = session[0], session[1]
    checks = [e for e in rig.recorder.events if isinstance(e, CapacityChecked) and e.fits]
    assert len(checks) == len(requests)
    schema = estimate_tool_schema_tokens(rig.agent.config.tools.specs)
    for check, rows in zip(checks, requests, strict=True):
        assert check.message_tokens == estimate_history_tokens(rows)
        assert check.tool_schema_tokens in (schema, 0)
        assert check.estimate_tokens <= check.model_context_window == 2_400


def test_recoveries_target_two_thirds_of_the_overflowed_estimate(session: Session) -> None:
    rig = session[0]
    events = rig.recorder.events
    recoveries = [(i, e) for i, e in enumerate(events) if isinstance(e, RecoveryAttempted)]
    assert recoveries
    for index, recovery in recoveries:
        started = [e for e in events[:index] if isinstance(e, ProviderCallStarted)][-1]
        checked = [e for e in events[:index] if isinstance(e, CapacityChecked)][-1]
        assert started.call_id == recovery.call_id
        assert recovery.estimate_tokens == checked.message_tokens
        assert recovery.target_budget_tokens == recovery.estimate_tokens * 2 // 3


def test_the_unsendable_request_is_refused_before_dispatch(session: Session) -> None:
    rig, requests, error = session
    refusals = [e for e in rig.recorder.events if isinstance(e, CapacityChecked) and not e.fits]
    assert len(refusals) == 1
    refusal = refusals[0]
    assert (error.message_tokens, error.tool_schema_tokens, error.model_context_window) == (
        refusal.message_tokens,
        refusal.tool_schema_tokens,
        2_400,
    )
    assert all("x" * 12_000 not in row.content for rows in requests for row in rows)
    last = rig.recorder.events[-1]
    assert isinstance(last, TurnFinished)
    assert (last.outcome, last.error_type) == ("error", "ContextCapacityExceeded")
