"""Gemini ``:streamGenerateContent``: SSE with ``alt=sse``, one JSON array without it;
the text in several chunks, function calls whole in the last chunk, ``finishReason`` and
the full usage in the last chunk; refusals (overflow, unknown model) as HTTP errors
before any streaming. Shapes checked against real answers (``fidelity/gemini_*.json``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import FakeProvider, FakeScript, ScriptedToolCall, call_tools, say
from fakes.wire.base import ReplyPlan, Usage
from fakes.wire.gemini_reply import stream
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture, key_paths
from tests.fakes.wire_requests import text_for_tokens

pytestmark = pytest.mark.anyio

MODEL = "gemini-2.5-flash"
SSE = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
ARRAY = f"/v1beta/models/{MODEL}:streamGenerateContent"
UNARY = f"/v1beta/models/{MODEL}:generateContent"
TEXT = "The weather in Florence is sunny and warm today, with a light breeze from the west."


def _body(text: str = "What's the weather in Florence?") -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}]}


def _fake(*steps: Any, window: int = 100_000) -> FakeProvider:
    return FakeProvider("gemini", MODEL, context_window=window, script=FakeScript(steps))


def _sse(response: httpx.Response) -> list[Any]:
    assert response.headers["content-type"].startswith("text/event-stream")
    blocks = [b for b in response.text.split("\n\n") if b.strip()]
    assert all(b.startswith("data: ") for b in blocks)
    return [json.loads(b.removeprefix("data: ")) for b in blocks]


def _paths(events: list[Any]) -> set[str]:
    out: set[str] = set()
    for event in events:
        out |= key_paths(event)
    return out


def _text(events: list[Any]) -> str:
    parts = [p for e in events for p in e["candidates"][0]["content"]["parts"]]
    return "".join(p.get("text", "") for p in parts)


async def test_alt_sse_streams_the_text_in_several_chunks_finish_and_usage_last(
    connect: Connect,
) -> None:
    fake = _fake(say(TEXT), say(TEXT))
    client, _ = await connect(fake)
    events = _sse(await client.post(SSE, json=_body()))
    unary = (await client.post(UNARY, json=_body())).json()
    assert len(events) > 2
    assert _text(events) == TEXT
    finishes = [e["candidates"][0].get("finishReason") for e in events]
    assert finishes == [None] * (len(events) - 1) + ["STOP"]
    assert events[-1]["usageMetadata"] == unary["usageMetadata"]
    counts = [e["usageMetadata"]["candidatesTokenCount"] for e in events]
    assert counts == sorted(counts)
    assert {e["responseId"] for e in events} == {events[0]["responseId"]}


async def test_without_alt_the_stream_is_one_json_array_of_the_same_responses(
    connect: Connect,
) -> None:
    fake = _fake(say(TEXT), say(TEXT))
    client, _ = await connect(fake)
    array = await client.post(ARRAY, json=_body())
    assert array.headers["content-type"].startswith("application/json")
    elements = array.json()
    sse = _sse(await client.post(SSE, json=_body()))
    for element in (*elements, *sse):
        element.pop("responseId")  # per call
    assert elements == sse


async def test_function_calls_come_whole_in_the_last_chunk_with_the_finish_message(
    connect: Connect,
) -> None:
    call = ScriptedToolCall("weather", {"location": "Florence,Italy"})
    client, _ = await connect(_fake(call_tools(call), call_tools(call, text=TEXT)))
    (only,) = _sse(await client.post(SSE, json=_body()))
    candidate = only["candidates"][0]
    (part,) = candidate["content"]["parts"]
    assert part["functionCall"] == {"name": "weather", "args": {"location": "Florence,Italy"}}
    assert set(part) == {"functionCall", "thoughtSignature"}  # gemini-2.5 thinks
    assert candidate["finishReason"] == "STOP"
    assert candidate["finishMessage"] == "Model generated function call(s)."
    events = _sse(await client.post(SSE, json=_body()))
    assert _text(events) == TEXT
    assert "functionCall" in events[-1]["candidates"][0]["content"]["parts"][0]
    assert all("finishReason" not in e["candidates"][0] for e in events[:-1])


async def test_stream_chunks_have_the_real_chunks_key_paths(connect: Connect) -> None:
    text_shape = fixture("gemini_stream_text.json")
    call_shape = fixture("gemini_stream_function_call.json")
    call = ScriptedToolCall("weather", {"location": "Florence,Italy"})
    client, _ = await connect(_fake(say(TEXT), call_tools(call)))
    text_events = _sse(await client.post(SSE, json=_body()))
    assert _paths(text_events[:-1]) == _paths(text_shape["events"][:-1])
    assert _paths(text_events[-1:]) == _paths(text_shape["events"][-1:])
    call_events = _sse(await client.post(SSE, json=_body()))
    assert _paths(call_events) == _paths(call_shape["events"])


@pytest.mark.parametrize("path", [SSE, ARRAY])
async def test_overflow_is_an_http_error_before_any_streaming(connect: Connect, path: str) -> None:
    fake = _fake(window=1000)
    client, _ = await connect(fake)
    streamed = await client.post(path, json=_body(text_for_tokens(1200)))
    unary = await client.post(UNARY, json=_body(text_for_tokens(1200)))
    assert streamed.status_code == unary.status_code == 400
    assert streamed.headers["content-type"] == "application/json"
    assert streamed.json() == unary.json()
    assert "exceeds the maximum number of tokens" in streamed.json()["error"]["message"]


async def test_unknown_model_on_the_stream_path_is_the_real_404(connect: Connect) -> None:
    client, _ = await connect(_fake())
    response = await client.post(
        "/v1beta/models/gemini-9:streamGenerateContent?alt=sse", json=_body()
    )
    assert response.status_code == 404
    assert response.json()["error"]["status"] == "NOT_FOUND"


def _plan(text: str, output_tokens: int) -> ReplyPlan:
    usage = Usage(input_tokens=7, output_tokens=output_tokens)
    return ReplyPlan(0, MODEL, text, (), usage, "stop", 0, "r")


@given(st.text(min_size=1), st.integers(min_value=0, max_value=10_000))
def test_stream_chunks_join_to_the_text_and_usage_only_grows_to_the_total(
    text: str, output_tokens: int
) -> None:
    events: list[Any] = [e.data for e in stream(_plan(text, output_tokens))]
    assert _text(events) == text
    counts = [e["usageMetadata"]["candidatesTokenCount"] for e in events]
    assert counts == sorted(counts)
    assert counts[-1] == output_tokens
    finishes = ["finishReason" in e["candidates"][0] for e in events]
    assert finishes == [False] * (len(events) - 1) + [True]
