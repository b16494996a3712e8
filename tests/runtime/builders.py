"""Tiny builders so tests read like the spec: ``sys()``, ``user()``, ``asst()``, ``tool()``."""

from harness.runtime import (
    BREADCRUMB,
    Attachment,
    ChatMessage,
    ToolCall,
    native_tool_call_row,
    native_tool_result_row,
    render_prompt_tool_carrier,
)


def sys(content: str = "system prompt") -> ChatMessage:
    return ChatMessage("system", content)


def user(content: str = "hello") -> ChatMessage:
    return ChatMessage("user", content)


def asst(content: str = "ok") -> ChatMessage:
    return ChatMessage("assistant", content)


def crumb() -> ChatMessage:
    return ChatMessage("user", BREADCRUMB)


def call(*ids: str, text: str | None = None) -> ChatMessage:
    return native_tool_call_row(text, [ToolCall(i, "shell", "{}") for i in ids])


def tool(call_id: str, content: str = "result", *images: str) -> ChatMessage:
    return native_tool_result_row(call_id, content, [Attachment("image", t) for t in images])


def carrier(body: str = "output", *images: str) -> ChatMessage:
    return ChatMessage(
        "user", render_prompt_tool_carrier(body, [Attachment("image", t) for t in images])
    )


def raw(role: str, content: str) -> ChatMessage:
    return ChatMessage(role, content)
