"""Scripted replies (text, tool calls, parallel calls) and reported usage, per wire format."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakes import FakeProvider, FakeScript, ScriptedToolCall, UsageReport, call_tools, say
from fakes.catalogue import WireName
from fakes.scripting.script import FakeBehaviour
from tests.fakes.conftest import Connect
from tests.fakes.wire_requests import (
    path_for,
    reply_text,
    reported_input_tokens,
    sse_events,
    text_for_tokens,
    user_request,
)

pytestmark = pytest.mark.anyio
WIRES: list[tuple[str, WireName]] = [
    ("openai", "openai_chat"),
    ("openai", "openai_responses"),
    ("anthropic", "anthropic"),
    ("gemini", "gemini"),
    ("ollama", "ollama"),
    ("cohere", "cohere"),
    ("bedrock", "bedrock"),
]
READ = ScriptedToolCall("read_file", {"path": "a.txt"}, id="id_a")
LIST = ScriptedToolCall("list_dir", {"path": "."}, id="id_b")


async def _call(
    connect: Connect,
    provider: str,
    wire: WireName,
    script: FakeScript,
    text: str = "hello",
    **options: Any,
) -> list[Any]:
    fake = FakeProvider(provider, "m", context_window=10_000, script=script)
    client, _ = await connect(fake)
    path = path_for(fake.profile, wire, "m")
    bodies = []
    for _ in range(len(script.steps) + 1):
        response = await client.post(path, json=user_request(wire, "m", text, **options))
        assert response.status_code == 200, response.text
        bodies.append(response.json())
    return bodies


def _calls(wire: WireName, body: Any) -> list[tuple[str, dict[str, Any]]]:
    """(name, arguments) of each tool call in a reply."""
    if wire == "openai_chat":
        calls = body["choices"][0]["message"]["tool_calls"]
        return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls]
    if wire == "openai_responses":
        return [
            (i["name"], json.loads(i["arguments"]))
            for i in body["output"]
            if i["type"] == "function_call"
        ]
    if wire == "anthropic":
        return [(b["name"], b["input"]) for b in body["content"] if b["type"] == "tool_use"]
    if wire == "gemini":
        parts = body["candidates"][0]["content"]["parts"]
        return [(p["functionCall"]["name"], p["functionCall"]["args"]) for p in parts]
    if wire == "ollama":
        return [
            (c["function"]["name"], c["function"]["arguments"])
            for c in body["message"]["tool_calls"]
        ]
    if wire == "cohere":
        return [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in body["message"]["tool_calls"]
        ]
    return [
        (b["toolUse"]["name"], b["toolUse"]["input"])
        for b in body["output"]["message"]["content"]
        if "toolUse" in b
    ]


@pytest.mark.parametrize(("provider", "wire"), WIRES, ids=[w for _, w in WIRES])
async def test_steps_follow_the_call_index(connect: Connect, provider: str, wire: WireName) -> None:
    script = FakeScript(steps=(say("first"), call_tools(READ, LIST)), default=say("later"))
    first, parallel, later = await _call(connect, provider, wire, script)
    assert reply_text(wire, first) == "first"
    assert _calls(wire, parallel) == [("read_file", {"path": "a.txt"}), ("list_dir", {"path": "."})]
    assert reply_text(wire, later) == "later"


async def test_openai_tool_calls_carry_ids_and_finish_reason(connect: Connect) -> None:
    (body, _) = await _call(connect, "openai", "openai_chat", FakeScript(steps=(call_tools(READ),)))
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"][0]["id"] == "id_a"
    assert choice["message"]["tool_calls"][0]["type"] == "function"


@pytest.mark.parametrize(("provider", "wire"), WIRES, ids=[w for _, w in WIRES])
@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        (UsageReport(), 300),
        (UsageReport(input_factor=0.5), 150),
        (UsageReport(input_factor=2.0), 600),
        (UsageReport(input_tokens=42), 42),
    ],
)
async def test_reported_usage(
    provider: str, wire: WireName, usage: UsageReport, expected: int
) -> None:
    from fakes import asgi_client  # noqa: PLC0415  (one mount is enough for arithmetic)

    fake = FakeProvider(
        provider, "m", context_window=10_000, script=FakeScript(default=FakeBehaviour(usage=usage))
    )
    async with asgi_client(fake) as client:
        response = await client.post(
            path_for(fake.profile, wire, "m"), json=user_request(wire, "m", text_for_tokens(300))
        )
    assert reported_input_tokens(wire, response.json()) == expected


async def test_cache_tokens_follow_each_providers_convention(connect: Connect) -> None:
    usage = FakeScript(
        default=FakeBehaviour(usage=UsageReport(cached_tokens=100, cache_creation_tokens=20))
    )
    (openai,) = await _call(connect, "openai", "openai_chat", usage, text_for_tokens(300))
    assert openai["usage"]["prompt_tokens"] == 300  # includes cached tokens
    assert openai["usage"]["prompt_tokens_details"]["cached_tokens"] == 100
    (anthropic,) = await _call(connect, "anthropic", "anthropic", usage, text_for_tokens(300))
    assert anthropic["usage"]["input_tokens"] == 180  # excludes cache reads and writes
    assert anthropic["usage"]["cache_read_input_tokens"] == 100
    assert anthropic["usage"]["cache_creation_input_tokens"] == 20
    (gemini,) = await _call(connect, "gemini", "gemini", usage, text_for_tokens(300))
    assert gemini["usageMetadata"]["promptTokenCount"] == 300
    assert gemini["usageMetadata"]["cachedContentTokenCount"] == 100


async def test_openai_stream_has_usage_only_when_asked(connect: Connect) -> None:
    fake = FakeProvider("openai", "m", context_window=1000)
    client, _ = await connect(fake)
    body = user_request("openai_chat", "m", "hi", stream=True)
    plain = sse_events((await client.post("/v1/chat/completions", json=body)).text)
    body["stream_options"] = {"include_usage": True}
    counted = sse_events((await client.post("/v1/chat/completions", json=body)).text)
    assert plain[-1][1] == "[DONE]"
    assert counted[-1][1] == "[DONE]"
    assert not any("usage" in data for _, data in plain[:-1])
    assert counted[-2][1]["choices"] == []
    assert counted[-2][1]["usage"]["prompt_tokens"] == 5  # "hi": ceil(2/4) + 4


async def test_anthropic_stream_event_sequence(connect: Connect) -> None:
    fake = FakeProvider(
        "anthropic",
        "m",
        context_window=1000,
        script=FakeScript(default=call_tools(READ, text="reading")),
    )
    client, _ = await connect(fake)
    body = user_request("anthropic", "m", "hi", stream=True)
    names = [name for name, _ in sse_events((await client.post("/v1/messages", json=body)).text)]
    # ping right after the first block's start, as recorded (fidelity/anthropic_answers.json)
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_start") == 2


async def test_responses_stream_ends_with_completed(connect: Connect) -> None:
    client, _ = await connect(FakeProvider("openai", "m", context_window=1000))
    body = user_request("openai_responses", "m", "hi", stream=True)
    events = sse_events((await client.post("/v1/responses", json=body)).text)
    assert [n for n, _ in events][:2] == ["response.created", "response.in_progress"]
    name, data = events[-1]
    assert name == "response.completed"
    assert data["response"]["usage"]["input_tokens"] == 5
    assert [d["sequence_number"] for _, d in events] == list(range(len(events)))


async def test_ollama_streams_ndjson_unless_told_not_to(connect: Connect) -> None:
    client, _ = await connect(FakeProvider("ollama", "m", context_window=1000))
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    response = await client.post("/api/chat", json=body)
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert lines[-1]["done"] is True
    assert lines[-1]["prompt_eval_count"] == 5
