"""Ollama native ``/api/chat`` and Cohere v2: exact wire, reply parsing, usage."""

import pytest

from harness.providers import ContextWindowExceeded, ProviderReply, Usage
from harness.runtime import ToolCall
from tests.providers.support import (
    CARRIER_TEXT,
    CAT_URL,
    PNG_B64,
    PNG_DATA_URI,
    answer,
    run,
)

pytestmark = pytest.mark.anyio

OPENAI_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


def _ollama_call(call_id: str, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"id": call_id, "function": {"name": name, "arguments": arguments}}


def _tool(call_id: str, name: str, text: str) -> dict[str, object]:
    return {"role": "tool", "tool_call_id": call_id, "tool_name": name, "content": text}


OLLAMA_EXPECTED = {
    "model": "test-model",
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "system", "content": "Second system row."},
        # The native wire takes base64 images only: the URL stays a text marker.
        {"role": "user", "content": f"What is in [IMAGE:{CAT_URL}] and [IMAGE:/home/u/local.png]?"},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                _ollama_call("c1", "read_file", {"path": "a.txt"}),
                _ollama_call("c2", "list_dir", {"path": "."}),
            ],
        },
        _tool("c1", "read_file", "alpha"),
        _tool("c2", "list_dir", "beta"),
        {"role": "assistant", "content": "Both read."},
        {"role": "user", "content": "Now with the screenshot"},
        {"role": "assistant", "content": "", "tool_calls": [_ollama_call("c3", "screenshot", {})]},
        {**_tool("c3", "screenshot", "captured"), "images": [PNG_B64]},
        {"role": "assistant", "content": "prompt mode next"},
        {"role": "user", "content": CARRIER_TEXT, "images": [PNG_B64]},
    ],
    "stream": False,
    "tools": [OPENAI_TOOL],
    "options": {"num_predict": 256},
}
OLLAMA_REPLY = {
    "model": "llama-test",
    "created_at": "2026-11-30T12:00:00Z",
    "message": {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "x"}}}],
    },
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 2048,
    "eval_count": 12,
}


async def test_ollama_wire_json_for_the_standard_history() -> None:
    _, recorder = await run("ollama", answer(200, OLLAMA_REPLY))
    assert str(recorder.requests[-1].url) == "https://api.test/api/chat"
    assert recorder.sent_json == OLLAMA_EXPECTED


async def test_ollama_silent_truncation_is_a_successful_reply() -> None:
    # A 2048-token window clipped the prompt: only prompt_eval_count tells.
    reply, _ = await run("ollama", answer(200, OLLAMA_REPLY))
    assert reply == ProviderReply(
        text="",
        tool_calls=(ToolCall("gen_0", "read_file", '{"path":"x"}'),),
        usage=Usage(input_tokens=2048, output_tokens=12),
        finish_reason="stop",
        model="llama-test",
    )


async def test_ollama_400_overflow_is_recognised_only_by_extended() -> None:
    body = {"error": "prompt too long; exceeded max context length by 4 tokens"}
    error, _ = await run("ollama", answer(400, body))
    assert isinstance(error, ContextWindowExceeded)
    assert error.error_type == "context_window_exceeded"
    assert (error.reference_verdict, error.extended_verdict) == (False, True)


def _cohere_call(call_id: str, name: str, arguments: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


COHERE_EXPECTED = {
    "model": "test-model",
    "messages": [
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
            "tool_plan": "Let me look.",
            "tool_calls": [
                _cohere_call("c1", "read_file", '{"path":"a.txt"}'),
                _cohere_call("c2", "list_dir", '{"path":"."}'),
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "alpha"},
        {"role": "tool", "tool_call_id": "c2", "content": "beta"},
        {"role": "assistant", "content": "Both read."},
        {"role": "user", "content": "Now with the screenshot"},
        {"role": "assistant", "tool_calls": [_cohere_call("c3", "screenshot", "{}")]},
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
    ],
    "tools": [OPENAI_TOOL],
    "max_tokens": 256,
}
COHERE_REPLY = {
    "id": "c-1",
    "finish_reason": "TOOL_CALL",
    "message": {
        "role": "assistant",
        "tool_plan": "I will read x.",
        "tool_calls": [_cohere_call("rf_1", "read_file", '{"path":"x"}')],
        "content": [{"type": "text", "text": "Reading x."}],
    },
    "usage": {
        "billed_units": {"input_tokens": 90, "output_tokens": 8},
        "tokens": {"input_tokens": 1100.0, "output_tokens": 20},
    },
}


async def test_cohere_wire_json_for_the_standard_history() -> None:
    _, recorder = await run("cohere", answer(200, COHERE_REPLY))
    assert str(recorder.requests[-1].url) == "https://api.test/v2/chat"
    assert recorder.requests[-1].headers["authorization"] == "Bearer sk-test"
    assert recorder.sent_json == COHERE_EXPECTED


async def test_cohere_reply_uses_counted_tokens_over_billed_units() -> None:
    reply, _ = await run("cohere", answer(200, COHERE_REPLY))
    assert reply == ProviderReply(
        text="Reading x.",
        tool_calls=(ToolCall("rf_1", "read_file", '{"path":"x"}'),),
        usage=Usage(input_tokens=1100, output_tokens=20),
        finish_reason="TOOL_CALL",
    )
