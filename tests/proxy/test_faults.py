"""Faults answer as the proxy, are observed and counted, and never stop it: an upstream
that is down (a closed port), silent (a server that never answers), broken mid-answer or
answering something that is not JSON (the fakes' scripted faults), and a client that
leaves mid-stream."""

from __future__ import annotations

import socket
from collections.abc import Callable

import httpx
import pytest
from prometheus_client import CollectorRegistry
from starlette.types import ASGIApp

from fakes.pytest_plugin import FakeServerFactory
from fakes.scripting.script import FakeScript, fail
from harness.cli.proxy_metrics import ProxyMetrics
from harness.proxy import ERROR_HEADER
from harness.proxy import names as n
from tests.proxy.conftest import DerivingObserver, ProxyFactory
from tests.proxy.upstreams import EndlessStream, echo_app, silent_app

ServeApp = Callable[[ASGIApp], str]
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_upstream_that_is_down_is_a_502_naming_it_and_counted(
    start_proxy: ProxyFactory,
) -> None:
    registry = CollectorRegistry()
    proxy = start_proxy(f"http://127.0.0.1:{_closed_port()}/v1", sinks=[ProxyMetrics(registry)])
    for _ in range(2):  # the first fault does not stop the proxy
        answer = httpx.post(proxy.url + "/v1/chat/completions", json=CHAT)
        assert answer.status_code == 502
        assert answer.json()["error"]["type"] == "upstream_unreachable"
        assert "cannot connect" in answer.json()["error"]["message"]
        assert answer.headers[ERROR_HEADER] == "upstream_unreachable"
    kept = proxy.kept.wait(2)
    assert [t.outcome for t in kept.traffic] == ["upstream_unreachable"] * 2
    assert kept.exchanges[0].status is None
    assert registry.get_sample_value(f"{n.UPSTREAM_ERRORS}_total", {"reason": "unreachable"}) == 2
    assert registry.get_sample_value(f"{n.REQUESTS}_total", {"status_class": "none"}) == 2


def test_a_silent_upstream_is_a_504_after_the_timeout(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    proxy = start_proxy(serve_app(silent_app()), upstream_timeout_s=0.3)
    answer = httpx.post(proxy.url + "/v1/chat/completions", json=CHAT, timeout=5)
    assert answer.status_code == 504
    assert answer.json()["error"]["type"] == "upstream_timeout"
    assert "0.3 s" in answer.json()["error"]["message"]
    assert proxy.kept.wait().traffic[0].outcome == "upstream_timeout"


def test_a_fake_that_hangs_is_a_504_and_the_proxy_goes_on(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory
) -> None:
    script = FakeScript(steps=(fail("hang", seconds=5),))
    fake = fake_server("openai", "m", context_window=4000, script=script)
    proxy = start_proxy(fake.base_url + "/v1", upstream_timeout_s=0.3)
    assert httpx.post(proxy.url + "/v1/chat/completions", json=CHAT).status_code == 504
    assert httpx.post(proxy.url + "/v1/chat/completions", json=CHAT).status_code == 200


def test_an_answer_that_is_not_json_is_forwarded_as_is_and_observed_unobservable(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory
) -> None:
    fake = fake_server("openai", "m", context_window=4000,
                       script=FakeScript(steps=(fail("malformed_json"),)))  # fmt: skip
    proxy = start_proxy(fake.base_url + "/v1", observer=DerivingObserver())
    answer = httpx.post(proxy.url + "/v1/chat/completions", json=CHAT)
    [(exchange, findings, _)] = proxy.kept.wait().seen
    assert answer.status_code == 200
    assert exchange.response_body == answer.content  # half a JSON object, as sent
    assert [f.kind for f in findings] == ["unobservable"]


def test_a_request_that_is_not_json_is_forwarded_as_is(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    proxy = start_proxy(serve_app(echo_app()), observer=DerivingObserver())
    seen = httpx.post(proxy.url + "/v1/chat/completions", content=b'{"messages": [').json()
    assert seen["body"] == '{"messages": ['
    [(_, findings, _)] = proxy.kept.wait().seen
    assert [f.kind for f in findings] == ["unobservable"]


def test_an_upstream_that_breaks_mid_stream_breaks_the_clients_answer_too(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory
) -> None:
    script = FakeScript(steps=(fail("drop_mid_stream", after_events=2),))
    fake = fake_server("openai", "m", context_window=4000, script=script)
    proxy = start_proxy(fake.base_url + "/v1")
    with pytest.raises(httpx.RemoteProtocolError):  # not a stream that looks complete
        httpx.post(proxy.url + "/v1/chat/completions", json={**CHAT, "stream": True})
    [(exchange, _, traffic)] = proxy.kept.wait().seen
    assert traffic.outcome == "upstream_broken"
    assert exchange.status == 200
    assert exchange.response_body.startswith(b"data: ")
    assert httpx.post(proxy.url + "/v1/chat/completions", json=CHAT).status_code == 200


def test_a_client_that_leaves_mid_stream_closes_the_upstream_stream(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    endless = EndlessStream()
    upstream = serve_app(endless.app())
    registry = CollectorRegistry()
    proxy = start_proxy(upstream, sinks=[ProxyMetrics(registry)])
    with httpx.stream("POST", proxy.url + "/v1/chat/completions", json=CHAT) as answer:
        chunks = answer.iter_raw()
        received = next(chunks) + next(chunks)
    assert endless.closed.wait(5), "the upstream stream is still open"
    [(exchange, _, traffic)] = proxy.kept.wait().seen
    assert traffic.outcome == "client_left"
    assert exchange.response_body.startswith(received)  # the partial exchange is observed
    assert registry.get_sample_value(f"{n.CLIENT_DISCONNECTS}_total") == 1
    with httpx.stream("GET", proxy.url + "/again") as again:  # the proxy goes on
        assert next(again.iter_raw()).startswith(b"data: ")
