"""OpenAI Chat Completions (and the compatible family): exact wire, reply parsing, usage."""

import json

import httpx
import pytest
import respx

from harness.providers import (
    OpenAIChatClient,
    ProviderReply,
    ProviderRequest,
    ProviderRequestRejected,
    Usage,
)
from harness.runtime import ChatMessage, ToolCall, native_tool_result_row
from tests.providers.support import (
    CARRIER_TEXT,
    CAT_URL,
    PNG_DATA_URI,
    REQUEST,
    answer,
    run,
)

pytestmark = pytest.mark.anyio


def _call(call_id: str, name: str, arguments: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


EXPECTED_MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "system", "content": "Second system row."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is in "},
            {"type": "image_url", "image_url": {"url": CAT_URL}},
            {"type": "text", "text": " and [IMAGE:/home/u/local.png]?"},
        ],
    },
    {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            _call("c1", "read_file", '{"path":"a.txt"}'),
            _call("c2", "list_dir", '{"path":"."}'),
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "alpha"},
    {"role": "tool", "tool_call_id": "c2", "content": "beta"},
    {"role": "assistant", "content": "Both read."},
    {"role": "user", "content": "Now with the screenshot"},
    {"role": "assistant", "content": None, "tool_calls": [_call("c3", "screenshot", "{}")]},
    {"role": "tool", "tool_call_id": "c3", "content": "captured"},
    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG_DATA_URI}}]},
    {"role": "assistant", "content": "prompt mode next"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": CARRIER_TEXT},
            {"type": "image_url", "image_url": {"url": PNG_DATA_URI}},
        ],
    },
]
EXPECTED_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
COMPLETION = {
    "id": "chatcmpl-1",
    "model": "gpt-test",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    _call("call_a", "read_file", '{"path":"b"}'),
                    _call("call_b", "read_file", '{"path":"c"}'),
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {
        "prompt_tokens": 1200,
        "completion_tokens": 30,
        "total_tokens": 1230,
        "prompt_tokens_details": {"cached_tokens": 1024},
    },
}


async def test_wire_json_for_the_standard_history(respx_mock: respx.MockRouter) -> None:
    route = respx_mock.post("https://api.test/v1/chat/completions").mock(
        return_value=httpx.Response(200, json=COMPLETION)
    )
    async with httpx.AsyncClient() as http:
        client = OpenAIChatClient(client=http, base_url="https://api.test/v1/", api_key="sk-1")
        await client.complete(REQUEST)
    sent = route.calls.last.request
    assert sent.headers["authorization"] == "Bearer sk-1"
    assert json.loads(sent.content) == {
        "model": "test-model",
        "messages": EXPECTED_MESSAGES,
        "tools": EXPECTED_TOOLS,
        "max_tokens": 256,
    }


async def test_reply_with_parallel_tool_calls_and_cached_usage() -> None:
    reply, _ = await run("openai", answer(200, COMPLETION))
    assert reply == ProviderReply(
        text=None,
        tool_calls=(
            ToolCall("call_a", "read_file", '{"path":"b"}'),
            ToolCall("call_b", "read_file", '{"path":"c"}'),
        ),
        usage=Usage(input_tokens=1200, output_tokens=30, cache_read_input_tokens=1024),
        finish_reason="tool_calls",
        model="gpt-test",
    )


async def test_deepseek_cache_hit_tokens_are_cache_reads() -> None:
    body = {
        "choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 500, "completion_tokens": 2, "prompt_cache_hit_tokens": 384},
    }
    reply, _ = await run("deepseek", answer(200, body))
    assert isinstance(reply, ProviderReply)
    assert reply.text == "hi"
    assert reply.usage == Usage(input_tokens=500, output_tokens=2, cache_read_input_tokens=384)


async def test_azure_sends_its_api_key_header() -> None:
    body = {"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}
    _, recorder = await run("azure", answer(200, body))
    headers = recorder.requests[-1].headers
    assert headers["api-key"] == "sk-test"
    assert "authorization" not in headers


async def test_orphan_tool_row_is_sent_as_is_for_the_provider_to_reject() -> None:
    orphan = ProviderRequest("m", [ChatMessage("user", "hi"), native_tool_result_row("zz", "x")])
    rejection = {
        "error": {
            "message": "messages with role 'tool' must be a response to a preceding message "
            "with 'tool_calls'",
            "type": "invalid_request_error",
        }
    }
    error, recorder = await run("openai", answer(400, rejection), orphan)
    assert recorder.sent_json == {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "zz", "content": "x"},
        ],
    }
    assert isinstance(error, ProviderRequestRejected)
    assert error.error_type == "invalid_request_error"


async def test_legacy_tool_row_without_envelope_is_sent_as_user_text() -> None:
    legacy = ProviderRequest("m", [ChatMessage("tool", "plain output")])
    body = {"choices": [{"message": {"content": "ok"}}]}
    _, recorder = await run("openai", answer(200, body), legacy)
    assert recorder.sent_json == {
        "model": "m",
        "messages": [{"role": "user", "content": "plain output"}],
    }


async def test_missing_tool_call_id_in_reply_gets_a_generated_one() -> None:
    body = {
        "choices": [
            {
                "message": {
                    "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}],
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    reply, _ = await run("vllm", answer(200, body))
    assert isinstance(reply, ProviderReply)
    assert reply.tool_calls == (ToolCall("gen_0", "f", '{"a":1}'),)


async def test_stream_flag_is_ignored_by_the_non_streaming_wire() -> None:
    body = {"choices": [{"message": {"content": "ok"}}]}
    request = ProviderRequest("m", [ChatMessage("user", "hi")], stream=True)
    reply, recorder = await run("openai", answer(200, body), request)
    assert isinstance(reply, ProviderReply)
    assert recorder.sent_json == {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
