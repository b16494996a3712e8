"""The Agent's provider-facing rows (spec 1.2): a tool call's ``extra_content`` (e.g. a
provider's thought signature) survives into the native assistant row."""

from __future__ import annotations

from harness.runtime import (
    AssistantToolCalls,
    Chat,
    ChatMessage,
    RuntimeProfile,
    ToolCall,
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
