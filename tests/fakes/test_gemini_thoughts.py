"""Gemini 2.5 / 3 thinking as the real answers report it (``fidelity/gemini_thoughts.json``):
``thoughtsTokenCount`` (in ``totalTokenCount``) and the first function call's
``thoughtSignature`` on a turn answering the user's text; neither on a turn answering
function responses, with ``thinkingBudget: 0``, or from a model that does not think."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from fakes import FakeProvider, FakeScript, ScriptedToolCall, asgi_transport, call_tools, say
from tests.fakes.shapes import fixture

pytestmark = pytest.mark.anyio

CALL = {"functionCall": {"name": "weather", "args": {"location": "Florence"}}}
RESPONSE = {"functionResponse": {"name": "weather", "response": {"content": "40 C"}}}


def _contents(last_parts: list[str]) -> list[dict[str, Any]]:
    if "functionResponse" not in last_parts:
        return [{"role": "user", "parts": [{"text": "What's the weather?"}]}]
    return [
        {"role": "user", "parts": [{"text": "What's the weather?"}]},
        {"role": "model", "parts": [CALL] * len(last_parts)},
        {"role": "user", "parts": [RESPONSE] * len(last_parts)},
    ]


def _step(parts: list[list[str]]) -> Any:
    if parts[0][0] == "text":
        return say("Olá!")
    calls = [ScriptedToolCall("weather", {"location": f"city {n}"}) for n in range(len(parts))]
    return call_tools(*calls)


async def _answer(model: str, step: Any, body: dict[str, Any]) -> dict[str, Any]:
    fake = FakeProvider("gemini", model, context_window=100_000, script=FakeScript((step,)))
    transport = asgi_transport(fake)
    async with httpx.AsyncClient(transport=transport, base_url="http://fake.test") as client:
        response = await client.post(f"/v1beta/models/{model}:generateContent", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize(
    "real", fixture("gemini_thoughts.json")["answers"], ids=lambda r: r["record"]
)
async def test_thoughts_are_reported_where_the_real_answers_report_them(
    real: dict[str, Any],
) -> None:
    body = {"contents": _contents(real["last_parts"])}
    answer = await _answer(real["model"], _step(real["parts"]), body)
    usage = answer["usageMetadata"]
    assert ("thoughtsTokenCount" in usage) is real["thoughts"]
    thoughts = usage.get("thoughtsTokenCount", 0)
    assert (
        usage["totalTokenCount"]
        == usage["promptTokenCount"] + usage["candidatesTokenCount"] + thoughts
    )
    parts = answer["candidates"][0]["content"]["parts"]
    assert [list(p) for p in parts] == real["parts"]


async def test_a_zero_thinking_budget_turns_thinking_off() -> None:
    call = ScriptedToolCall("weather", {"location": "Florence"})
    body = {
        "contents": _contents(["text"]),
        "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}},
    }
    answer = await _answer("gemini-2.5-flash", call_tools(call), body)
    assert "thoughtsTokenCount" not in answer["usageMetadata"]
    assert [list(p) for p in answer["candidates"][0]["content"]["parts"]] == [["functionCall"]]
