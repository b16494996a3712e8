"""The request log: what came in, what was counted with which counter, what went out."""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from fakes import (
    Exchange,
    FakeProvider,
    FakeScript,
    FakeServer,
    RequestLog,
    Row,
    fail,
    serve_forever,
)
from fakes.serving.log import SERVED_EXCHANGES
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


def _exchange(index: int) -> Exchange:
    return Exchange(index, "POST", "/v1/chat/completions", {}, {}, "provider", 100, None,
                    "reply", 200, {}, {})  # fmt: skip


def test_a_bounded_log_keeps_the_last_exchanges_and_counts_the_rest() -> None:
    log = RequestLog(keep=3)
    for index in range(5):
        log.record(_exchange(index))
    assert [e.call_index for e in log.entries()] == [2, 3, 4]
    assert (len(log), log.dropped, log.last().call_index) == (3, 2, 4)
    log.keep_last(1)
    assert ([e.call_index for e in log.calls()], log.dropped) == ([4], 4)
    log.clear()
    assert (len(log), log.dropped) == (0, 0)
    assert RequestLog().keep is None  # in process: every exchange of a run


def test_a_served_fake_keeps_only_its_last_exchanges() -> None:
    """Issue 28: ``serve_forever`` (``trimscope fake serve``) kept every request it ever
    answered; it keeps the last ``SERVED_EXCHANGES`` and counts the others."""
    fake = FakeProvider("openai", "m", context_window=1000)
    extra = 2
    failures: list[BaseException] = []

    def post_then_stop(url: str) -> None:
        try:
            with httpx.Client(base_url=url, timeout=10.0) as client:
                for _ in range(SERVED_EXCHANGES + extra):
                    client.post("/v1/chat/completions", json=BODY).raise_for_status()
        except BaseException as error:  # reported by the test below
            failures.append(error)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # serve_forever's own stop

    serve_forever(
        fake, on_ready=lambda url: threading.Thread(target=post_then_stop, args=(url,)).start()
    )
    assert failures == []
    assert (len(fake.log), fake.log.dropped) == (SERVED_EXCHANGES, extra)
    assert fake.log.last().call_index == SERVED_EXCHANGES + extra - 1
