"""Client frames imitate the reference's wire shapes (spec 7, 13); tests named after the
reference's own tests where one exists (gateway ``ws.rs``, runtime ``rpc/dispatch.rs``)."""

from __future__ import annotations

import asyncio
import json

import pytest

import fakes
from harness.agent.routes import Route
from harness.events import HistoryTrimmed, TrimTrigger
from harness.runtime import (
    REASON_TURN_LIMIT,
    BudgetRule,
    ContextCapacityExceeded,
    ModelContextWindow,
    ResolvedContextLimits,
    RuntimeProfile,
    WindowSource,
    resolve_context_limits,
)
from tests.agent.frames import (
    done_frame_context_limits,
    observer_context,
    rpc_context_usage,
    rpc_history_trimmed,
    sse_observer_history_trimmed,
    ws_done,
    ws_history_trimmed,
)
from tests.agent.support import build_rig

EVENT = HistoryTrimmed(
    session_id="s1",
    turn_id="t1",
    dropped_messages=4,
    kept_turns=2,
    reason=REASON_TURN_LIMIT,
    dropped_turns=2,
    trigger=TrimTrigger.TURN_LIMIT,
    tokens_before=None,
    tokens_after=None,
    budget_tokens=None,
    provider=None,
    model=None,
    agent_alias="helper",
)


def _limits(window: int, budget: int, source: WindowSource) -> ResolvedContextLimits:
    return ResolvedContextLimits(window, source, budget, BudgetRule.ABSOLUTE)


def _sse_body(frame: str) -> dict[str, object]:
    assert frame.startswith("data: ")
    assert frame.endswith("\n\n")
    body = json.loads(frame[len("data: ") :])
    assert isinstance(body, dict)
    return body


def test_ws_history_trimmed_frame_has_the_reference_fields_in_order() -> None:
    assert ws_history_trimmed(EVENT) == (
        '{"type":"history_trimmed","dropped_messages":4,"kept_turns":2,'
        '"reason":"history turn limit exceeded"}'
    )


def test_rpc_session_update_carries_session_id_and_optional_dropped_turns() -> None:
    plain = json.loads(rpc_history_trimmed(EVENT))
    assert plain["method"] == "session/update"
    assert plain["params"] == {
        "type": "history_trimmed",
        "session_id": "s1",
        "dropped_messages": 4,
        "kept_turns": 2,
        "reason": REASON_TURN_LIMIT,
    }
    assert (
        json.loads(rpc_history_trimmed(EVENT, include_dropped_turns=True))["params"][
            "dropped_turns"
        ]
        == 2
    )


def test_sse_observer_frame_adds_context_only_when_present() -> None:
    body = _sse_body(sse_observer_history_trimmed(EVENT, "2026-11-30T00:00:00Z"))
    assert body["source"] == "observability"
    assert body["agent_alias"] == "helper"
    assert body["turn_id"] == "t1"
    assert "channel" not in body


def _trims_with_alias_and_channel(
    profile: RuntimeProfile, fake_window: int
) -> list[HistoryTrimmed]:
    rig = build_rig(
        profile=profile,
        fake_window=fake_window,
        tools=False,
        script=fakes.FakeScript(default=fakes.say("ok")),
    )
    rig.agent.announcer.agent_alias, rig.agent.announcer.channel = "helper", "telegram"
    for text in ("a" * 80, "b" * 80, "c" * 80):
        asyncio.run(rig.agent.turn(text))
    return [e for e in rig.recorder.events if isinstance(e, HistoryTrimmed)]


def test_tool_loop_budget_and_recovery_trims_leave_observer_context_empty() -> None:
    """Spec 13 / 10: the reference records tool-loop trims with channel, agent alias and
    turn id all ``None``; only the Agent's turn-limit trim fills them. Driven through real
    agents that have an alias and a channel (one over a small budget and turn limit, one
    whose provider window forces reactive recovery), so filling them on any tool-loop trim,
    or dropping them from the turn-limit trim, fails here."""
    trims = _trims_with_alias_and_channel(
        RuntimeProfile(max_context_tokens=40, max_history_messages=1), 100_000
    ) + _trims_with_alias_and_channel(RuntimeProfile(), 60)
    triggers = {t.trigger for t in trims}
    assert triggers == {TrimTrigger.PROACTIVE, TrimTrigger.TURN_LIMIT, TrimTrigger.REACTIVE}
    for trim in trims:
        body = _sse_body(sse_observer_history_trimmed(trim, "t"))
        context = {key: body.get(key) for key in ("channel", "agent_alias", "turn_id")}
        assert trim.turn_id is not None  # ours keeps it on every trim, for spans and metrics
        if trim.trigger is TrimTrigger.TURN_LIMIT:
            expected = {"channel": "telegram", "agent_alias": "helper", "turn_id": trim.turn_id}
            assert context == expected
        else:
            assert context == {"channel": None, "agent_alias": None, "turn_id": None}
            assert (trim.channel, trim.agent_alias) == (None, None)  # decisions: agent loop


