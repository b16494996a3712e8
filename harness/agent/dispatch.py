"""Provider-facing rows from the structured history (spec 1.2), native or prompt mode.

The native dispatcher renders ``AssistantToolCalls`` as one assistant JSON row and
``ToolResults`` as one ``tool`` row per result. The prompt-mode ("XML") dispatcher renders
an assistant text row and one ``[Tool results]`` user carrier per round.
"""

from __future__ import annotations

import functools
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


RENDER_CACHE_MESSAGES = 8192
"""Structured messages whose rendered rows are kept, process-wide (least recently used
forgotten first)."""


def to_provider_messages(
    history: Sequence[ConversationMessage], mode: ToolMode
) -> list[ChatMessage]:
    rows: list[ChatMessage] = []
    for message in history:
        if isinstance(message, Chat):
            rows.append(message.message)
            continue
        try:
            rows.extend(rendered_rows(message, mode))
        except TypeError:  # an unhashable ``extra_content``: rendered each time
            rows.extend(_render(message, mode))
    return rows


@functools.lru_cache(maxsize=RENDER_CACHE_MESSAGES)
def rendered_rows(
    message: AssistantToolCalls | ToolResults, mode: ToolMode
) -> tuple[ChatMessage, ...]:
    """The rows of ``message``, rendered once: the working history is rebuilt from
    ``Agent.history`` every turn, and a row rendered again is a new object, so everything
    the runtime remembers on a row (token costs, tool-call ids) would be measured again.
    Rows are immutable and equal messages render equal rows, so sharing them is safe."""
    return _render(message, mode)


def _render(message: AssistantToolCalls | ToolResults, mode: ToolMode) -> tuple[ChatMessage, ...]:
    match message:
        case AssistantToolCalls() if mode is ToolMode.NATIVE:
            return (
                native_tool_call_row(message.text, message.tool_calls, message.reasoning_content),
            )
        case AssistantToolCalls():
            return (ChatMessage("assistant", _prompt_mode_call_text(message)),)
        case ToolResults(results=results) if mode is ToolMode.NATIVE:
            return tuple(
                native_tool_result_row(r.tool_call_id, r.content, r.attachments) for r in results
            )
        case ToolResults(results=results):
            attachments = [a for r in results for a in r.attachments]
            return (prompt_tool_results_row(results, attachments),)
