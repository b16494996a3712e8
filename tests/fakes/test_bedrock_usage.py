"""Bedrock Converse usage names the cache counts as the real answers do
(``fidelity/bedrock_usage.json``, cited): Claude under both names, always; another model
only when something was cached, under AWS's documented names."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from fakes import FakeProvider
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture

pytestmark = pytest.mark.anyio

REAL = fixture("bedrock_usage.json")
LONG = "a long system prompt, cached on the second call " * 200


async def _usage(connect: Connect, model: str, body: dict[str, Any]) -> dict[str, Any]:
    client, _ = await connect(FakeProvider("bedrock", model, caching=None))
    answer = await client.post(f"/model/{quote(model, safe='')}/converse", json=body)
    assert answer.status_code == 200, answer.text
    usage: dict[str, Any] = answer.json()["usage"]
    return usage


@pytest.mark.parametrize("case", ["nova", "claude"])
async def test_usage_has_the_real_answers_keys(connect: Connect, case: str) -> None:
    real = REAL[case]
    body = {"messages": [{"role": "user", "content": [{"text": "Hello!"}]}]}
    usage = await _usage(connect, real["model"], body)
    assert set(usage) == set(real["usage"])


async def test_a_model_that_cached_reports_the_documented_names(connect: Connect) -> None:
    """The fake's automatic prefix caching stands in for Nova's ``cachePoint`` (not
    modelled): what is checked is how the counts are named once something was cached."""
    client, _ = await connect(FakeProvider("bedrock", REAL["nova"]["model"], caching="openai"))
    path = f"/model/{quote(REAL['nova']['model'], safe='')}/converse"
    body = {
        "system": [{"text": LONG}],
        "messages": [{"role": "user", "content": [{"text": "Hello!"}]}],
    }
    first = (await client.post(path, json=body)).json()["usage"]
    second = (await client.post(path, json=body)).json()["usage"]
    assert "cacheReadInputTokens" not in first  # nothing cached yet
    assert second["cacheReadInputTokens"] > 0
    assert "cacheWriteInputTokens" in second
    assert "cacheReadInputTokenCount" not in second
