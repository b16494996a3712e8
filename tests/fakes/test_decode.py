"""Wire requests turned back into the runtime's provider-facing rows (spec §1.1), checked
against the runtime's own builders."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakes import Row
from fakes.catalogue import WireName
from fakes.wire import WIRES
from fakes.wire.base import RequestContext
from harness.runtime import ChatMessage, ToolCall, native_tool_call_row, native_tool_result_row

CALL_A = ToolCall("call_a", "read_file", '{"path":"ça.txt"}')
CALL_B = ToolCall("call_b", "list_dir", '{"path":"."}')
EXPECTED = [
    ChatMessage("system", "You are careful."),
    ChatMessage("user", "read ça"),
    native_tool_call_row("Reading both.", [CALL_A, CALL_B]),
    native_tool_result_row("call_a", "contents ✓"),
    native_tool_result_row("call_b", "a.txt\nb.txt"),
    ChatMessage("assistant", "Done."),
]


def _openai_chat() -> dict[str, Any]:
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in (CALL_A, CALL_B)
    ]
    return {
        "model": "m",
        "messages": [
            {"role": "system", "content": "You are careful."},
            {"role": "user", "content": "read ça"},
            {"role": "assistant", "content": "Reading both.", "tool_calls": calls},
            {"role": "tool", "tool_call_id": "call_a", "content": "contents ✓"},
            {"role": "tool", "tool_call_id": "call_b", "content": "a.txt\nb.txt"},
            {"role": "assistant", "content": "Done."},
        ],
    }


def _responses() -> dict[str, Any]:
    return {
        "model": "m",
        "instructions": "You are careful.",
        "input": [
            {"role": "user", "content": "read ça"},
            {"role": "assistant", "content": [{"type": "output_text", "text": "Reading both."}]},
            *(
                {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
                for c in (CALL_A, CALL_B)
            ),
            {"type": "function_call_output", "call_id": "call_a", "output": "contents ✓"},
            {"type": "function_call_output", "call_id": "call_b", "output": "a.txt\nb.txt"},
            {"role": "assistant", "content": "Done."},
        ],
    }


def _anthropic() -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 10,
        "system": "You are careful.",
        "messages": [
            {"role": "user", "content": "read ça"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Reading both."},
                    {
                        "type": "tool_use",
                        "id": "call_a",
                        "name": "read_file",
                        "input": {"path": "ça.txt"},
                    },
                    {
                        "type": "tool_use",
                        "id": "call_b",
                        "name": "list_dir",
                        "input": {"path": "."},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_a", "content": "contents ✓"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "call_b",
                        "content": [{"type": "text", "text": "a.txt\nb.txt"}],
                    },
                ],
            },
            {"role": "assistant", "content": "Done."},
        ],
    }


def _gemini() -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": "You are careful."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "read ça"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Reading both."},
                    {
                        "functionCall": {
                            "id": "call_a",
                            "name": "read_file",
                            "args": {"path": "ça.txt"},
                        }
                    },
                    {"functionCall": {"id": "call_b", "name": "list_dir", "args": {"path": "."}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_a",
                            "name": "read_file",
                            "response": {"content": "contents ✓"},
                        }
                    },
                    {
                        "functionResponse": {
                            "id": "call_b",
                            "name": "list_dir",
                            "response": {"output": "a.txt\nb.txt"},
                        }
                    },
                ],
            },
            {"role": "model", "parts": [{"text": "Done."}]},
        ],
    }


def _bedrock() -> dict[str, Any]:
    return {
        "system": [{"text": "You are careful."}],
        "messages": [
            {"role": "user", "content": [{"text": "read ça"}]},
            {
                "role": "assistant",
                "content": [
                    {"text": "Reading both."},
                    {
                        "toolUse": {
                            "toolUseId": "call_a",
                            "name": "read_file",
                            "input": {"path": "ça.txt"},
                        }
                    },
                    {
                        "toolUse": {
                            "toolUseId": "call_b",
                            "name": "list_dir",
                            "input": {"path": "."},
                        }
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"toolResult": {"toolUseId": "call_a", "content": [{"text": "contents ✓"}]}},
                    {"toolResult": {"toolUseId": "call_b", "content": [{"text": "a.txt\nb.txt"}]}},
                ],
            },
            {"role": "assistant", "content": [{"text": "Done."}]},
        ],
    }


def _ollama() -> dict[str, Any]:
    body = _openai_chat()
    for message in body["messages"]:
        for call in message.get("tool_calls", []):
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    return body


CASES: list[tuple[WireName, Any]] = [
    ("openai_chat", _openai_chat),
    ("openai_responses", _responses),
    ("anthropic", _anthropic),
    ("gemini", _gemini),
    ("bedrock", _bedrock),
    ("ollama", _ollama),
    ("cohere", _openai_chat),
]


@pytest.mark.parametrize(("wire", "build"), CASES, ids=[c[0] for c in CASES])
def test_wire_request_decodes_to_the_runtimes_rows(wire: WireName, build: Any) -> None:
    request = WIRES[wire].decode(build(), RequestContext(path_model="m"))
    assert list(request.rows) == [Row(m.role, m.content) for m in EXPECTED]


def test_non_ascii_stays_unescaped_in_envelopes() -> None:
    request = WIRES["openai_chat"].decode(_openai_chat(), RequestContext())
    assert "ça.txt" in request.rows[2].content
    assert "\\u" not in request.rows[2].content


def test_user_image_parts_become_markers_in_order() -> None:
    body = {
        "model": "m",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "see "},
                    {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                    {"type": "text", "text": " now"},
                ],
            }
        ],
    }
    request = WIRES["openai_chat"].decode(body, RequestContext())
    assert request.rows == (Row("user", "see [IMAGE:https://x/y.png] now"),)


def test_blank_assistant_text_is_null_in_the_envelope() -> None:
    body = _openai_chat()
    body["messages"][2]["content"] = "  "
    request = WIRES["openai_chat"].decode(body, RequestContext())
    assert request.rows[2].content.startswith('{"content":null,"tool_calls":')
