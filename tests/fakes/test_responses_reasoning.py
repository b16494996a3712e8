"""OpenAI Responses: a request that reasons (``reasoning.effort`` sent, or a gpt-5 model)
gets the ``reasoning`` output item first, plain and streamed, with the real events and the
model's echoed defaults (``fidelity/responses_reasoning.json``: gpt-5 streamed, o3-mini
asked, both cited); one that does not reason gets none."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakes import FakeProvider, FakeScript, ScriptedToolCall, call_tools, say
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture, key_paths

pytestmark = pytest.mark.anyio

REAL = fixture("responses_reasoning.json")
ADD_AND_MULTIPLY = call_tools(
    ScriptedToolCall("add", {"a": 2, "b": 3}), ScriptedToolCall("multiply", {"a": 2, "b": 3})
)


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def _by_type(events: list[dict[str, Any]]) -> dict[str, set[str]]:
    shapes: dict[str, set[str]] = {}
    for event in events:
        shapes.setdefault(event["type"], set()).update(key_paths(event))
    return shapes


def _types(output: list[dict[str, Any]]) -> list[str]:
    return [item["type"] for item in output]


async def test_gpt5_streams_the_reasoning_item_first_as_recorded(connect: Connect) -> None:
    real = REAL["stream"]
    fake = FakeProvider("openai", "gpt-5", script=FakeScript((ADD_AND_MULTIPLY,)))
    client, _ = await connect(fake)
    events = _events((await client.post("/v1/responses", json=real["request"])).text)
    assert [e["type"] for e in events] == [e["type"] for e in real["events"]]
    fake_shapes, real_shapes = _by_type(events), _by_type(real["events"])
    for kind, paths in real_shapes.items():
        assert fake_shapes[kind] == paths, kind
    assert [e.get("output_index") for e in events] == [
        e.get("output_index") for e in real["events"]
    ]
    done, recorded = events[-1]["response"], real["events"][-1]["response"]
    assert _types(done["output"]) == _types(recorded["output"])
    assert done["reasoning"] == recorded["reasoning"]  # gpt-5's defaults, unasked


async def test_a_request_asking_for_reasoning_gets_the_item_in_a_plain_answer(
    connect: Connect,
) -> None:
    real = REAL["body"]
    fake = FakeProvider("openai", "o3-mini", script=FakeScript((say("Alfajores."),)))
    client, _ = await connect(fake)
    body = (await client.post("/v1/responses", json=real["request"])).json()
    assert _types(body["output"]) == _types(real["response"]["output"])
    (item, recorded) = body["output"][0], real["response"]["output"][0]
    assert key_paths(item) >= key_paths(recorded)  # the newer item adds ``content``
    streamed_item = REAL["stream"]["events"][2]["item"]
    assert key_paths(item) == key_paths(streamed_item)
    assert item["id"].startswith("rs_")
    assert body["reasoning"]["effort"] == "low"  # as sent


@pytest.mark.parametrize(
    ("model", "reasoning"),
    [("gpt-4o-mini", None), ("gpt-5", {"effort": "none"})],
)
async def test_a_request_that_does_not_reason_gets_no_reasoning_item(
    connect: Connect, model: str, reasoning: dict[str, str] | None
) -> None:
    client, _ = await connect(FakeProvider("openai", model))
    request: dict[str, Any] = {"model": model, "input": "hi"}
    if reasoning is not None:
        request["reasoning"] = reasoning
    body = (await client.post("/v1/responses", json=request)).json()
    assert _types(body["output"]) == ["message"]
    streamed = _events((await client.post("/v1/responses", json={**request, "stream": True})).text)
    assert next(e["output_index"] for e in streamed if "output_index" in e) == 0
    assert all(e.get("item", {}).get("type") != "reasoning" for e in streamed)


async def test_gpt5_answering_its_tool_results_gives_no_reasoning_item(connect: Connect) -> None:
    real = REAL["after_tools"]
    fake = FakeProvider("openai", "gpt-5", script=FakeScript((say("Results: 5 and 6."),)))
    client, _ = await connect(fake)
    events = _events((await client.post("/v1/responses", json=real["request"])).text)
    done, recorded = events[-1]["response"], real["completed"]["response"]
    assert _types(done["output"]) == _types(recorded["output"]) == ["message"]
    assert done["reasoning"] == recorded["reasoning"]  # reasoning is on, the model's defaults
