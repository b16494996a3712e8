"""OpenAI Responses streams: every event type the fake sends has the keys of the real
event of that type (``fidelity/responses_stream.json``: a text stream and a function-call
stream, cited), ``logprobs`` and ``obfuscation`` included; the request's
``stream_options.include_obfuscation: false`` drops ``obfuscation``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakes import FakeProvider, FakeScript, ScriptedToolCall, call_tools, say
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture, key_paths

pytestmark = pytest.mark.anyio

REAL = fixture("responses_stream.json")


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def _by_type(events: list[dict[str, Any]]) -> dict[str, set[str]]:
    shapes: dict[str, set[str]] = {}
    for event in events:
        shapes.setdefault(event["type"], set()).update(key_paths(event))
    return shapes


@pytest.mark.parametrize("case", ["text", "tool"])
async def test_each_event_type_has_the_real_events_keys(connect: Connect, case: str) -> None:
    real = REAL[case]
    step = say("Hi in Portuguese is Oi!")
    if case == "tool":
        step = call_tools(ScriptedToolCall("weather", {"location": "Florence, Italy"}))
    fake = FakeProvider("openai", "gpt-4o-mini", script=FakeScript((step,)))
    client, _ = await connect(fake)
    answer = await client.post("/v1/responses", json=real["request"])
    fake_shapes, real_shapes = _by_type(_events(answer.text)), _by_type(real["events"])
    assert set(fake_shapes) == set(real_shapes)
    for kind, paths in real_shapes.items():
        assert fake_shapes[kind] == paths, kind


async def test_include_obfuscation_false_drops_the_padding(connect: Connect) -> None:
    client, _ = await connect(FakeProvider("openai", "m"))
    body = {"model": "m", "input": "hi", "stream": True}
    padded = _events((await client.post("/v1/responses", json=body)).text)
    plain_body = {**body, "stream_options": {"include_obfuscation": False}}
    plain = _events((await client.post("/v1/responses", json=plain_body)).text)
    deltas = [e for e in padded if e["type"].endswith(".delta")]
    assert deltas
    assert all(len(e["delta"]) + len(e["obfuscation"]) == 16 for e in deltas)
    assert not any("obfuscation" in e for e in plain)
