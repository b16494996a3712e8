"""A model the provider does not serve gets the real status and body: OpenAI Responses and
Bedrock answer 400 (Responses naming ``param: "model"``), Chat Completions 404
(``fidelity/unknown_model.json``, each record cited)."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from fakes import FakeProvider
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture

pytestmark = pytest.mark.anyio

REAL = fixture("unknown_model.json")


def _request(wire: str, model: str) -> tuple[str, dict[str, object]]:
    user = {"role": "user", "content": "hi"}
    if wire == "openai_responses":
        return "/v1/responses", {"model": model, "input": "hi"}
    if wire == "bedrock":
        body: dict[str, object] = {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}
        return f"/model/{quote(model, safe='')}/converse", body
    return "/v1/chat/completions", {"model": model, "messages": [user]}


@pytest.mark.parametrize(
    ("provider", "wire"),
    [("openai", "openai_responses"), ("bedrock", "bedrock"), ("openai", "openai_chat")],
)
async def test_unknown_model_gets_the_real_status_and_body(
    connect: Connect, provider: str, wire: str
) -> None:
    real = REAL[wire]
    client, _ = await connect(FakeProvider(provider, "served-model"))
    path, body = _request(wire, real["model"])
    answer = await client.post(path, json=body)
    assert answer.status_code == real["status"]
    assert answer.json() == real["body"]
