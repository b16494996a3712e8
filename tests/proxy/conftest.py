"""Fixtures for the proxy's tests: real proxies (uvicorn in a thread) in front of real
upstreams (the project's fakes, or small starlette apps served the same way), a sink
that keeps what it is told, and an observer that reports findings derived from each
exchange (a real ``WireObserver`` subclass; the real one returns none until its
inference is merged)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from starlette.types import ASGIApp

from harness.proxy import (
    AsgiServer,
    FindingSink,
    ObservingProxy,
    ProxyServer,
    ProxySettings,
    Sinks,
    Traffic,
    parse_upstream,
)
from harness.wire import Finding, WireExchange, WireKind, WireObserver

WAIT_S = 10.0


@dataclass
class Kept:
    """A ``FindingSink`` that keeps every exchange it is told of. The proxy tells its sinks
    after the client has the answer, so a test waits for them (``wait``)."""

    seen: list[tuple[WireExchange, tuple[Finding, ...], Traffic]] = field(default_factory=list)
    closed: bool = False
    _told: threading.Condition = field(default_factory=threading.Condition)

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        with self._told:
            self.seen.append((exchange, findings, traffic))
            self._told.notify_all()

    def wait(self, count: int = 1) -> Kept:
        """Until ``count`` exchanges were told (fails after ``WAIT_S``)."""
        with self._told:
            if not self._told.wait_for(lambda: len(self.seen) >= count, WAIT_S):
                pytest.fail(f"{len(self.seen)} exchanges observed, expected {count}")
        return self

    def close(self) -> None:
        self.closed = True

    @property
    def traffic(self) -> list[Traffic]:
        return [entry[2] for entry in self.seen]

    @property
    def exchanges(self) -> list[WireExchange]:
        return [entry[0] for entry in self.seen]


class DerivingObserver(WireObserver):
    """One finding per exchange, read from the exchange: the session header names the
    session, calls are counted per session, a body that is not JSON is ``unobservable``,
    otherwise ``trim`` with the request's message count; ``detail`` quotes the answer's
    first 200 characters (so a key echoed there would reach the outputs)."""

    def __init__(self, session_header: str = "x-trimscope-session") -> None:
        super().__init__()
        self.header = session_header
        self.calls: dict[str, int] = {}

    def observe(self, exchange: WireExchange) -> tuple[Finding, ...]:
        session = exchange.request_headers.get(self.header, "anonymous")
        self.calls[session] = call = self.calls.get(session, 0) + 1
        detail = exchange.response_body[:200].decode("utf-8", "replace")
        try:
            request = json.loads(exchange.request_body)
            json.loads(exchange.response_body)
        except ValueError:
            return (Finding(session=session, call=call, kind="unobservable",
                            status=exchange.status, detail=detail),)  # fmt: skip
        messages = len(request.get("messages", [])) if isinstance(request, dict) else 0
        return (Finding(session=session, call=call, kind="trim", status=exchange.status,
                        kept_turns=messages, detail=detail),)  # fmt: skip


@dataclass
class RunningProxy:
    server: ProxyServer
    kept: Kept

    @property
    def url(self) -> str:
        return self.server.url


ProxyFactory = Callable[..., RunningProxy]


@pytest.fixture
def start_proxy() -> Iterator[ProxyFactory]:
    """``start_proxy(upstream_url, wire=..., observer=..., sinks=[...], ...)``: a running
    proxy whose sinks include a ``Kept``; every proxy stops (and closes its sinks) after."""
    started: list[RunningProxy] = []

    def start(
        upstream: str,
        *,
        wire: WireKind = "openai_chat",
        observer: WireObserver | None = None,
        sinks: list[FindingSink] | None = None,
        max_body_bytes: int = 1 << 20,
        upstream_timeout_s: float = 10.0,
    ) -> RunningProxy:
        kept = Kept()
        settings = ProxySettings(parse_upstream(upstream), wire, max_body_bytes, upstream_timeout_s)
        all_sinks = Sinks([*(sinks or []), kept])  # told last: a wait covers the others
        proxy = ObservingProxy(settings, observer or WireObserver(), all_sinks)
        running = RunningProxy(ProxyServer(proxy), kept)
        running.server.start()
        started.append(running)
        return running

    yield start
    for running in started:
        running.server.stop()
        running.server.proxy.sink.close()


@pytest.fixture
def serve_app() -> Iterator[Callable[[ASGIApp], str]]:
    """``serve_app(app)``: the app on a real uvicorn on 127.0.0.1; its base URL."""
    servers: list[AsgiServer] = []

    def serve(app: ASGIApp) -> str:
        server = AsgiServer(app)
        servers.append(server)
        return server.start()

    yield serve
    for server in servers:
        server.stop()
