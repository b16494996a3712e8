"""Client frames imitate the reference's wire shapes (spec 7, 13)."""

from __future__ import annotations

import json

from harness.agent.frames import (
    rpc_context_usage,
    rpc_history_trimmed,
    sse_observer_history_trimmed,
    ws_done,
    ws_history_trimmed,
)
from harness.events import HistoryTrimmed, TrimTrigger
from harness.runtime import (
    REASON_TURN_LIMIT,
    ModelContextWindow,
    RuntimeProfile,
    WindowSource,
    resolve_context_limits,
)

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
    frame = sse_observer_history_trimmed(EVENT, "2026-11-30T00:00:00Z")
    assert frame.startswith("data: ")
    assert frame.endswith("\n\n")
    body = json.loads(frame[len("data: ") :])
    assert body["source"] == "observability"
    assert body["agent_alias"] == "helper"
    assert body["turn_id"] == "t1"
    assert "channel" not in body


def test_done_frame_omits_unknown_capacity() -> None:
    """Spec 7: a compatibility-fallback window never reaches the wire."""
    unknown = resolve_context_limits(
        RuntimeProfile(), ModelContextWindow(32_000, WindowSource.COMPATIBILITY_FALLBACK)
    )
    known = resolve_context_limits(
        RuntimeProfile(), ModelContextWindow(8_000, WindowSource.CONFIGURED)
    )
    assert json.loads(ws_done(unknown, full_response="ok")) == {
        "type": "done",
        "full_response": "ok",
        "max_context_tokens": 32_000,
    }
    assert json.loads(ws_done(known, full_response="ok"))["model_context_window"] == 8_000
    usage = json.loads(rpc_context_usage("s1", 120, unknown))
    assert "model_context_window" not in usage["params"]
    assert usage["params"]["max_context_tokens"] == 32_000
