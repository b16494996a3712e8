"""OpenAI Responses state: ``store`` (default true), ``previous_response_id`` (the stored
response's input and output come before this request's input), ``GET`` / ``DELETE
/v1/responses/{id}``, the real not-found answers, and a bounded (LRU) store."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import FakeProvider, FakeScript, say
from fakes.simulations.responses_store import STORED_RESPONSES_LIMIT, ResponseStore, StoredResponse
from tests.fakes.conftest import Connect
from tests.fakes.shapes import fixture, key_paths

pytestmark = pytest.mark.anyio

MODEL = "gpt-test"
STATE = fixture("responses_state.json")


def _fake() -> FakeProvider:
    return FakeProvider("openai", MODEL, script=FakeScript(default=say("Noted.")))


async def _create(client: httpx.AsyncClient, **body: Any) -> httpx.Response:
    return await client.post("/v1/responses", json={"model": MODEL, **body})


async def test_store_defaults_to_true_and_get_returns_the_response_as_answered(
    connect: Connect,
) -> None:
    client, _ = await connect(_fake())
    created = (await _create(client, input="Hello")).json()
    assert created["store"] is True
    assert created["previous_response_id"] is None
    got = await client.get(f"/v1/responses/{created['id']}")
    assert got.status_code == 200
    assert got.json() == created


async def test_previous_response_id_puts_the_stored_input_and_output_first(
    connect: Connect,
) -> None:
    fake = _fake()
    client, _ = await connect(fake)
    first = (await _create(client, instructions="Be brief.", input="Hello")).json()
    chained = (await _create(client, input="And then?", previous_response_id=first["id"])).json()
    whole = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "And then?"},
    ]
    explicit = (await _create(client, input=whole)).json()
    assert chained["previous_response_id"] == first["id"]
    assert chained["usage"]["input_tokens"] == explicit["usage"]["input_tokens"]
    rows = [call.rows for call in fake.log.calls()]
    assert rows[1] == rows[2]  # the instructions are not carried over
    assert [r.role for r in rows[1]] == ["user", "assistant", "user"]


async def test_a_chain_of_three_counts_the_whole_conversation(connect: Connect) -> None:
    fake = _fake()
    client, _ = await connect(fake)
    previous = None
    for turn in range(3):
        extra: dict[str, Any] = {"previous_response_id": previous} if previous else {}
        previous = (await _create(client, input=f"turn {turn}", **extra)).json()["id"]
    assert [r.content for r in fake.log.calls()[-1].rows] == [
        "turn 0",
        "Noted.",
        "turn 1",
        "Noted.",
        "turn 2",
    ]


async def test_a_streamed_response_is_stored_as_its_completed_event_says(
    connect: Connect,
) -> None:
    client, _ = await connect(_fake())
    streamed = await _create(client, input="Hello", stream=True)
    events = [json.loads(line[6:]) for line in streamed.text.splitlines() if line[:6] == "data: "]
    completed = next(e["response"] for e in events if e["type"] == "response.completed")
    assert all(e["response"]["store"] is True for e in events if "response" in e)
    got = await client.get(f"/v1/responses/{completed['id']}")
    assert got.json() == completed


async def test_store_false_responses_are_neither_retrievable_nor_chainable(
    connect: Connect,
) -> None:
    client, _ = await connect(_fake())
    created = (await _create(client, input="Hello", store=False)).json()
    assert created["store"] is False
    assert (await client.get(f"/v1/responses/{created['id']}")).status_code == 404
    chained = await _create(client, input="More", previous_response_id=created["id"])
    assert chained.status_code == 400
    assert chained.json()["error"]["code"] == "previous_response_not_found"


async def test_unknown_previous_response_id_is_the_real_400(connect: Connect) -> None:
    client, _ = await connect(_fake())
    answer = await _create(client, input="More", previous_response_id="resp_abc")
    real = STATE["previous_response_not_found"]
    assert answer.status_code == real["status"]
    assert answer.json() == real["body"]


async def test_delete_answers_the_real_shape_then_the_id_is_gone(connect: Connect) -> None:
    client, _ = await connect(_fake())
    created = (await _create(client, input="Hello")).json()
    deleted = await client.delete(f"/v1/responses/{created['id']}")
    assert deleted.status_code == 200
    assert key_paths(deleted.json()) == key_paths(STATE["deleted"])
    assert deleted.json() == {"id": created["id"], "object": "response", "deleted": True}
    for again in (client.get, client.delete):
        gone = await again(f"/v1/responses/{created['id']}")
        assert gone.status_code == 404
        error = gone.json()["error"]
        assert error["message"] == f"Response with id '{created['id']}' not found."
        assert (error["type"], error["param"], error["code"]) == (
            "invalid_request_error",
            None,
            None,
        )


async def test_store_of_the_wrong_type_is_a_400(connect: Connect) -> None:
    client, _ = await connect(_fake())
    answer = await _create(client, input="Hello", store="yes")
    assert answer.status_code == 400
    assert "store" in answer.json()["error"]["message"]


async def test_the_store_is_bounded_and_a_chain_to_an_evicted_response_fails(
    connect: Connect,
) -> None:
    fake = _fake()
    assert fake.responses.limit == STORED_RESPONSES_LIMIT
    fake.responses = ResponseStore(limit=2)
    client, _ = await connect(fake)
    ids = [(await _create(client, input=f"n{n}")).json()["id"] for n in range(3)]
    assert len(fake.responses) == 2
    assert (await client.get(f"/v1/responses/{ids[0]}")).status_code == 404
    evicted = await _create(client, input="x", previous_response_id=ids[0])
    assert evicted.json()["error"]["code"] == "previous_response_not_found"


async def test_reset_forgets_the_stored_responses(connect: Connect) -> None:
    fake = _fake()
    client, _ = await connect(fake)
    created = (await _create(client, input="Hello")).json()
    fake.reset()
    assert (await client.get(f"/v1/responses/{created['id']}")).status_code == 404


_OPS = st.lists(st.tuples(st.sampled_from(["put", "get", "delete"]), st.integers(0, 3)))


@given(st.integers(1, 3), _OPS)
def test_the_store_keeps_the_most_recently_used_responses_up_to_its_limit(
    limit: int, ops: list[tuple[str, int]]
) -> None:
    store, model = ResponseStore(limit), list[str]()
    for op, n in ops:
        key = f"resp_{n}"
        if op == "put":
            store.put(key, StoredResponse((), {"id": key}))
            model = [k for k in model if k != key] + [key]
            model = model[-limit:]
        elif op == "get":
            assert (store.get(key) is not None) == (key in model)
            model = [k for k in model if k != key] + ([key] if key in model else [])
        else:
            assert store.delete(key) == (key in model)
            model = [k for k in model if k != key]
        assert store.ids() == tuple(model)
        assert len(store) <= limit


async def test_a_chained_request_that_is_truncated_leaves_the_stored_input_whole(
    connect: Connect,
) -> None:
    fake = FakeProvider("openai", MODEL, context_window=100, script=FakeScript(default=say("ok")))
    client, _ = await connect(fake)
    history = [{"role": "user", "content": f"message number {n} " * 4} for n in range(4)]
    first = (await _create(client, input=history)).json()
    stored = (await client.get(f"/v1/responses/{first['id']}")).json()
    chained = await _create(
        client, input="and now? " * 10, previous_response_id=first["id"], truncation="auto"
    )
    assert chained.status_code == 200
    assert len(fake.log.calls()[-1].rows) < len(history) + 2  # the model saw fewer items
    assert (await client.get(f"/v1/responses/{first['id']}")).json() == stored
    kept = fake.responses.get(chained.json()["id"])
    assert kept is not None
    assert len(kept.input) == len(history) + 2  # the conversation as sent, whole
