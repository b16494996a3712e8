"""Scripted faults on every mount: 5xx, 429, hang, malformed JSON, dropped streams, latency."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import httpx
import pytest

from fakes import FakeProvider, FakeScript, fail
from fakes.scripting.script import FakeBehaviour
from tests.fakes.conftest import Connect

pytestmark = pytest.mark.anyio
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


def _fake(provider: str, *steps: FakeBehaviour) -> FakeProvider:
    return FakeProvider(provider, "m", context_window=1000, script=FakeScript(steps=steps))


def _is_real_server(base: str) -> bool:
    return base.startswith("http://127.0.0.1:")


async def test_server_error_uses_the_wire_formats_5xx_body(connect: Connect) -> None:
    client, _ = await connect(_fake("openai", fail("server_error", status=502)))
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "server_error"
    second = await client.post("/v1/chat/completions", json=CHAT)
    assert second.status_code == 200  # the script's default after its steps


async def test_anthropic_529_is_overloaded(connect: Connect) -> None:
    client, _ = await connect(_fake("anthropic", fail("server_error", status=529)))
    response = await client.post("/v1/messages", json={**CHAT, "max_tokens": 5})
    assert response.status_code == 529
    body = response.json()
    assert body.pop("request_id").startswith("req_011C")  # as Anthropic's errors carry it
    assert body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


@pytest.mark.parametrize(
    ("provider", "path"),
    [
        ("openai", "/v1/chat/completions"),
        ("anthropic", "/v1/messages"),
        ("bedrock", "/model/m/converse"),
    ],
)
async def test_rate_limit_is_a_429_with_retry_after(
    connect: Connect, provider: str, path: str
) -> None:
    client, _ = await connect(_fake(provider, fail("rate_limit", retry_after=7)))
    body: dict[str, Any] = {**CHAT, "max_tokens": 5}
    if provider == "bedrock":
        body = {"messages": [{"role": "user", "content": [{"text": "hello"}]}]}
    response = await client.post(path, json=body)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    if provider == "bedrock":
        assert response.headers["x-amzn-ErrorType"] == "ThrottlingException"


async def test_hang_outlasts_a_client_timeout(connect: Connect) -> None:
    fake = _fake("openai", fail("hang", seconds=30))
    client, base = await connect(fake)
    if _is_real_server(base):
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            await client.post("/v1/chat/completions", json=CHAT, timeout=0.3)
        assert time.monotonic() - started < 5
    else:  # in process there is no socket timeout: the caller's own deadline applies
        with pytest.raises(TimeoutError), anyio.fail_after(0.3):
            await client.post("/v1/chat/completions", json=CHAT)
    assert fake.log.calls()[0].fault == "hang"


async def test_short_hang_then_a_normal_answer(connect: Connect) -> None:
    client, _ = await connect(_fake("openai", fail("hang", seconds=0.3)))
    started = time.monotonic()
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 200
    assert time.monotonic() - started >= 0.3


async def test_latency_delays_the_answer(connect: Connect) -> None:
    client, _ = await connect(_fake("openai", FakeBehaviour(latency_ms=250)))
    started = time.monotonic()
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 200
    assert time.monotonic() - started >= 0.25


async def test_malformed_json_body(connect: Connect) -> None:
    client, _ = await connect(_fake("openai", fail("malformed_json")))
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(response.content)


async def test_malformed_json_event_in_a_stream(connect: Connect) -> None:
    client, _ = await connect(_fake("anthropic", fail("malformed_json")))
    response = await client.post("/v1/messages", json={**CHAT, "max_tokens": 5, "stream": True})
    data = response.text.split("data: ", 1)[1].split("\n", 1)[0]
    with pytest.raises(json.JSONDecodeError):
        json.loads(data)


async def test_dropped_stream_is_a_protocol_error(connect: Connect) -> None:
    client, base = await connect(_fake("openai", fail("drop_mid_stream", after_events=2)))
    received: list[str] = []

    async def read() -> None:
        body = {**CHAT, "stream": True}
        async with client.stream("POST", "/v1/chat/completions", json=body) as response:
            assert response.status_code == 200
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    received.append(line)

    with pytest.raises(httpx.RemoteProtocolError):
        await read()
    if _is_real_server(base):  # a socket delivers what was sent before the drop
        assert len(received) == 2


async def test_dropped_json_body_is_a_protocol_error(connect: Connect) -> None:
    fake = _fake("gemini", fail("drop_mid_stream"))
    client, _ = await connect(fake)
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    with pytest.raises(httpx.RemoteProtocolError):
        await client.post("/v1beta/models/m:generateContent", json=body)
    assert fake.log.calls()[0].fault == "drop_mid_stream"


async def test_forced_overflow_answers_a_small_request_with_the_overflow(connect: Connect) -> None:
    client, _ = await connect(_fake("openai", fail("overflow")))
    response = await client.post("/v1/chat/completions", json=CHAT)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "context_length_exceeded"


async def test_invalid_json_request_is_rejected_like_the_provider(connect: Connect) -> None:
    fake = _fake("openai")
    client, _ = await connect(fake)
    response = await client.post(
        "/v1/chat/completions", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert fake.log.last().outcome == "rejected"


async def test_unknown_model_is_a_404(connect: Connect) -> None:
    client, _ = await connect(_fake("anthropic"))
    response = await client.post("/v1/messages", json={**CHAT, "model": "other", "max_tokens": 5})
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found_error"


async def test_unknown_path_is_a_404(connect: Connect) -> None:
    client, _ = await connect(_fake("openai"))
    response = await client.post("/v1/completions", json=CHAT)
    assert response.status_code == 404
