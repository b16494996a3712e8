"""Every look-alike over a real connection (the plugin's ``fake_server`` fixture): status,
headers and body as catalogued; none carries an overflow's structured code or match."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from fakes import LOOK_ALIKES, OVERFLOWS, FakeScript, LookAlike, fail
from fakes.pytest_plugin import RunningFake
from fakes.scripting.templates import render
from tests.fakes.wire_requests import path_for, user_request

_PROVIDER = {
    "openai_chat": "openai",
    "openai_responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
}


@pytest.mark.parametrize("entry", LOOK_ALIKES, ids=lambda e: e.name)
def test_look_alike_is_answered_as_catalogued(
    entry: LookAlike, fake_server: Callable[..., RunningFake]
) -> None:
    script = FakeScript(steps=(fail("look_alike", name=entry.name, retry_after=4),))
    running = fake_server(_PROVIDER[entry.wire], "m", context_window=1000, script=script)
    url = running.base_url + path_for(running.fake.profile, entry.wire, "m")
    response = httpx.post(url, json=user_request(entry.wire, "m", "hello"), timeout=10.0)
    uid, request_id = running.fake.ids(0)
    numbers = {"model": "m", "input": 6, "retry_after": 4, "uuid": uid, "request_id": request_id}
    assert response.status_code == entry.status
    for name, value in entry.headers.items():
        assert response.headers[name] == value.format_map(numbers)
    assert response.json() == render(entry.body, numbers)
    assert running.log.last().fault == f"look_alike:{entry.name}"


@pytest.mark.parametrize("entry", LOOK_ALIKES, ids=lambda e: e.name)
def test_look_alike_is_not_an_overflow_by_the_catalogues_own_keys(entry: LookAlike) -> None:
    text = json.dumps(
        render(
            entry.body, {"model": "m", "input": 1, "retry_after": 1, "uuid": "u", "request_id": "r"}
        )
    )
    assert "context_length_exceeded" not in text
    phrases = {e.match for e in OVERFLOWS if "=" not in e.match and " < " not in e.match}
    assert not [p for p in phrases if p.lower() in text.lower()]
