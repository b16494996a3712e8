"""The Agent's provider-facing rows (spec 1.2): a tool call's ``extra_content`` (e.g. a
provider's thought signature) survives into the native assistant row; rows rendered again
are the rows rendered before."""

from __future__ import annotations

from harness.agent.dispatch import ToolMode, to_provider_messages
from harness.runtime import (
    AssistantToolCalls,
    Chat,
    ChatMessage,
    ConversationMessage,
    RuntimeProfile,
    ToolCall,
    ToolResultMessage,
    ToolResults,
    native_tool_call_row,
)
from tests.agent.support import build_rig


def test_extra_content_of_a_tool_call_is_rendered_into_the_native_row() -> None:
    rig = build_rig(profile=RuntimeProfile(), tools=False)
    call = ToolCall("c1", "echo", "{}", extra_content={"google": {"thought_signature": "x"}})
    rig.agent.history += [Chat(ChatMessage("user", "q")), AssistantToolCalls("t", (call,))]
    rows = rig.agent.working_history()
    assert rows[-1] == native_tool_call_row("t", [call])
    assert '"extra_content":{"google":{"thought_signature":"x"}}' in rows[-1].content


def test_rows_rendered_again_are_the_same_objects_so_their_measures_are_kept() -> None:
    """The working history is rebuilt every turn; rows must not be new objects each time,
    or every cost and tool-call id remembered on them would be measured again."""
    calls = AssistantToolCalls("t", (ToolCall("c1", "echo", "{}"),))
    results = ToolResults((ToolResultMessage("c1", "ok", "echo"),))
    history: list[ConversationMessage] = [Chat(ChatMessage("user", "q")), calls, results]
    first = to_provider_messages(history, ToolMode.NATIVE)
    again = to_provider_messages(list(history), ToolMode.NATIVE)
    assert all(a is b for a, b in zip(first, again, strict=True))
    prompt = to_provider_messages(history, ToolMode.PROMPT)  # the mode is part of the key
    assert [r.role for r in prompt] == ["user", "assistant", "user"]
    assert [r.role for r in first] == ["user", "assistant", "tool"]
