"""OpenAI Responses: exact wire, reply and stream parsing, in-stream errors."""

import dataclasses

import pytest

from harness.providers import (
    ContextWindowExceeded,
    ProviderProtocolError,
    ProviderReply,
    ProviderServerError,
    Usage,
)
from harness.runtime import ToolCall
from tests.providers.catalogue import RESPONSES_STREAM_EVENT
from tests.providers.support import (
    CARRIER_TEXT,
    CAT_URL,
    PNG_DATA_URI,
    REQUEST,
    answer,
    run,
    sse_answer,
)

pytestmark = pytest.mark.anyio

STREAMING = dataclasses.replace(REQUEST, stream=True)


def _msg(role: str, content: object) -> dict[str, object]:
    return {"type": "message", "role": role, "content": content}


def _fc(call_id: str, name: str, arguments: str) -> dict[str, object]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def _out(call_id: str, output: str) -> dict[str, object]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _image(url: str) -> dict[str, object]:
    return {"type": "input_image", "image_url": url, "detail": "auto"}


EXPECTED_INPUT = [
    _msg("system", "You are terse."),
    _msg("system", "Second system row."),
    _msg(
        "user",
        [
            {"type": "input_text", "text": "What is in "},
            _image(CAT_URL),
            {"type": "input_text", "text": " and [IMAGE:/home/u/local.png]?"},
        ],
    ),
    _msg("assistant", "Let me look."),
    _fc("c1", "read_file", '{"path":"a.txt"}'),
    _fc("c2", "list_dir", '{"path":"."}'),
    _out("c1", "alpha"),
    _out("c2", "beta"),
    _msg("assistant", "Both read."),
    _msg("user", "Now with the screenshot"),
    _fc("c3", "screenshot", "{}"),
    _out("c3", "captured"),
    _msg("user", [_image(PNG_DATA_URI)]),
    _msg("assistant", "prompt mode next"),
    _msg("user", [{"type": "input_text", "text": CARRIER_TEXT}, _image(PNG_DATA_URI)]),
]
RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "status": "completed",
    "model": "gpt-test",
    "error": None,
    "incomplete_details": None,
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
        },
        {**_fc("call_9", "read_file", '{"path":"z"}'), "id": "fc_9"},
    ],
    "usage": {
        "input_tokens": 900,
        "input_tokens_details": {"cached_tokens": 512},
        "output_tokens": 40,
        "output_tokens_details": {"reasoning_tokens": 12},
        "total_tokens": 940,
    },
}
EXPECTED_REPLY = ProviderReply(
    text="Reading.",
    tool_calls=(ToolCall("call_9", "read_file", '{"path":"z"}'),),
    usage=Usage(input_tokens=900, output_tokens=40, cache_read_input_tokens=512),
    finish_reason="completed",
    model="gpt-test",
)


async def test_wire_json_for_the_standard_history() -> None:
    _, recorder = await run("openai-responses", answer(200, RESPONSE))
    assert str(recorder.requests[-1].url) == "https://api.test/v1/responses"
    assert recorder.sent_json == {
        "model": "test-model",
        "input": EXPECTED_INPUT,
        "tools": [
            {
                "type": "function",
                "name": "read_file",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            }
        ],
        "max_output_tokens": 256,
    }


async def test_reply_parsing() -> None:
    reply, _ = await run("openai-responses", answer(200, RESPONSE))
    assert reply == EXPECTED_REPLY


async def test_incomplete_response_reports_its_reason() -> None:
    body = {
        **RESPONSE,
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }
    reply, _ = await run("openai-responses", answer(200, body))
    assert isinstance(reply, ProviderReply)
    assert reply.finish_reason == "max_output_tokens"


async def test_failed_response_on_200_is_an_error() -> None:
    body = {**RESPONSE, "status": "failed", "error": {"code": "server_error", "message": "oops"}}
    error, _ = await run("openai-responses", answer(200, body))
    assert isinstance(error, ProviderServerError)
    assert error.error_type == "server_error"


def _stream_events() -> list[tuple[str | None, object]]:
    done_item = {**_fc("call_9", "read_file", '{"path":"z"}'), "id": "fc_9"}
    return [
        ("response.created", {"type": "response.created", "response": {**RESPONSE, "output": []}}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "Read"}),
        ("response.output_item.done", {"type": "response.output_item.done", "item": done_item}),
        ("response.completed", {"type": "response.completed", "response": RESPONSE}),
    ]


async def test_stream_parses_the_completed_response_and_sends_stream_true() -> None:
    reply, recorder = await run("openai-responses", sse_answer(_stream_events()), STREAMING)
    assert reply == EXPECTED_REPLY
    sent = recorder.sent_json
    assert isinstance(sent, dict)
    assert sent["stream"] is True
    assert recorder.requests[-1].headers["accept"] == "text/event-stream"


async def test_stream_error_event_is_a_classified_overflow() -> None:
    events = [
        ("response.created", {"type": "response.created", "response": {**RESPONSE, "output": []}}),
        ("error", RESPONSES_STREAM_EVENT),
    ]
    error, _ = await run("openai-responses", sse_answer(events), STREAMING)
    assert isinstance(error, ContextWindowExceeded)
    assert (error.status, error.error_type) == (None, "context_length_exceeded")
    assert (error.reference_verdict, error.extended_verdict) == (True, True)
    assert "API error (stream)" in str(error)


async def test_stream_response_failed_event_is_an_error() -> None:
    failed = {**RESPONSE, "status": "failed", "error": {"code": "server_error", "message": "x"}}
    events = [("response.failed", {"type": "response.failed", "response": failed})]
    error, _ = await run("openai-responses", sse_answer(events), STREAMING)
    assert isinstance(error, ProviderServerError)


async def test_stream_without_terminal_event_is_a_protocol_error() -> None:
    error, _ = await run("openai-responses", sse_answer(_stream_events()[:2]), STREAMING)
    assert isinstance(error, ProviderProtocolError)
    assert error.error_type == "stream_incomplete"


async def test_dropped_stream_is_a_protocol_error() -> None:
    error, _ = await run("openai-responses", sse_answer(_stream_events()[:2], drop=True), STREAMING)
    assert isinstance(error, ProviderProtocolError)
    assert error.error_type == "remote_protocol_error"


async def test_malformed_event_data_is_a_protocol_error() -> None:
    error, _ = await run("openai-responses", sse_answer([(None, "{not json")]), STREAMING)
    assert isinstance(error, ProviderProtocolError)


async def test_overflow_before_the_stream_is_classified_on_the_http_body() -> None:
    body = {
        "error": {
            "message": "Your input exceeds the context window of this model.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    error, _ = await run("openai-responses", answer(400, body), STREAMING)
    assert isinstance(error, ContextWindowExceeded)
    assert error.status == 400
