"""The Responses response object repeats the request's settings, with the API's defaults
for those not sent: the fake's object has the real object's keys (``fidelity/
responses_object.json``: a JSON body and a streamed ``response.completed``, each cited),
and the settings a request sends come back as sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakes import FakeProvider
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture, key_paths

pytestmark = pytest.mark.anyio

REAL = fixture("responses_object.json")
# Values the fake does not reproduce: the model's snapshot name and output are its own.
VALUES_NOT_COMPARED = {"id", "created_at", "completed_at", "model", "output", "usage"}


def _top_level(response: dict[str, Any]) -> dict[str, str]:
    """The compared values as JSON text: ``1`` and ``1.0`` differ on the wire."""
    return {
        k: json.dumps(v, sort_keys=True)
        for k, v in response.items()
        if k not in VALUES_NOT_COMPARED
    }


def _completed(text: str) -> dict[str, Any]:
    for line in text.splitlines():
        if line.startswith("data: ") and '"response.completed"' in line:
            event: dict[str, Any] = json.loads(line[6:])
            return dict(event["response"])
    raise AssertionError("no response.completed event")


@pytest.mark.parametrize("case", ["body", "streamed"])
async def test_the_response_object_has_the_real_keys_and_defaults(
    connect: Connect, case: str
) -> None:
    real = REAL[case]
    client, _ = await connect(FakeProvider("openai", "gpt-4o-mini"))
    answer = await client.post("/v1/responses", json=real["request"])
    fake = _completed(answer.text) if case == "streamed" else answer.json()
    fake["output"] = []
    assert key_paths(fake) - key_paths(real["response"]) == set()
    assert key_paths(real["response"]) - key_paths(fake) == set()
    assert _top_level(fake) == _top_level(real["response"])


async def test_the_settings_sent_come_back_as_sent(connect: Connect) -> None:
    client, _ = await connect(FakeProvider("openai", "m"))
    sent = {
        "instructions": "Be brief.",
        "temperature": 0.2,
        "top_p": 0.5,
        "metadata": {"run": "7"},
        "parallel_tool_calls": False,
        "tool_choice": "none",
        "truncation": "auto",
        "text": {"verbosity": "low"},
        "reasoning": {"effort": "high"},
        "prompt_cache_key": "k",
        "user": "u",
    }
    response = (
        await client.post("/v1/responses", json={"model": "m", "input": "hi", **sent})
    ).json()
    for key in ("instructions", "temperature", "top_p", "metadata", "parallel_tool_calls"):
        assert response[key] == sent[key]
    assert (response["tool_choice"], response["truncation"]) == ("none", "auto")
    assert response["text"] == {"format": {"type": "text"}, "verbosity": "low"}
    assert response["reasoning"] == {"context": None, "effort": "high", "summary": None}
    assert (response["prompt_cache_key"], response["user"]) == ("k", "u")


async def test_completed_at_is_set_only_once_the_response_is_done(connect: Connect) -> None:
    client, _ = await connect(FakeProvider("openai", "m"))
    streamed = await client.post(
        "/v1/responses", json={"model": "m", "input": "hi", "stream": True}
    )
    events = [json.loads(line[6:]) for line in streamed.text.splitlines() if line[:6] == "data: "]
    objects = [e["response"] for e in events if "response" in e]
    assert [o["completed_at"] is not None for o in objects] == [False, False, True]
    assert all("billing" not in o for o in objects)
