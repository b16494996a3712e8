"""OpenAI-compatible servers' Chat Completions answers, each with its own extras and
omissions, against the recorded shapes (``fidelity/compatible_answers.json``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from fakes import FakeProvider, FakeScript, ScriptedToolCall, asgi_transport, call_tools, say
from fakes.profiles import profile
from tests.fakes.shapes import fixture, key_paths

pytestmark = pytest.mark.anyio

REAL = fixture("compatible_answers.json")
USER = [{"role": "user", "content": "Say hi in Portuguese"}]
NOT_REASONING = "the fakes do not reason on Chat Completions"
REASONING_PATHS = (".message.reasoning", ".message.reasoning_content")
# The fake's paths the records lack, on purpose (see each fixture entry's ``left_out``).
KEPT_EXTRA = {
    "llamacpp": {"$.usage.prompt_tokens_details", "$.usage.prompt_tokens_details.cached_tokens"}
}


async def _post(provider: str, step: Any, body: dict[str, Any]) -> httpx.Response:
    fake = FakeProvider(provider, "m", context_window=100_000, script=FakeScript((step,)))
    path = next(e.path for e in profile(provider).endpoints if e.wire == "openai_chat")
    transport = asgi_transport(fake)
    async with httpx.AsyncClient(transport=transport, base_url="http://fake.test") as client:
        response = await client.post(path, json={"model": "m", **body})
    assert response.status_code == 200, response.text
    return response


@pytest.mark.parametrize(
    "provider",
    ["groq", "llamacpp", "xai", "cerebras", "mistral", "zai", "deepseek", "ollama", "openrouter"],
)
async def test_an_answer_has_the_servers_recorded_key_paths(provider: str) -> None:
    real = REAL[provider]
    expected = set(real["paths"])
    if NOT_REASONING in real.get("left_out", ""):
        expected = {p for p in expected if not p.endswith(REASONING_PATHS)}
    answer = (await _post(provider, say("Olá!"), {"messages": USER})).json()
    assert key_paths(answer) == expected | KEPT_EXTRA.get(provider, set())


def _chunks(text: str) -> list[dict[str, Any]]:
    blocks = [b for b in text.split("\n\n") if b.startswith("data: ")]
    return [json.loads(b[6:]) for b in blocks if b != "data: [DONE]"]


def _kind(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or []
    delta = choices[0].get("delta") or {} if choices else {}
    if not choices:
        return "usage"
    if choices[0].get("finish_reason"):
        return "finish"
    if delta.get("tool_calls"):
        return "tool_calls"
    return "content" if delta.get("content") else "role"


@pytest.mark.parametrize(
    ("provider", "entry", "text"),
    [
        ("groq", "groq_tool_stream", "I'll check"),
        ("openrouter", "openrouter_tool_stream", None),
        ("openrouter", "openrouter_text_stream", "It is sunny"),
    ],
)
async def test_a_stream_has_the_servers_recorded_chunks_in_order(
    provider: str, entry: str, text: str | None
) -> None:
    real = REAL[entry]
    step = call_tools(ScriptedToolCall("weather", {"location": "Florence"}), text=text)
    if "tool_calls" not in real["order"]:
        step = say(text or "")
    body = {"messages": USER, "stream": True, "stream_options": {"include_usage": True}}
    response = await _post(provider, step, body)
    chunks = _chunks(response.text)
    order: list[str] = []
    paths: dict[str, set[str]] = {}
    for chunk in chunks:
        kind = _kind(chunk)
        if not order or order[-1] != kind:
            order.append(kind)
        paths.setdefault(kind, set()).update(key_paths(chunk))
    assert order == real["order"]
    assert paths == {kind: set(p) for kind, p in real["chunks"].items()}


async def test_groqs_unknown_model_404_has_no_param() -> None:
    fake = FakeProvider("groq", "llama-3.3-70b-versatile", context_window=100_000)
    transport = asgi_transport(fake)
    async with httpx.AsyncClient(transport=transport, base_url="http://fake.test") as client:
        body = {"model": "llama-3.3-70b-versatlie", "messages": USER}
        response = await client.post("/openai/v1/chat/completions", json=body)
    assert response.status_code == 404
    assert set(response.json()["error"]) == {"code", "message", "type"}
