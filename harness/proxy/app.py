"""The reverse proxy: forwards every request and answer unchanged, keeps a bounded copy
of both, and once the answer is over has the wire observer read the exchange.

One starlette route takes every method and path. The request body is streamed to the
upstream as it arrives (httpx, ``stream=True``); the answer is streamed back as it
arrives (``StreamingResponse`` over the raw bytes, so a gzip answer stays gzip and an SSE
stream is not held back). What the observer and the sinks get is built after the client
has the whole answer (or left): the observer's time is never on the answer's path.

Faults answer as the proxy, never with a traceback: upstream down → 502, upstream silent
longer than ``upstream_timeout_s`` → 504, a stop before the upstream answered → 503, each
with ``{"error": {"type", "message"}}`` and the header ``x-trimscope-proxy-error``; an
upstream that breaks mid-answer, or a client that leaves, ends that one connection (the
upstream stream is closed) and the partial exchange is observed. None of them stops the
proxy.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Final, Protocol

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from harness.proxy.capture import BoundedCopy, decoded, is_stream
from harness.proxy.headers import (
    forward_request_headers,
    forward_response_headers,
    redacted_headers,
    redacted_query,
    scrub,
    scrub_text,
    secret_values,
)
from harness.proxy.pool import BalancedPool
from harness.proxy.sinks import FindingSink, Outcome, Traffic
from harness.proxy.upstream import Upstream
from harness.wire import Finding, ObservedCall, WireExchange, WireKind
from harness.wire.observer import DEFAULT_MAX_BODY_BYTES

DEFAULT_UPSTREAM_TIMEOUT_S: Final = 300.0
"""The longest the upstream may stay silent (connecting, before its headers, between two
chunks); a model thinking before its first token is slow, a hung one is silent forever."""
MAX_UPSTREAM_CONNECTIONS: Final = 1024
UPSTREAM_KEEP_ALIVE_S: Final = 4.0
"""How long an idle upstream connection is reused: under uvicorn's 5 s (the fakes, local
servers), so the proxy drops it before the upstream does (reusing one the upstream is
closing fails that request); hosted providers keep theirs a minute or more."""
ERROR_HEADER: Final = "x-trimscope-proxy-error"
METHODS: Final = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


class Observer(Protocol):
    """What the proxy needs of ``harness.wire.WireObserver``."""

    def observe(self, exchange: WireExchange) -> tuple[Finding, ...]: ...

    @property
    def last_observed(self) -> ObservedCall | None: ...


@dataclass(frozen=True, slots=True)
class ProxySettings:
    upstream: Upstream
    wire: WireKind
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    upstream_timeout_s: float = DEFAULT_UPSTREAM_TIMEOUT_S


class _UpstreamBroke(Exception):
    """The upstream failed after its headers were forwarded: only the connection can say so."""


class _Flight:
    """One exchange on its way: what the client sent, what came back so far, how it ended."""

    def __init__(self, proxy: ObservingProxy, request: Request) -> None:
        self.proxy = proxy
        self.started = time.perf_counter()
        scope = request.scope
        raw_path = scope.get("raw_path") or scope["path"].encode()
        self.path = proxy.settings.upstream.path_for(raw_path.decode("latin-1").split("?")[0])
        self.query_string: bytes = scope.get("query_string", b"")
        self.method = request.method
        self.raw_headers = list(request.headers.raw)
        self.secrets: tuple[bytes, ...] = ()  # found in ``finish``: off the request's path
        self.sent = BoundedCopy(proxy.settings.max_body_bytes)
        self.received = BoundedCopy(proxy.settings.max_body_bytes)
        self.answer: httpx.Response | None = None
        self.outcome: Outcome = "client_left"
        self.upstream_s = 0.0
        """Time awaiting the upstream: from handing the request to httpx to its answer's
        headers, and each wait for a chunk of its body (the rest is the proxy's own hop)."""
        self._finished = False

    def upstream_request(self, client: httpx.AsyncClient, request: Request) -> httpx.Request:
        url = self.proxy.settings.upstream.origin + self.path
        if self.query_string:
            url += "?" + self.query_string.decode("latin-1")
        headers = forward_request_headers(self.raw_headers)
        has_body = any(name.lower() in (b"content-length", b"transfer-encoding")
                       for name, _ in self.raw_headers)  # fmt: skip
        content = self._body(request) if has_body else None
        return client.build_request(self.method, url, headers=headers, content=content)

    async def send(self, client: httpx.AsyncClient, request: Request) -> httpx.Response:
        """The request sent upstream; the answer once its headers came."""
        sent = self.upstream_request(client, request)
        waiting = time.perf_counter()
        try:
            return await client.send(sent, stream=True)
        finally:
            self.upstream_s += time.perf_counter() - waiting

    async def _body(self, request: Request) -> AsyncIterator[bytes]:
        async for chunk in request.stream():
            if chunk:
                self.sent.add(chunk)
                yield chunk

    async def relay(self, answer: httpx.Response) -> AsyncIterator[bytes]:
        """The answer's raw bytes as they arrive, a copy kept."""
        chunks = answer.aiter_raw()
        try:
            while True:
                waiting = time.perf_counter()
                try:
                    chunk = await anext(chunks)
                except StopAsyncIteration:
                    break
                finally:
                    self.upstream_s += time.perf_counter() - waiting
                self.received.add(chunk)
                yield chunk
        except httpx.TimeoutException as error:
            self.outcome = "upstream_timeout"
            raise _UpstreamBroke from error
        except httpx.TransportError as error:
            self.outcome = "upstream_broken"
            raise _UpstreamBroke from error
        self.outcome = "answered"

    def finish(self, outcome: Outcome | None = None) -> None:
        """Observe the exchange and tell the sinks (once; the answer is over)."""
        if self._finished:
            return
        self._finished = True
        if outcome is not None:
            self.outcome = outcome
        duration_s = time.perf_counter() - self.started
        query = self.query_string.decode("latin-1")
        self.secrets = secret_values(self.raw_headers, urllib.parse.parse_qs(query))
        exchange = self._exchange()
        observer = self.proxy.observer
        findings = observer.observe(exchange)
        if self.secrets:
            findings = tuple(
                dataclasses.replace(f, detail=scrub_text(f.detail, self.secrets)) for f in findings
            )
        traffic = Traffic(
            outcome=self.outcome,
            request_bytes=self.sent.total,
            response_bytes=self.received.total,
            truncated=self.sent.truncated or self.received.truncated,
            query=redacted_query(self.query_string),
            chunks=tuple(scrub(chunk, self.secrets) for chunk in self.received.chunks),
            duration_s=duration_s,
            upstream_s=min(self.upstream_s, duration_s),
            call=observer.last_observed,
        )
        self.proxy.sink.accept(exchange, findings, traffic)

    def _exchange(self) -> WireExchange:
        answer, limit = self.answer, self.proxy.settings.max_body_bytes
        request_headers = redacted_headers(self.raw_headers)
        response_headers = redacted_headers(answer.headers.raw) if answer is not None else {}
        body = self.received.body()
        plain = decoded(body, response_headers.get("content-encoding", ""), limit)
        sent = self.sent.body()
        sent_plain = decoded(sent, request_headers.get("content-encoding", ""), limit)
        return WireExchange(
            wire=self.proxy.settings.wire,
            method=self.method,
            path=self.path,
            request_headers=request_headers,
            request_body=scrub(sent if sent_plain is None else sent_plain, self.secrets),
            status=answer.status_code if answer is not None else None,
            response_headers=response_headers,
            response_body=scrub(body if plain is None else plain, self.secrets),
            streamed=is_stream(response_headers.get("content-type", "")),
        )


class _PassThrough(StreamingResponse):
    """The upstream's answer, status and headers as they came, body as it arrives; once
    it is over (or the client left, or the upstream broke) the upstream stream is closed
    and the exchange observed."""

    def __init__(self, flight: _Flight, answer: httpx.Response) -> None:
        super().__init__(flight.relay(answer), status_code=answer.status_code)
        self.raw_headers = forward_response_headers(answer.headers.raw)
        self._flight = flight
        self._answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except* _UpstreamBroke:
            pass  # returning mid-answer makes the server drop the connection: the client sees it
        finally:
            with anyio.CancelScope(shield=True):
                await self._answer.aclose()
            self._flight.finish()


def _error(kind: str, status: int, message: str) -> Response:
    body = {"error": {"type": kind, "message": message}}
    return JSONResponse(body, status_code=status, headers={ERROR_HEADER: kind})


class ObservingProxy:
    """The ASGI app (``.app``) of one proxy: ``observer`` reads every exchange, ``sink``
    is told of it. ``transport`` replaces httpx's own (tests of the proxy need none)."""

    def __init__(
        self,
        settings: ProxySettings,
        observer: Observer,
        sink: FindingSink,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.observer = observer
        self.sink = sink
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        route = Route("/{path:path}", self._handle, methods=METHODS)
        self.app = Starlette(routes=[route], lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        timeout = self.settings.upstream_timeout_s
        transport = self._transport or BalancedPool(
            MAX_UPSTREAM_CONNECTIONS, keepalive_expiry=UPSTREAM_KEEP_ALIVE_S
        )
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,  # a redirect is the client's to follow, as sent
            trust_env=False,  # straight to --upstream: no proxy variables, no .netrc
            transport=transport,
        ) as client:
            for name in list(client.headers):  # httpx's defaults would add accept-encoding
                del client.headers[name]
            self._client = client
            yield
        self._client = None

    async def _handle(self, request: Request) -> Response:
        client = self._client
        if client is None:
            raise RuntimeError("the proxy's app runs inside its lifespan (uvicorn lifespan='on')")
        flight = _Flight(self, request)
        try:
            answer = await flight.send(client, request)
        except httpx.TimeoutException:
            flight.finish("upstream_timeout")
            seconds = self.settings.upstream_timeout_s
            message = f"the upstream sent nothing for {seconds:g} s (--upstream-timeout-s)"
            return _error("upstream_timeout", 504, message)
        except httpx.ConnectError as error:
            flight.finish("upstream_unreachable")
            where = self.settings.upstream.origin
            return _error("upstream_unreachable", 502, f"cannot connect to {where}: {error}")
        except httpx.TransportError as error:
            flight.finish("upstream_broken")
            return _error("upstream_broken", 502, f"the upstream broke the exchange: {error}")
        except ClientDisconnect:
            flight.finish("client_left")
            return Response(status_code=400)  # nobody reads it: the client is gone
        except anyio.get_cancelled_exc_class():
            # The server's stop gave up waiting (uvicorn cancels, and awaits nothing): an
            # answer that says so, rather than its 500 and a traceback on stderr.
            flight.finish("client_left")
            return _error("proxy_stopping", 503, "the proxy stopped before the upstream answered")
        flight.answer = answer
        return _PassThrough(flight, answer)


__all__ = [
    "DEFAULT_UPSTREAM_TIMEOUT_S",
    "ERROR_HEADER",
    "Observer",
    "ObservingProxy",
    "ProxySettings",
]
