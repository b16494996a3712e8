"""Writing a turn's rows into both histories: the provider-facing working copy and the
structured rows the Agent appends to ``Agent.history`` when the turn ends."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from harness.agent.announce import Announcer
from harness.agent.config import LoopConfig
from harness.agent.dispatch import to_provider_messages
from harness.providers import ProviderReply
from harness.runtime import (
    AssistantToolCalls,
    Attachment,
    Chat,
    ChatMessage,
    ConversationMessage,
    ToolCall,
    ToolResultMessage,
    ToolResults,
    truncate_tool_result,
)

if TYPE_CHECKING:
    from harness.agent.loop import TurnState


def record_final_answer(state: TurnState, text: str | None) -> None:
    row = ChatMessage("assistant", text or "")
    state.working.append(row)
    state.recorded.append(Chat(row))
    state.final_text = text


def record_user_prompt(state: TurnState, prompt: ChatMessage) -> None:
    """A runtime-inserted user row (it opens a turn for trimming, spec 17.14)."""
    state.working.append(prompt)
    state.recorded.append(Chat(prompt))


def _arguments(call: ToolCall) -> Mapping[str, object]:
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


async def _run_tool(call: ToolCall, config: LoopConfig, announcer: Announcer) -> ToolResultMessage:
    announcer.tool_call_started(call.id, call.name)
    started = announcer.clock()
    tool = config.tools.tools.get(call.name)
    error_type: str | None = None
    attachments: tuple[Attachment, ...] = ()
    if tool is None:
        text, error_type = f"Unknown tool: {call.name}", "unknown_tool"
    else:
        try:
            output = await tool.run(_arguments(call))
            text, attachments = output.text, output.attachments
        except Exception as exc:  # a failing tool is reported to the model, as a result
            text, error_type = f"Error: {exc}", type(exc).__name__
    limit = config.profile.max_tool_result_chars
    recorded = truncate_tool_result(text, limit)  # once, when recorded; never later
    announcer.tool_call_finished(
        call.id,
        call.name,
        result_bytes=len(recorded.encode("utf-8", "surrogatepass")),
        truncated=recorded != text,
        error_type=error_type,
        duration_s=announcer.clock() - started,
    )
    return ToolResultMessage(call.id, recorded, call.name, attachments)


async def record_tool_round(
    state: TurnState, reply: ProviderReply, config: LoopConfig, announcer: Announcer
) -> None:
    """Run the reply's tool calls in order and append the round to both histories."""
    results = [await _run_tool(call, config, announcer) for call in reply.tool_calls]
    round_rows: list[ConversationMessage] = [
        AssistantToolCalls(reply.text, reply.tool_calls),
        ToolResults(tuple(results)),
    ]
    state.recorded.extend(round_rows)
    state.working.extend(to_provider_messages(round_rows, config.tool_mode))
