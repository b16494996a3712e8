"""Client frames that imitate the reference's wire shapes (spec 7, 13).

Field names are the reference's; keys are written in the order the spec lists them.
Unknown capacity is never put on the wire: ``model_context_window`` is omitted unless the
window was configured for the served route.
"""

from __future__ import annotations

from harness.events import HistoryTrimmed
from harness.runtime import ResolvedContextLimits
from harness.runtime.messages import to_json


def ws_history_trimmed(event: HistoryTrimmed) -> str:
    return to_json(
        {
            "type": "history_trimmed",
            "dropped_messages": event.dropped_messages,
            "kept_turns": event.kept_turns,
            "reason": event.reason,
        }
    )


def rpc_history_trimmed(event: HistoryTrimmed, *, include_dropped_turns: bool = False) -> str:
    """RPC ``session/update``; P9368 adds ``dropped_turns`` (opt in)."""
    update: dict[str, object] = {
        "type": "history_trimmed",
        "session_id": event.session_id,
        "dropped_messages": event.dropped_messages,
        "kept_turns": event.kept_turns,
        "reason": event.reason,
    }
    if include_dropped_turns:
        update["dropped_turns"] = event.dropped_turns
    return to_json({"jsonrpc": "2.0", "method": "session/update", "params": update})


def sse_observer_history_trimmed(event: HistoryTrimmed, timestamp: str) -> str:
    """The gateway's observer broadcast: optional context only when present."""
    frame: dict[str, object] = {
        "type": "history_trimmed",
        "source": "observability",
        "dropped_messages": event.dropped_messages,
        "kept_turns": event.kept_turns,
        "reason": event.reason,
        "timestamp": timestamp,
    }
    for key, value in (
        ("channel", event.channel),
        ("agent_alias", event.agent_alias),
        ("turn_id", event.turn_id),
    ):
        if value is not None:
            frame[key] = value
    return f"data: {to_json(frame)}\n\n"


def _limits_fields(limits: ResolvedContextLimits) -> dict[str, object]:
    fields: dict[str, object] = {"max_context_tokens": limits.context_token_budget}
    window = limits.configured_model_context_window
    if window is not None:
        fields["model_context_window"] = window
    return fields


def ws_done(limits: ResolvedContextLimits, *, full_response: str) -> str:
    return to_json({"type": "done", "full_response": full_response, **_limits_fields(limits)})


def rpc_context_usage(session_id: str, used_tokens: int, limits: ResolvedContextLimits) -> str:
    params = {"session_id": session_id, "used_tokens": used_tokens, **_limits_fields(limits)}
    return to_json({"jsonrpc": "2.0", "method": "context_usage", "params": params})
