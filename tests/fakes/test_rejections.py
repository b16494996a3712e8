"""The fakes refuse what the real APIs refuse, with their bodies
(``fidelity/rejections.json``, each record or thread cited): a Responses reasoning item
without its following item, Chat Completions ``web_search_options`` on a model that does
not search, numbers out of the API's ranges (OpenAI's ``Invalid '<param>': ... below
minimum value`` form, Anthropic's temperature range)."""

from __future__ import annotations

from typing import Any

import pytest

from fakes import FakeProvider
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture

pytestmark = pytest.mark.anyio

REAL = fixture("rejections.json")
PROVIDER = {
    "/v1/responses": "openai",
    "/v1/chat/completions": "openai",
    "/v1/messages": "anthropic",
}


async def _send(connect: Connect, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    client, _ = await connect(FakeProvider(PROVIDER[path], str(body["model"])))
    answer = await client.post(path, json=body)
    return answer.status_code, answer.json()


@pytest.mark.parametrize(
    "name",
    [
        "reasoning_without_following_item",
        "web_search_options_unsupported",
        "anthropic_temperature_range",
    ],
)
async def test_a_recorded_refusal_gets_the_real_status_and_body(
    connect: Connect, name: str
) -> None:
    real = REAL[name]
    status, body = await _send(connect, real["path"], real["request"])
    if real["path"] == "/v1/messages":  # the thread predates Anthropic's request_id
        assert body.pop("request_id").startswith("req_")
    assert (status, body) == (real["status"], real["body"])


async def test_an_out_of_range_number_gets_openais_message(connect: Connect) -> None:
    real = REAL["max_output_tokens_below_min"]
    status, body = await _send(connect, real["path"], real["request"])
    assert status == real["status"]
    # the relay of the thread printed ``>=16``; the API's own messages space it
    assert body["error"]["message"].replace(">= ", ">=") == real["message"].replace(">= ", ">=")
    assert body["error"]["param"] == "max_output_tokens"
    assert body["error"]["code"] == "integer_below_min_value"


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        ("temperature", -1, "decimal below minimum value. Expected a value >= 0, but got -1"),
        ("temperature", 2.5, "decimal above maximum value. Expected a value <= 2, but got 2.5"),
        ("top_p", 1.5, "decimal above maximum value. Expected a value <= 1, but got 1.5"),
    ],
)
async def test_responses_ranges(connect: Connect, param: str, value: float, message: str) -> None:
    status, body = await _send(
        connect, "/v1/responses", {"model": "m", "input": "hi", param: value}
    )
    assert status == 400
    assert body["error"]["message"] == f"Invalid '{param}': {message} instead."
    assert body["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("value", [0, 1, 2, 0.7])
async def test_a_number_in_range_is_answered(connect: Connect, value: float) -> None:
    status, _ = await _send(
        connect, "/v1/responses", {"model": "m", "input": "hi", "temperature": value}
    )
    assert status == 200


async def test_a_reasoning_item_with_its_following_item_is_answered(connect: Connect) -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"}
    kept = {"type": "message", "id": "msg_1", "role": "assistant", "content": "42"}
    call = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    user = {"role": "user", "content": "more?"}
    for items in ([user, reasoning, kept, user], [user, reasoning, call, output]):
        status, body = await _send(connect, "/v1/responses", {"model": "m", "input": items})
        assert status == 200, body
    status, _ = await _send(connect, "/v1/responses", {"model": "m", "input": [user, reasoning]})
    assert status == 400  # nothing follows it


async def test_a_search_model_takes_web_search_options(connect: Connect) -> None:
    body = {
        "model": "gpt-4o-search-preview",
        "messages": [{"role": "user", "content": "hi"}],
        "web_search_options": {},
    }
    status, _ = await _send(connect, "/v1/chat/completions", body)
    assert status == 200


async def test_anthropic_temperature_below_zero_is_refused(connect: Connect) -> None:
    body = {
        "model": "c",
        "max_tokens": 64,
        "temperature": -1,
        "messages": [{"role": "user", "content": "hi"}],
    }
    status, answer = await _send(connect, "/v1/messages", body)
    assert status == 400
    assert answer["error"]["type"] == "invalid_request_error"
