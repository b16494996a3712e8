"""Provider-facing rows from the structured history (spec 1.2), native or prompt mode.

The native dispatcher renders ``AssistantToolCalls`` as one assistant JSON row and
``ToolResults`` as one ``tool`` row per result. The prompt-mode ("XML") dispatcher renders
an assistant text row and one ``[Tool results]`` user carrier per round.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from harness.runtime import (
    AssistantToolCalls,
    Chat,
    ChatMessage,
    ConversationMessage,
    ToolResults,
    native_tool_call_row,
    native_tool_result_row,
    prompt_tool_results_row,
)


class ToolMode(StrEnum):
    NATIVE = "native"
    PROMPT = "prompt"


def _prompt_mode_call_text(message: AssistantToolCalls) -> str:
    calls = "\n".join(
        f'<tool_call name="{call.name}">{call.arguments}</tool_call>' for call in message.tool_calls
    )
    return f"{message.text}\n{calls}" if message.text else calls


def to_provider_messages(
    history: Sequence[ConversationMessage], mode: ToolMode
) -> list[ChatMessage]:
    rows: list[ChatMessage] = []
    for message in history:
        match message:
            case Chat(message=row):
                rows.append(row)
            case AssistantToolCalls() if mode is ToolMode.NATIVE:
                rows.append(
                    native_tool_call_row(
                        message.text, message.tool_calls, message.reasoning_content
                    )
                )
            case AssistantToolCalls():
                rows.append(ChatMessage("assistant", _prompt_mode_call_text(message)))
            case ToolResults(results=results) if mode is ToolMode.NATIVE:
                rows.extend(
                    native_tool_result_row(r.tool_call_id, r.content, r.attachments)
                    for r in results
                )
            case ToolResults(results=results):
                attachments = [a for r in results for a in r.attachments]
                rows.append(prompt_tool_results_row(results, attachments))
    return rows