def test_every_trigger_but_the_turn_limit_records_no_observer_context() -> None:
    for trigger in TrimTrigger:
        event = HistoryTrimmed(
            session_id="s",
            turn_id="t",
            dropped_messages=1,
            kept_turns=1,
            reason="r",
            dropped_turns=1,
            trigger=trigger,
            tokens_before=None,
            tokens_after=None,
            budget_tokens=None,
            provider=None,
            model=None,
            channel="c",
            agent_alias="a",
        )
        context = observer_context(event)
        filled = (context.channel, context.agent_alias, context.turn_id) == ("c", "a", "t")
        assert filled is (trigger is TrimTrigger.TURN_LIMIT)


def test_usage_event_emits_context_usage_notification() -> None:
    """rpc/dispatch.rs: a ``session/update`` whose params are typed ``context_usage``,
    with the reference's field names (``input_tokens``, not a name of ours)."""
    limits = _limits(200_000, 180_000, WindowSource.CONFIGURED)
    frame = rpc_context_usage("s1", 100, limits)
    assert frame == (
        '{"jsonrpc":"2.0","method":"session/update","params":{"type":"context_usage",'
        '"session_id":"s1","input_tokens":100,"max_context_tokens":180000,'
        '"model_context_window":200000}}'
    )


def test_usage_event_without_input_tokens_emits_null() -> None:
    """rpc/dispatch.rs: an absent count is omitted, never synthesised."""
    params = json.loads(rpc_context_usage("s1", None, None))["params"]
    assert params == {"type": "context_usage", "session_id": "s1"}


def test_context_usage_omits_unknown_compatibility_capacity() -> None:
    unknown = resolve_context_limits(
        RuntimeProfile(), ModelContextWindow(32_000, WindowSource.COMPATIBILITY_FALLBACK)
    )
    params = json.loads(rpc_context_usage("s1", 120, unknown))["params"]
    assert "model_context_window" not in params
    assert params["max_context_tokens"] == 32_000


def test_done_context_limits_omit_unknown_compatibility_capacity() -> None:
    """ws.rs: a compatibility-fallback window never reaches the wire."""
    unknown = resolve_context_limits(
        RuntimeProfile(), ModelContextWindow(32_000, WindowSource.COMPATIBILITY_FALLBACK)
    )
    known = resolve_context_limits(
        RuntimeProfile(), ModelContextWindow(8_000, WindowSource.CONFIGURED)
    )
    assert json.loads(ws_done(full_response="ok", final_limits=unknown)) == {
        "type": "done",
        "full_response": "ok",
        "max_context_tokens": 32_000,
    }
    done = json.loads(ws_done(full_response="ok", final_limits=known))
    assert done["model_context_window"] == 8_000


def test_done_frame_prefers_final_served_route_over_stale_usage() -> None:
    """ws.rs (P9535): an earlier usage-bearing text route left 180k/200k behind; the final
    no-usage vision call's route is what the frame reports."""
    final_vision = _limits(8_000, 7_200, WindowSource.CONFIGURED)
    assert done_frame_context_limits(final_vision, 180_000, 200_000, None) == (7_200, 8_000)
    done = json.loads(
        ws_done(
            full_response="ok",
            final_limits=final_vision,
            usage_budget=180_000,
            usage_window=200_000,
        )
    )
    assert (done["max_context_tokens"], done["model_context_window"]) == (7_200, 8_000)


def test_done_frame_falls_back_when_no_call_served() -> None:
    """ws.rs (P9535): no served call -> usage values, then the fallback route."""
    fallback = _limits(200_000, 180_000, WindowSource.CONFIGURED)
    assert done_frame_context_limits(None, None, None, fallback) == (180_000, 200_000)
    assert done_frame_context_limits(None, 7_200, 8_000, fallback) == (7_200, 8_000)
    assert done_frame_context_limits(None, None, None, None) == (0, None)


def test_done_context_limits_fall_back_to_agent_active_route_without_usage() -> None:
    active = _limits(8_000, 0, WindowSource.CONFIGURED)
    assert done_frame_context_limits(None, None, None, active) == (0, 8_000)


def test_agent_reports_the_limits_of_the_route_that_served_the_last_call() -> None:
    """The Agent keeps the final served route's limits for the ``done`` frame: a turn
    served on the hinted route reports that route's, the next turn its own, and a turn
    refused before any call reports none."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=1_000),
        configured_window=100_000,
        tools=False,
        script=fakes.FakeScript(default=fakes.say("ok")),
        model_routes={"small": Route("openai.alt")},
        extra=[("openai.alt", "gpt-alt", 100_000, 5_000)],
    )
    asyncio.run(rig.agent.turn("hi", model="hint:small"))
    small = rig.agent.final_context_limits
    assert small is not None
    assert (small.model_context_window, small.context_token_budget) == (5_000, 1_000)
    asyncio.run(rig.agent.turn("hi"))
    main = rig.agent.final_context_limits
    assert main is not None
    assert main.model_context_window == 100_000
    rig.agent.update_profile(RuntimeProfile(max_context_tokens=0))
    rig.agent.switch_model("openai.alt", None)
    with pytest.raises(ContextCapacityExceeded):  # over the 5,000 window: refused
        asyncio.run(rig.agent.turn("x" * 40_000))
    assert rig.agent.final_context_limits is None
