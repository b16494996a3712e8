"""OpenAI's and Azure's Chat Completions answers have the recorded shapes
(``fidelity/openai_chat_answers.json``, each record cited): ``service_tier``,
``annotations``, every chunk's ``service_tier`` / ``system_fingerprint`` / ``obfuscation`` /
``usage: null``, a tool-call stream opening with the call, Azure's empty-``choices``
opening chunk and content-filter results. Compatible servers keep their plainer shapes."""

from __future__ import annotations

from typing import Any

import pytest

from fakes import FakeProvider, FakeScript, ScriptedToolCall, call_tools, fail
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture, key_paths
from tests.fakes.wire_requests import sse_events

pytestmark = pytest.mark.anyio

REAL = fixture("openai_chat_answers.json")
USER = [{"role": "user", "content": "hi"}]
PATH = {"openai": "/v1/chat/completions", "azure": "/openai/v1/chat/completions"}


async def _answer(connect: Connect, provider: str, body: dict[str, Any], tools: bool) -> Any:
    weather = call_tools(ScriptedToolCall("weather", {"location": "Florence"}))
    script = FakeScript(default=weather) if tools else None
    fake = FakeProvider(provider, "gpt-4o-mini", context_window=10_000, script=script)
    client, _ = await connect(fake)
    answer = await client.post(PATH[provider], json={"model": "gpt-4o-mini", **body})
    assert answer.status_code == 200, answer.text
    return answer


def _chunks(text: str) -> list[dict[str, Any]]:
    return [data for _, data in sse_events(text) if isinstance(data, dict)]


async def test_an_openai_answer_has_the_recorded_keys(connect: Connect) -> None:
    answer = await _answer(connect, "openai", {"messages": USER}, tools=False)
    assert key_paths(answer.json()) == set(REAL["openai_answer"]["paths"])


async def test_an_openai_stream_has_the_recorded_chunks(connect: Connect) -> None:
    real = REAL["openai_text_stream"]
    body = {"messages": USER, "stream": True, "stream_options": {"include_usage": True}}
    chunks = _chunks((await _answer(connect, "openai", body, tools=False)).text)
    assert key_paths(chunks[0]) == set(real["role"])
    assert key_paths(chunks[1]) == set(real["content"])
    assert key_paths(chunks[-2]) == set(real["finish"])
    assert key_paths(chunks[-1]) == set(real["usage"])


async def test_obfuscation_and_usage_null_go_when_not_asked(connect: Connect) -> None:
    body = {"messages": USER, "stream": True, "stream_options": {"include_obfuscation": False}}
    chunks = _chunks((await _answer(connect, "openai", body, tools=False)).text)
    assert all("obfuscation" not in c and "usage" not in c for c in chunks)


async def test_a_tool_call_stream_opens_with_the_call(connect: Connect) -> None:
    body = {"messages": USER, "stream": True}
    chunks = _chunks((await _answer(connect, "openai", body, tools=True)).text)
    opening = chunks[0]["choices"][0]["delta"]
    assert key_paths(opening) == set(REAL["openai_tool_stream"]["opening_delta"])


async def test_an_azure_answer_has_its_content_filter_results(connect: Connect) -> None:
    answer = await _answer(connect, "azure", {"messages": USER}, tools=False)
    assert key_paths(answer.json()) == set(REAL["azure_answer"]["paths"])


async def test_an_azure_stream_opens_with_an_empty_choices_chunk(connect: Connect) -> None:
    real = REAL["azure_tool_stream"]
    body = {"messages": USER, "stream": True, "stream_options": {"include_usage": True}}
    chunks = _chunks((await _answer(connect, "azure", body, tools=True)).text)
    assert chunks[0]["choices"] == []
    assert key_paths(chunks[0]) == set(real["opening"])
    assert key_paths(chunks[1]) == set(real["first_choice"])


async def test_a_compatible_server_keeps_its_plain_chunks(connect: Connect) -> None:
    fake = FakeProvider("groq", "m", context_window=10_000)
    client, _ = await connect(fake)
    body = {"model": "m", "messages": USER, "stream": True}
    chunks = _chunks((await client.post("/openai/v1/chat/completions", json=body)).text)
    assert all("service_tier" not in c and "obfuscation" not in c for c in chunks)


async def test_openrouter_streams_open_with_a_comment_and_its_429_has_its_shape(
    connect: Connect,
) -> None:
    real = REAL["openrouter_rate_limit"]
    fake = FakeProvider("openrouter", "m", context_window=10_000)
    client, _ = await connect(fake)
    body = {"model": "m", "messages": USER, "stream": True}
    text = (await client.post("/api/v1/chat/completions", json=body)).text
    assert text.startswith(": OPENROUTER PROCESSING\n\n")
    assert [name for name, _ in sse_events(text)][-1] is None  # the comment is no event
    fake.reset(script=FakeScript((fail("rate_limit", retry_after=2),)))
    refused = await client.post("/api/v1/chat/completions", json={**body, "stream": False})
    assert refused.status_code == real["status"]
    assert key_paths(refused.json()) == set(real["paths"])
    assert isinstance(refused.json()["error"]["code"], int)
