"""Writing a turn's rows into both histories: the provider-facing working copy and the
structured rows the Agent appends to ``Agent.history`` when the turn ends."""

from __future__ import annotations

from harness.agent.dispatch import ToolMode, to_provider_messages
from harness.agent.turn_state import TurnState
from harness.providers import ProviderReply
from harness.runtime import (
    AssistantToolCalls,
    Chat,
    ChatMessage,
    ConversationMessage,
    ToolResultMessage,
    ToolResults,
)


def record_final_answer(state: TurnState, text: str | None) -> None:
    row = ChatMessage("assistant", text or "")
    state.working.append(row)
    state.recorded.append(Chat(row))
    state.final_text = text


def record_user_prompt(state: TurnState, prompt: ChatMessage) -> None:
    """A runtime-inserted user row (it opens a turn for trimming, spec 17.14)."""
    state.working.append(prompt)
    state.recorded.append(Chat(prompt))


def record_tool_round(
    state: TurnState,
    reply: ProviderReply,
    results: tuple[ToolResultMessage, ...],
    tool_mode: ToolMode,
) -> None:
    """Append a reply's tool calls and their results to both histories."""
    round_rows: list[ConversationMessage] = [
        AssistantToolCalls(reply.text, reply.tool_calls),
        ToolResults(results),
    ]
    state.recorded.extend(round_rows)
    state.working.extend(to_provider_messages(round_rows, tool_mode))
