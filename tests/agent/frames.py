"""Client frames that imitate the reference's wire shapes (spec 7, 13): a test helper (the
harness emits events, never frames; these pin what a client of the reference reads).

Field names are the reference's; keys are written in the order the reference serialises
them. Unknown capacity is never put on the wire: ``model_context_window`` is omitted
unless the window was configured for the served route.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.events import HistoryTrimmed, TrimTrigger
from harness.runtime import ResolvedContextLimits
from harness.runtime.messages import to_json

JSONRPC_VERSION = "2.0"
SESSION_UPDATE = "session/update"
"""The one notification method every RPC session event uses (``notification::SESSION_UPDATE``)."""


def ws_history_trimmed(event: HistoryTrimmed) -> str:
    return to_json(
        {
            "type": "history_trimmed",
            "dropped_messages": event.dropped_messages,
            "kept_turns": event.kept_turns,
            "reason": event.reason,
        }
    )


def _rpc_notification(params: dict[str, object]) -> str:
    return to_json({"jsonrpc": JSONRPC_VERSION, "method": SESSION_UPDATE, "params": params})


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
    return _rpc_notification(update)


@dataclass(frozen=True, slots=True)
class ObserverContext:
    """The optional context of the reference's ``ObserverEvent::HistoryTrimmed``."""

    channel: str | None
    agent_alias: str | None
    turn_id: str | None


def observer_context(event: HistoryTrimmed) -> ObserverContext:
    """What the reference's observer record carries for this trim (spec 13).

    Only the Agent's turn-limit trim fills channel, agent alias and turn id; the tool
    loop's budget and recovery trims record all three as ``None``. Our event keeps the
    turn id on every trim (it ties events to spans), so frames that imitate the reference
    must read their context through here, never off the event directly.
    """
    if event.trigger is not TrimTrigger.TURN_LIMIT:
        return ObserverContext(None, None, None)
    return ObserverContext(event.channel, event.agent_alias, event.turn_id)


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
    context = observer_context(event)
    for key, value in (
        ("channel", context.channel),
        ("agent_alias", context.agent_alias),
        ("turn_id", context.turn_id),
    ):
        if value is not None:
            frame[key] = value
    return f"data: {to_json(frame)}\n\n"


def _window(limits: ResolvedContextLimits) -> int | None:
    return limits.configured_model_context_window


def done_frame_context_limits(
    final_limits: ResolvedContextLimits | None,
    usage_budget: int | None,
    usage_window: int | None,
    fallback_limits: ResolvedContextLimits | None,
) -> tuple[int, int | None]:
    """The ``done`` frame's ``(max_context_tokens, model_context_window)`` (ws.rs, P9535).

    The route that served the turn's last call is authoritative: a usage event can be
    stale (an earlier route reported usage, the last call, e.g. a vision reply, did not).
    Only when no call was served do the last usage values apply, then ``fallback_limits``
    (the agent's active route), then a zero budget with unknown capacity.
    """
    if final_limits is not None:
        return final_limits.context_token_budget, _window(final_limits)
    fallback_budget = fallback_limits.context_token_budget if fallback_limits else 0
    fallback_window = _window(fallback_limits) if fallback_limits else None
    budget = usage_budget if usage_budget is not None else fallback_budget
    return budget, usage_window if usage_window is not None else fallback_window


def ws_done(
    *,
    full_response: str,
    final_limits: ResolvedContextLimits | None,
    usage_budget: int | None = None,
    usage_window: int | None = None,
    fallback_limits: ResolvedContextLimits | None = None,
) -> str:
    """The gateway's terminal frame, limits chosen by ``done_frame_context_limits``."""
    budget, window = done_frame_context_limits(
        final_limits, usage_budget, usage_window, fallback_limits
    )
    frame: dict[str, object] = {
        "type": "done",
        "full_response": full_response,
        "max_context_tokens": budget,
    }
    if window is not None:
        frame["model_context_window"] = window
    return to_json(frame)


def rpc_context_usage(
    session_id: str, input_tokens: int | None, limits: ResolvedContextLimits | None
) -> str:
    """``SessionUpdateEvent::ContextUsage``: a ``session/update`` notification whose
    ``type`` is ``context_usage``; each of ``input_tokens`` (the call's reported prompt
    size, cached tokens already inside it), ``max_context_tokens`` (the served route's
    budget) and ``model_context_window`` (its configured window) is left out when
    unknown, as the reference's ``skip_serializing_if`` does."""
    params: dict[str, object] = {"type": "context_usage", "session_id": session_id}
    if input_tokens is not None:
        params["input_tokens"] = input_tokens
    if limits is not None:
        params["max_context_tokens"] = limits.context_token_budget
        window = _window(limits)
        if window is not None:
            params["model_context_window"] = window
    return _rpc_notification(params)
