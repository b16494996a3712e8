"""The bare pass-through ``python -m bench.proxy`` compares the proxy's CPU with: the same
stack (a starlette route, an httpx client streaming both ways over the proxy's upstream
pool, uvicorn through ``AsgiServer``, the same header filtering) forwarding without
keeping a copy, observing, redacting, recording or counting anything.

``python -m bench.proxy_bare UPSTREAM_BASE_URL`` serves it on 127.0.0.1 (a free port),
prints its URL once it accepts connections, and exits 0 on SIGINT or SIGTERM.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator

import httpx
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from harness.interrupt import StopRequest, stop_on_signals
from harness.proxy import AsgiServer, parse_upstream
from harness.proxy.app import MAX_UPSTREAM_CONNECTIONS, METHODS, UPSTREAM_KEEP_ALIVE_S
from harness.proxy.headers import forward_request_headers, forward_response_headers
from harness.proxy.pool import BalancedPool


def bare_app(upstream_url: str) -> Starlette:
    upstream = parse_upstream(upstream_url)
    clients: list[httpx.AsyncClient] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # the proxy's upstream pool, so the two differ only by what the proxy adds
        pool = BalancedPool(MAX_UPSTREAM_CONNECTIONS, keepalive_expiry=UPSTREAM_KEEP_ALIVE_S)
        async with httpx.AsyncClient(timeout=60, trust_env=False, transport=pool) as client:
            for name in list(client.headers):
                del client.headers[name]
            clients[:] = [client]  # one per lifespan (a restarted app gets a fresh one)
            yield

    async def forward(request: Request) -> Response:
        client = clients[0]
        url = upstream.origin + upstream.path_for(request.url.path)
        if request.url.query:
            url += "?" + request.url.query
        has_body = "content-length" in request.headers or "transfer-encoding" in request.headers
        sent = client.build_request(
            request.method, url, headers=forward_request_headers(request.headers.raw),
            content=request.stream() if has_body else None,
        )  # fmt: skip
        try:  # the failures the proxy answers too, answered alike (not a 500 traceback)
            answer = await client.send(sent, stream=True)
        except httpx.TransportError:
            return Response(status_code=502)
        except ClientDisconnect:
            return Response(status_code=400)
        response = StreamingResponse(
            answer.aiter_raw(), status_code=answer.status_code,
            background=BackgroundTask(answer.aclose),
        )  # fmt: skip
        response.raw_headers = forward_response_headers(answer.headers.raw)
        return response

    return Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)], lifespan=lifespan)


def main(argv: list[str]) -> int:
    server = AsgiServer(bare_app(argv[0]))
    with stop_on_signals(StopRequest()):
        server.serve(on_ready=lambda url: print(url, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
