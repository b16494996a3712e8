"""Request shapes the project's own clients never send but other runtimes do (developer
messages, content-part lists, reasoning and thinking items, Gemini thoughts and id-less
calls, Cohere documents and tool plans, Ollama tool names, Bedrock JSON results): each
decodes to the fakes' rows, the fakes being the spec of the canonical encoding."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.wire import WireKind, decode_request
from tests.wire.bodies import fake_rows, path_of

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
SHAPES: list[tuple[str, WireKind, dict[str, Any]]] = [
    (
        "chat developer, part lists, reasoning_content, extra_content, tool image",
        "openai_chat",
        {
            "messages": [
                {"role": "developer", "content": [{"type": "text", "text": "be brief"}]},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "look "},
                        {"type": "image_url", "image_url": "https://img.test/a.png"},
                        {"type": "input_audio", "input_audio": {"data": "AAAA"}},
                    ],
                },
                {
                    "role": "assistant",
                    "content": "  ",
                    "reasoning_content": "thinking",
                    "tool_calls": [{**CALL, "extra_content": {"google": {"sig": "x"}}}],
                },
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": [
                        {"type": "text", "text": "ok"},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}},
                    ],
                },
                {"role": "assistant", "content": None},
            ]
        },
    ),
    (
        "responses reasoning, compaction, developer, input_image by file id, output parts",
        "openai_responses",
        {
            "instructions": "sys",
            "input": [
                {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque"},
                {"role": "developer", "content": "dev"},
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "see"},
                        {"type": "input_image", "file_id": "file_1"},
                    ],
                },
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "calling"}],
                },
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c2", "output": "two"},
                {"type": "item_reference", "id": "msg_1"},
                {"role": "assistant", "content": "done"},
            ],
        },
    ),
    (
        "anthropic thinking, redacted thinking, compaction, image sources, result blocks",
        "anthropic",
        {
            "system": "one system string",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "source": {"type": "url", "url": "https://i/x.png"}},
                        {"type": "document", "source": {"type": "text", "data": "doc"}},
                        {"type": "text", "text": "what?"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "compaction", "content": "summary"},
                        {"type": "thinking", "thinking": "hmm", "signature": "s"},
                        {"type": "redacted_thinking", "data": "zz"},
                        {"type": "tool_use", "id": "t1", "name": "f", "input": {"é": [1, 2]}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [
                                {"type": "text", "text": "r"},
                                {
                                    "type": "image",
                                    "source": {
                                        "type": "base64",
                                        "media_type": "image/png",
                                        "data": "AA",
                                    },
                                },
                            ],
                        },
                        {"type": "tool_result", "tool_use_id": "t9", "is_error": True},
                    ],
                },
            ],
        },
    ),
    (
        "gemini thoughts, id-less calls, response objects, file data, snake-case system",
        "gemini",
        {
            "system_instruction": {"parts": [{"text": "sys"}]},
            "contents": [
                {"parts": [{"text": "hi"}, {"fileData": {"fileUri": "gs://b/x.png"}}]},
                {
                    "role": "model",
                    "parts": [
                        {"text": "pondering", "thought": True},
                        {"functionCall": {"name": "f", "args": {"x": 1}}},
                        {"functionCall": {"id": "g-1", "name": "g"}, "thoughtSignature": "sig"},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "f", "response": {"result": "plain"}}},
                        {"functionResponse": {"id": "g-1", "name": "g", "response": {"n": 2}}},
                    ],
                },
            ],
        },
    ),
    (
        "cohere documents, tool plan, text parts",
        "cohere",
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
                {"role": "assistant", "tool_plan": "I will look", "tool_calls": [CALL]},
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": [
                        {"type": "document", "document": {"data": {"temp": 20}}},
                        {"type": "document", "document": {"data": "sunny"}},
                    ],
                },
            ]
        },
    ),
    (
        "ollama tool names, id-less calls, images",
        "ollama",
        {
            "messages": [
                {"role": "user", "content": "pic", "images": ["AAAA"]},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"function": {"name": "f", "arguments": {"k": "v"}}}],
                },
                {"role": "tool", "tool_name": "f", "content": "done"},
            ]
        },
    ),
    (
        "bedrock JSON results, images, mixed blocks",
        "bedrock",
        {
            "system": [{"text": "sys"}, {"cachePoint": {"type": "default"}}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"image": {"format": "jpeg", "source": {"bytes": "AA"}}},
                        {"text": "what?"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [{"toolUse": {"toolUseId": "u1", "name": "f", "input": {}}}],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "toolResult": {
                                "toolUseId": "u1",
                                "content": [{"json": {"ok": True}}, {"text": "!"}],
                            }
                        }
                    ],
                },
            ],
        },
    ),
]


@pytest.mark.parametrize(("wire", "body"), [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_shapes_other_runtimes_send_decode_as_the_fakes_do(
    wire: WireKind, body: dict[str, Any]
) -> None:
    raw = json.dumps({"model": "m-1", "max_tokens": 8, **body}, ensure_ascii=False).encode()
    rows = [(row.role, row.content) for row in decode_request(wire, path_of(wire), raw).rows]
    assert rows == fake_rows(wire, raw)
