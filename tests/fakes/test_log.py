"""The request log: what came in, what was counted with which counter, what went out."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from fakes import FakeProvider, FakeScript, FakeServer, Row, fail
from tests.fakes.conftest import Connect
from tests.fakes.wire_requests import text_for_tokens

BODY = {
    "model": "m",
    "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}],
}


@pytest.mark.anyio
async def test_each_exchange_records_request_count_and_answer(connect: Connect) -> None:
    fake = FakeProvider(
        "openai",
        "m",
        context_window=100,
        counter="provider",
        script=FakeScript(steps=(fail("rate_limit"),)),
    )
    client, _ = await connect(fake)
    await client.post("/v1/chat/completions", json=BODY)
    await client.post("/v1/chat/completions", json=BODY)
    big = {"model": "m", "messages": [{"role": "user", "content": text_for_tokens(300)}]}
    await client.post("/v1/chat/completions", json=big)
    limited, replied, overflowed = fake.log.calls()
    assert (limited.status, limited.fault, limited.outcome) == (429, "rate_limit", "fault")
    assert replied.request_body == BODY
    assert replied.rows == (Row("system", "be brief"), Row("user", "hello"))
    assert replied.counter == "provider"
    assert replied.tokens is not None
    assert replied.tokens.total == fake.counter.count_rows(replied.rows)
    body = replied.response_body
    assert isinstance(body, dict)
    usage = body["usage"]
    assert isinstance(usage, dict)
    assert usage["prompt_tokens"] == replied.tokens.total
    assert (overflowed.outcome, overflowed.status, overflowed.window) == ("overflow", 400, 100)
    assert [e.call_index for e in fake.log.calls()] == [0, 1, 2]


def test_concurrent_requests_are_each_logged_once() -> None:
    fake = FakeProvider("openai", "m", context_window=1000)

    def post(client: httpx.Client) -> int:
        return client.post("/v1/chat/completions", json=BODY).status_code

    with (
        FakeServer(fake) as server,
        httpx.Client(base_url=server.base_url, timeout=10.0) as client,
        ThreadPoolExecutor(8) as pool,
    ):
        statuses = list(pool.map(lambda _: post(client), range(40)))
    assert statuses == [200] * 40
    assert sorted(e.call_index or 0 for e in fake.log.calls()) == list(range(40))
    assert all(e.call_index is not None for e in fake.log.calls())
