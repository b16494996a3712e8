"""Many sessions at once: interleaved sessions keep their own call order, concurrent
clients each get their own answer, and two proxies share one upstream."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
from starlette.types import ASGIApp

from fakes.pytest_plugin import FakeServerFactory
from tests.proxy.conftest import DerivingObserver, ProxyFactory
from tests.proxy.upstreams import echo_app

ServeApp = Callable[[ASGIApp], str]
SESSION = "x-trimscope-session"


def _chat(text: str) -> dict[str, object]:
    return {"model": "m", "messages": [{"role": "user", "content": text}]}


def test_interleaved_sessions_are_observed_each_in_its_own_order(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    proxy = start_proxy(fake.base_url + "/v1", observer=DerivingObserver())
    order = ["a", "b", "a", "c", "b", "a"]
    with httpx.Client(base_url=proxy.url) as client:
        for session in order:
            answer = client.post("/v1/chat/completions", json=_chat(session),
                                 headers={SESSION: session})  # fmt: skip
            assert answer.status_code == 200
    findings = [f for _, found, _ in proxy.kept.wait(len(order)).seen for f in found]
    assert [(f.session, f.call) for f in findings] == [
        ("a", 1), ("b", 1), ("a", 2), ("c", 1), ("b", 2), ("a", 3)
    ]  # fmt: skip


def test_fifty_concurrent_clients_each_get_their_own_answer(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    proxy = start_proxy(serve_app(echo_app()))
    sessions = [f"s{index}" for index in range(50)]

    async def one(client: httpx.AsyncClient, session: str) -> tuple[str, str]:
        answer = await client.post("/chat", content=session.encode(), headers={SESSION: session})
        return session, answer.json()["body"]

    async def all_at_once() -> list[tuple[str, str]]:
        limits = httpx.Limits(max_connections=len(sessions))
        async with httpx.AsyncClient(base_url=proxy.url, limits=limits) as client:
            return await asyncio.gather(*(one(client, s) for s in sessions))

    assert all(sent == echoed for sent, echoed in asyncio.run(all_at_once()))
    kept = proxy.kept.wait(len(sessions))
    seen = sorted(e.request_headers[SESSION] for e in kept.exchanges)
    assert seen == sorted(sessions)
    assert all(e.request_body == e.request_headers[SESSION].encode() for e in kept.exchanges)


def test_two_proxies_share_one_upstream(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    first = start_proxy(fake.base_url + "/v1", observer=DerivingObserver())
    second = start_proxy(fake.base_url + "/v1", observer=DerivingObserver())
    for proxy, session in ((first, "a"), (second, "b"), (first, "a"), (second, "b")):
        answer = httpx.post(proxy.url + "/v1/chat/completions", json=_chat(session),
                            headers={SESSION: session})  # fmt: skip
        assert answer.status_code == 200
    assert len(fake.log) == 4
    for proxy, session in ((first, "a"), (second, "b")):
        found = [f for _, fs, _ in proxy.kept.wait(2).seen for f in fs]
        assert [(f.session, f.call) for f in found] == [(session, 1), (session, 2)]
