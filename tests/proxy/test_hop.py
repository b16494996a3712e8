"""The proxy's own hop: the time awaiting the upstream (its answer's headers, each chunk
of its body) is the upstream's, ``Traffic.upstream_s``; the rest of the exchange's
duration is the proxy's, counted in ``trimscope_proxy_hop_seconds``."""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
import httpx
from prometheus_client import CollectorRegistry
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from harness.cli.proxy_metrics import ProxyMetrics
from harness.proxy import Traffic
from harness.proxy import names as n
from harness.wire import WireExchange
from tests.proxy.conftest import ProxyFactory
from tests.proxy.upstreams import GatedStream

ServeApp = Callable[[ASGIApp], str]
HOLD_S = 0.3
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


def _slow_app() -> Starlette:
    """Answers after ``HOLD_S``, as a model takes its time before the headers."""

    async def answer(request: Request) -> Response:
        await anyio.sleep(HOLD_S)
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route("/{path:path}", answer, methods=["POST"])])


def test_the_wait_for_the_answers_headers_is_the_upstreams(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    proxy = start_proxy(serve_app(_slow_app()))
    assert httpx.post(proxy.url + "/v1/chat/completions", json=CHAT).json() == {"ok": True}
    [traffic] = proxy.kept.wait().traffic
    assert HOLD_S <= traffic.upstream_s <= traffic.duration_s


def test_the_wait_for_a_held_back_chunk_is_the_upstreams(
    start_proxy: ProxyFactory, serve_app: ServeApp
) -> None:
    gated = GatedStream()
    proxy = start_proxy(serve_app(gated.app()))
    with httpx.stream("POST", proxy.url + "/stream", json=CHAT, timeout=5) as answer:
        chunks = answer.iter_raw()
        next(chunks)
        time.sleep(HOLD_S)  # the proxy awaits the second event all that time
        gated.go.set()
        b"".join(chunks)
    [traffic] = proxy.kept.wait().traffic
    assert HOLD_S <= traffic.upstream_s <= traffic.duration_s


def test_the_hop_histogram_counts_each_exchange_less_its_upstream_wait() -> None:
    registry = CollectorRegistry()
    metrics = ProxyMetrics(registry)
    exchange = WireExchange(
        wire="openai_chat", method="POST", path="/v1/chat/completions", request_headers={},
        request_body=b"{}", status=200,
    )  # fmt: skip
    for duration_s, upstream_s in ((0.5010, 0.5), (0.6, 0.5975), (0.2, 0.0)):
        traffic = Traffic("answered", 2, 2, duration_s=duration_s, upstream_s=upstream_s)
        metrics.accept(exchange, (), traffic)

    def bucket(bound: str) -> float | None:
        return registry.get_sample_value(f"{n.HOP_SECONDS}_bucket", {"le": bound})

    assert (bucket("0.001"), bucket("0.002"), bucket("0.003"), bucket("0.25")) == (0, 1, 2, 3)
    assert registry.get_sample_value(f"{n.HOP_SECONDS}_count") == 3
    total = registry.get_sample_value(f"{n.HOP_SECONDS}_sum")
    assert total is not None
    assert abs(total - (0.001 + 0.0025 + 0.2)) < 1e-9
