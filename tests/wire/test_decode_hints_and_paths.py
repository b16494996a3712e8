"""Session hints read from request bodies, which paths are generation calls, what a path
says (Gemini's and Bedrock's model, whether they stream), and the stream framings that
only some wires use (Gemini's JSON array, Bedrock's binary event stream)."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from harness.runtime import ToolCall, native_tool_call_row
from harness.wire import (
    WireDecodeError,
    WireKind,
    decode_answer,
    decode_request,
    is_generation_request,
)
from tests.wire.bodies import path_of


def hints(wire: WireKind, body: Mapping[str, object]) -> dict[str, str]:
    return dict(decode_request(wire, path_of(wire), json.dumps(body).encode()).hints)


def test_openai_chat_hints_are_cache_key_user_and_safety_identifier() -> None:
    body = {
        "messages": [],
        "prompt_cache_key": "k1",
        "user": "u1",
        "safety_identifier": "s1",
        "metadata": {"user_id": "not a chat hint"},
    }
    assert hints("openai_chat", body) == {
        "prompt_cache_key": "k1",
        "user": "u1",
        "safety_identifier": "s1",
    }


@pytest.mark.parametrize("conversation", ["conv_1", {"id": "conv_1"}])
def test_responses_hints_name_the_conversation_as_a_string_or_its_id(
    conversation: object,
) -> None:
    body = {"input": "hi", "previous_response_id": "resp_9", "conversation": conversation}
    assert hints("openai_responses", body) == {
        "previous_response_id": "resp_9",
        "conversation": "conv_1",
    }


def test_anthropic_hint_is_the_metadata_user_id_by_its_dotted_name() -> None:
    body = {"messages": [], "metadata": {"user_id": "user-42"}}
    assert hints("anthropic", body) == {"metadata.user_id": "user-42"}


def test_gemini_hint_is_the_cached_content() -> None:
    body = {"contents": [], "cachedContent": "cachedContents/abc"}
    assert hints("gemini", body) == {"cachedContent": "cachedContents/abc"}


def test_hints_that_are_not_strings_or_numbers_are_left_out() -> None:
    body = {"messages": [], "prompt_cache_key": {"nested": 1}, "user": 7}
    assert hints("openai_chat", body) == {"user": "7"}


@pytest.mark.parametrize(
    ("wire", "method", "path"),
    [
        ("openai_chat", "POST", "/v1/chat/completions"),
        ("openai_chat", "POST", "/openai/deployments/gpt/chat/completions?api-version=2024-10-21"),
        ("openai_chat", "post", "/api/v1/chat/completions"),
        ("openai_responses", "POST", "/v1/responses"),
        ("anthropic", "POST", "/v1/messages"),
        ("anthropic", "POST", "/v1/messages?beta=true"),
        ("gemini", "POST", "/v1beta/models/gemini-2.5-flash:generateContent"),
        ("gemini", "POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"),
        ("ollama", "POST", "/api/chat"),
        ("cohere", "POST", "/v2/chat"),
        ("bedrock", "POST", "/model/anthropic.claude-3-haiku/converse"),
        ("bedrock", "POST", "/model/anthropic.claude-3-haiku/converse-stream"),
    ],
)
def test_generation_calls_are_recognised(wire: WireKind, method: str, path: str) -> None:
    assert is_generation_request(wire, method, path)


@pytest.mark.parametrize(
    ("wire", "method", "path"),
    [
        ("openai_chat", "GET", "/v1/models"),
        ("openai_chat", "GET", "/v1/chat/completions"),
        ("openai_chat", "GET", "/health"),
        ("openai_responses", "POST", "/v1/responses/compact"),
        ("openai_responses", "GET", "/v1/responses/resp_123"),
        ("openai_responses", "POST", "/v1/responses/resp_123/cancel"),
        ("openai_responses", "POST", "/v1/responses/input_tokens"),
        ("anthropic", "POST", "/v1/messages/count_tokens"),
        ("anthropic", "POST", "/v1/messages/batches"),
        ("anthropic", "GET", "/v1/models"),
        ("gemini", "POST", "/v1beta/models/gemini-2.5-flash:countTokens"),
        ("gemini", "GET", "/v1beta/models/gemini-2.5-flash"),
        ("ollama", "POST", "/api/show"),
        ("ollama", "GET", "/api/tags"),
        ("cohere", "POST", "/v2/embed"),
        ("bedrock", "POST", "/model/anthropic.claude-3-haiku/invoke"),
    ],
)
def test_listings_counts_compaction_and_health_are_not_generation_calls(
    wire: WireKind, method: str, path: str
) -> None:
    assert not is_generation_request(wire, method, path)


def test_gemini_and_bedrock_take_the_model_and_streaming_from_the_path() -> None:
    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}).encode()
    path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    gemini = decode_request("gemini", path, body)
    assert (gemini.model, gemini.stream) == ("gemini-2.5-flash", True)
    converse = json.dumps({"messages": [{"role": "user", "content": [{"text": "hi"}]}]}).encode()
    arn = "arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.claude"
    bedrock = decode_request("bedrock", f"/model/{arn}/converse-stream", converse)
    assert (bedrock.model, bedrock.stream) == (
        "arn:aws:bedrock:us-east-1:1:inference-profile/us.claude",
        True,
    )
    assert decode_request("bedrock", "/model/m/converse", converse).stream is False


def _gemini_chunk(text: str, finish: str | None = None) -> dict[str, object]:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": text}]}}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "usageMetadata": {"promptTokenCount": 12}}


def test_gemini_streams_read_as_sse_chunks_or_one_json_array() -> None:
    chunks = [_gemini_chunk("Hel"), _gemini_chunk("lo", "STOP")]
    sse = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
    array = json.dumps(chunks).encode()
    for body in (sse, array):
        answer = decode_answer("gemini", 200, body, streamed=True)
        assert [(r.role, r.content) for r in answer.rows] == [("assistant", "Hello")]
        assert (answer.stop_reason, answer.input_tokens) == ("STOP", 12)


def test_a_bedrock_binary_event_stream_is_refused_as_unobservable() -> None:
    # AWS event-stream framing: a 4-byte total length, a 4-byte headers length, a CRC
    frame = b"\x00\x00\x00\x5a\x00\x00\x00\x3e\x9f\x1c\x2a\x11\x0b:event-type"
    with pytest.raises(WireDecodeError, match="event-stream"):
        decode_answer("bedrock", 200, frame, streamed=True)


def test_a_stream_cut_mid_event_is_read_as_far_as_it_went() -> None:
    whole = b'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n'
    cut = whole + b'data: {"choices":[{"delta":{"cont'
    answer = decode_answer("openai_chat", 200, cut, streamed=True)
    assert [r.content for r in answer.rows] == ["Hi"]


def _cohere_event(kind: str, **delta: object) -> bytes:
    return b"data: " + json.dumps({"type": kind, "delta": delta}).encode() + b"\n\n"


def test_a_cohere_tool_call_stream_assembles_plan_and_calls() -> None:
    """Event shapes as Cohere's "Streaming for tool use" guide shows them
    (docs.cohere.com/v2/docs/tool-use-streaming); ids and values are this test's."""
    call = {"id": "get_weather_1", "type": "function", "function": {"name": "get_weather"}}
    body = b"".join(
        [
            _cohere_event("message-start", message={"role": "assistant", "tool_plan": ""}),
            _cohere_event("tool-plan-delta", message={"tool_plan": "I will"}),
            _cohere_event("tool-plan-delta", message={"tool_plan": " search"}),
            _cohere_event("tool-call-start", message={"tool_calls": call}),
            _cohere_event(
                "tool-call-delta", message={"tool_calls": {"function": {"arguments": '{"loc'}}}
            ),
            _cohere_event(
                "tool-call-delta", message={"tool_calls": {"function": {"arguments": '":"x"}'}}}
            ),
            _cohere_event("tool-call-end"),
            _cohere_event(
                "message-end",
                finish_reason="TOOL_CALL",
                usage={"tokens": {"input_tokens": 30, "output_tokens": 9}},
            ),
        ]
    )
    answer = decode_answer("cohere", 200, body, streamed=True)
    expected = native_tool_call_row(
        "I will search", [ToolCall("get_weather_1", "get_weather", '{"loc":"x"}')]
    )
    assert answer.rows == (expected,)
    assert (answer.stop_reason, answer.input_tokens, answer.output_tokens) == ("TOOL_CALL", 30, 9)
