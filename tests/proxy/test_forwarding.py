"""The proxy forwards every request and answer unchanged, streams as they arrive, and
hands the observer what crossed."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable

import httpx
import pytest
from starlette.types import ASGIApp

from fakes.pytest_plugin import FakeServerFactory
from tests.proxy.conftest import ProxyFactory
from tests.proxy.upstreams import GatedStream, echo_app, gzip_app

ServeApp = Callable[[ASGIApp], str]
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


def test_method_path_query_headers_and_body_reach_the_upstream_unchanged(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    upstream = serve_app(echo_app())
    proxy = start_proxy(upstream + "/v1")
    body = bytes(range(256)) * 4  # not UTF-8, not JSON: bytes as they are
    headers = [
        ("x-custom", "one"), ("x-custom", "two"), ("content-type", "application/x-bin"),
        ("connection", "keep-alive, x-hop"), ("x-hop", "gone"), ("te", "trailers"),
    ]  # fmt: skip
    answer = httpx.put(
        proxy.url + "/v1/things/a%2Fb", params=[("x", "1"), ("x", "2"), ("y", " ")],
        content=body, headers=headers,
    )  # fmt: skip
    seen = answer.json()
    assert (seen["method"], seen["raw_path"]) == ("PUT", "/v1/things/a%2Fb")
    assert seen["query"] == "x=1&x=2&y=+"
    assert seen["body"].encode("latin-1") == body
    names = [name for name, _ in seen["headers"]]
    assert [v for n, v in seen["headers"] if n == "x-custom"] == ["one", "two"]
    assert "x-hop" not in names
    assert "te" not in names
    assert [v for n, v in seen["headers"] if n == "host"] == [upstream.removeprefix("http://")]


def test_status_headers_and_body_come_back_unchanged(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    upstream = serve_app(echo_app())
    proxy = start_proxy(upstream)
    direct = httpx.post(upstream + "/x", json=CHAT, headers={"x-want-status": "418"})
    through = httpx.post(proxy.url + "/x", json=CHAT, headers={"x-want-status": "418"})
    assert through.status_code == direct.status_code == 418
    assert through.headers.get_list("set-cookie") == ["a=1", "b=2"]
    assert through.headers["x-up"] == "yes"
    assert json.loads(through.content)["body"] == json.loads(direct.content)["body"]
    [exchange] = proxy.kept.wait().exchanges
    assert (exchange.status, exchange.path, exchange.response_body) == (418, "/x", through.content)


@pytest.mark.parametrize(
    ("client_path", "upstream_path"),
    [
        ("/v1/chat/completions", "/v1/chat/completions"),
        ("/chat/completions", "/v1/chat/completions"),
        ("/v1", "/v1"),
        ("/v1beta/models", "/v1/v1beta/models"),
    ],
)  # fmt: skip
def test_the_upstream_base_path_is_added_once(
    start_proxy: ProxyFactory, serve_app: ServeApp, client_path: str, upstream_path: str
) -> None:
    proxy = start_proxy(serve_app(echo_app()) + "/v1/")
    assert httpx.get(proxy.url + client_path).json()["raw_path"] == upstream_path
    assert proxy.kept.wait().exchanges[0].path == upstream_path


def test_a_stream_reaches_the_client_as_it_arrives(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    gated = GatedStream()
    proxy = start_proxy(serve_app(gated.app()))
    with httpx.stream("POST", proxy.url + "/stream", json=CHAT, timeout=5) as answer:
        chunks = answer.iter_raw()
        first = next(chunks)  # arrives while the upstream still holds the second one back
        gated.go.set()
        rest = b"".join(chunks)
    assert first == b'data: {"n": 1}\n\n'
    assert rest == b'data: {"n": 2}\n\n'
    [exchange] = proxy.kept.wait().exchanges
    assert exchange.streamed
    assert exchange.response_body == first + rest


def _without_timestamps(body: bytes) -> bytes:
    """The fake numbers its answers' ids and dates them: two calls differ only there."""
    body = re.sub(rb'"created":\s*\d+', b'"created":0', body)
    return re.sub(rb'"id":\s*"[^"]*"', b'"id":""', body)


def test_the_fakes_sse_stream_is_byte_for_byte_the_same_through_the_proxy(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    proxy = start_proxy(fake.base_url + "/v1")
    streamed = {**CHAT, "stream": True}
    direct = httpx.post(fake.base_url + "/v1/chat/completions", json=streamed)
    through = httpx.post(proxy.url + "/v1/chat/completions", json=streamed)
    assert through.headers["content-type"] == direct.headers["content-type"]
    assert _without_timestamps(through.content) == _without_timestamps(direct.content)
    assert b"data: [DONE]" in through.content
    [exchange] = proxy.kept.wait().exchanges
    assert exchange.streamed
    assert exchange.response_body == through.content
    assert json.loads(exchange.request_body) == streamed
    assert len(fake.log) == 2


def test_a_gzip_answer_is_forwarded_compressed_and_observed_decoded(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    payload = {"choices": [{"message": {"content": "x" * 2000}}]}
    proxy = start_proxy(serve_app(gzip_app(payload)))
    with httpx.stream("POST", proxy.url + "/v1/chat/completions", json=CHAT,
                      headers={"accept-encoding": "gzip"}) as answer:  # fmt: skip
        raw = b"".join(answer.iter_raw())
    assert answer.headers["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(raw)) == payload
    [exchange] = proxy.kept.wait().exchanges
    assert json.loads(exchange.response_body) == payload
    assert proxy.kept.wait().traffic[0].chunks == (raw,)  # the record keeps what travelled


def test_a_body_longer_than_max_body_bytes_is_forwarded_whole_and_kept_cut(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    proxy = start_proxy(serve_app(echo_app()), max_body_bytes=4096)
    body = b"y" * 100_000
    seen = httpx.post(proxy.url + "/big", content=body).json()
    assert seen["body"].encode() == body
    [(exchange, _, traffic)] = proxy.kept.wait().seen
    assert len(exchange.request_body) == 4096
    assert (traffic.request_bytes, traffic.truncated) == (100_000, True)
