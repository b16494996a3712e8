"""Anthropic Messages: exact wire, usage normalisation, streaming and its error events."""

import dataclasses

import pytest

from harness.providers import (
    ContextWindowExceeded,
    ProviderProtocolError,
    ProviderReply,
    ProviderRequest,
    ProviderServerError,
    Usage,
    is_context_window_stop,
)
from harness.runtime import ChatMessage, ToolCall
from tests.providers.catalogue import ANTHROPIC_BODY
from tests.providers.support import (
    CARRIER_TEXT,
    CAT_URL,
    PNG_B64,
    REQUEST,
    answer,
    run,
    sse_answer,
)

pytestmark = pytest.mark.anyio

STREAMING = dataclasses.replace(REQUEST, stream=True)
PNG_BLOCK = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
}


def _text(text: str) -> dict[str, object]:
    return {"type": "text", "text": text}


def _use(call_id: str, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


EXPECTED = {
    "model": "test-model",
    "max_tokens": 256,
    "system": [_text("You are terse."), _text("Second system row.")],
    "messages": [
        {
            "role": "user",
            "content": [
                _text("What is in "),
                {"type": "image", "source": {"type": "url", "url": CAT_URL}},
                _text(" and [IMAGE:/home/u/local.png]?"),
            ],
        },
        {
            "role": "assistant",
            "content": [
                _text("Let me look."),
                _use("c1", "read_file", {"path": "a.txt"}),
                _use("c2", "list_dir", {"path": "."}),
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "alpha"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "beta"},
            ],
        },
        {"role": "assistant", "content": [_text("Both read.")]},
        {"role": "user", "content": [_text("Now with the screenshot")]},
        {"role": "assistant", "content": [_use("c3", "screenshot", {})]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "c3",
                    "content": [_text("captured"), PNG_BLOCK],
                }
            ],
        },
        {"role": "assistant", "content": [_text("prompt mode next")]},
        {"role": "user", "content": [_text(CARRIER_TEXT), PNG_BLOCK]},
    ],
    "tools": [
        {
            "name": "read_file",
            "description": "Read a file",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ],
}
MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [
        {"type": "thinking", "thinking": "hmm", "signature": "s"},
        _text("Reading both."),
        _use("toolu_1", "read_file", {"path": "x"}),
        _use("toolu_2", "read_file", {"path": "y"}),
    ],
    "stop_reason": "tool_use",
    "usage": {
        "input_tokens": 100,
        "cache_creation_input_tokens": 300,
        "cache_read_input_tokens": 2000,
        "output_tokens": 50,
    },
}
EXPECTED_REPLY = ProviderReply(
    text="Reading both.",
    tool_calls=(
        ToolCall("toolu_1", "read_file", '{"path":"x"}'),
        ToolCall("toolu_2", "read_file", '{"path":"y"}'),
    ),
    usage=Usage(
        input_tokens=2400,
        output_tokens=50,
        cache_read_input_tokens=2000,
        cache_creation_input_tokens=300,
    ),
    finish_reason="tool_use",
    model="claude-test",
)


async def test_wire_json_for_the_standard_history() -> None:
    _, recorder = await run("anthropic", answer(200, MESSAGE))
    request = recorder.requests[-1]
    assert str(request.url) == "https://api.test/v1/messages"
    assert request.headers["x-api-key"] == "sk-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert recorder.sent_json == EXPECTED


async def test_usage_input_is_the_whole_context_including_cache() -> None:
    reply, _ = await run("anthropic", answer(200, MESSAGE))
    assert reply == EXPECTED_REPLY


async def test_max_tokens_defaults_when_the_request_has_none() -> None:
    _, recorder = await run(
        "anthropic", answer(200, MESSAGE), dataclasses.replace(REQUEST, max_tokens=None)
    )
    sent = recorder.sent_json
    assert isinstance(sent, dict)
    assert sent["max_tokens"] == 4096


async def test_context_window_stop_reason_is_a_reply_not_an_error() -> None:
    body = {**MESSAGE, "content": [_text("cut")], "stop_reason": "model_context_window_exceeded"}
    reply, _ = await run("anthropic", answer(200, body))
    assert isinstance(reply, ProviderReply)
    assert is_context_window_stop(reply.finish_reason)


def _event(kind: str, **fields: object) -> tuple[str, dict[str, object]]:
    return kind, {"type": kind, **fields}


def _delta(index: int, kind: str, key: str, value: str) -> tuple[str, dict[str, object]]:
    return _event("content_block_delta", index=index, delta={"type": kind, key: value})


def _stream_events() -> list[tuple[str | None, object]]:
    usage = {**MESSAGE["usage"], "output_tokens": 1}  # type: ignore[dict-item]
    start = {**MESSAGE, "content": [], "stop_reason": None, "usage": usage}
    return [
        _event("message_start", message=start),
        _event("content_block_start", index=0, content_block=_text("")),
        _event("ping"),
        _delta(0, "text_delta", "text", "Reading "),
        _delta(0, "text_delta", "text", "both."),
        _event("content_block_stop", index=0),
        _event("content_block_start", index=1, content_block=_use("toolu_1", "read_file", {})),
        _delta(1, "input_json_delta", "partial_json", '{"path":'),
        _delta(1, "input_json_delta", "partial_json", '"x"}'),
        _event("content_block_stop", index=1),
        _event("content_block_start", index=2, content_block=_use("toolu_2", "read_file", {})),
        _delta(2, "input_json_delta", "partial_json", '{"path":"y"}'),
        _event("content_block_stop", index=2),
        _event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 50}),
        _event("message_stop"),
    ]


async def test_stream_assembles_text_tool_calls_and_usage() -> None:
    reply, recorder = await run("anthropic", sse_answer(_stream_events()), STREAMING)
    assert reply == EXPECTED_REPLY
    sent = recorder.sent_json
    assert isinstance(sent, dict)
    assert sent["stream"] is True


async def test_stream_overloaded_error_event_is_a_server_error() -> None:
    error_event = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    events = [*_stream_events()[:4], ("error", error_event)]
    error, _ = await run("anthropic", sse_answer(events), STREAMING)
    assert isinstance(error, ProviderServerError)
    assert (error.status, error.error_type) == (None, "overloaded_error")


async def test_stream_overflow_error_event_carries_both_verdicts() -> None:
    error, _ = await run("anthropic", sse_answer([("error", ANTHROPIC_BODY)]), STREAMING)
    assert isinstance(error, ContextWindowExceeded)
    assert (error.reference_verdict, error.extended_verdict) == (True, True)
    assert error.error_type == "invalid_request_error"


async def test_stream_without_message_stop_is_a_protocol_error() -> None:
    error, _ = await run("anthropic", sse_answer(_stream_events()[:-1]), STREAMING)
    assert isinstance(error, ProviderProtocolError)
    assert error.error_type == "stream_incomplete"


async def test_dropped_stream_is_a_protocol_error() -> None:
    error, _ = await run("anthropic", sse_answer(_stream_events()[:5], drop=True), STREAMING)
    assert isinstance(error, ProviderProtocolError)


async def test_empty_user_row_is_sent_as_an_empty_text_block() -> None:
    request = ProviderRequest("m", [ChatMessage("user", "")])
    _, recorder = await run("anthropic", answer(200, MESSAGE), request)
    sent = recorder.sent_json
    assert isinstance(sent, dict)
    assert sent["messages"] == [{"role": "user", "content": [_text("")]}]
