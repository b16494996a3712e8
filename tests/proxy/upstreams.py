"""Small real upstreams for the proxy's tests (starlette apps, served by uvicorn through
the ``serve_app`` fixture) for what the fakes do not do: echo a request back, stream
until told to go on, stream forever and say when the stream was closed, stay silent."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Mapping

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
WAIT_LIMIT_S = 10.0
"""No test upstream waits longer than this for the test (a failing test still ends)."""


async def _echo(request: Request) -> Response:
    """The request as the upstream saw it, as JSON; the status is ``x-want-status``."""
    body = await request.body()
    seen = {
        "method": request.method,
        "raw_path": request.scope["raw_path"].decode("latin-1"),
        "query": request.scope["query_string"].decode("latin-1"),
        "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in request.headers.raw],
        "body": body.decode("latin-1"),
    }
    answer = Response(json.dumps(seen), int(request.headers.get("x-want-status", "200")),
                      media_type="application/json")  # fmt: skip
    answer.raw_headers += [(b"set-cookie", b"a=1"), (b"set-cookie", b"b=2"), (b"x-up", b"yes")]
    return answer


def echo_app() -> Starlette:
    return Starlette(routes=[Route("/{path:path}", _echo, methods=METHODS)])


def gzip_app(payload: Mapping[str, object]) -> Starlette:
    """Answers ``payload`` as JSON, gzip-encoded when the client accepts it."""

    async def answer(request: Request) -> Response:
        return JSONResponse(payload)

    routes = [Route("/{path:path}", answer, methods=METHODS)]
    return Starlette(routes=routes, middleware=[Middleware(GZipMiddleware, minimum_size=0)])


class GatedStream:
    """An SSE answer of two events; the second is sent only once ``go`` is set."""

    def __init__(self) -> None:
        self.go = threading.Event()

    def app(self) -> Starlette:
        async def events() -> AsyncIterator[bytes]:
            yield b'data: {"n": 1}\n\n'
            await anyio.to_thread.run_sync(self.go.wait, WAIT_LIMIT_S)
            yield b'data: {"n": 2}\n\n'

        async def answer(request: Request) -> Response:
            return StreamingResponse(events(), media_type="text/event-stream")

        return Starlette(routes=[Route("/{path:path}", answer, methods=METHODS)])


class EndlessStream:
    """An SSE answer that never ends (an event every 20 ms, for at most ``WAIT_LIMIT_S``);
    ``closed`` is set when the stream was stopped before its end."""

    def __init__(self) -> None:
        self.closed = threading.Event()

    def app(self) -> Starlette:
        async def events() -> AsyncIterator[bytes]:
            try:
                with anyio.move_on_after(WAIT_LIMIT_S):
                    while True:
                        yield b'data: {"tick": true}\n\n'
                        await anyio.sleep(0.02)
            finally:
                self.closed.set()

        async def answer(request: Request) -> Response:
            return StreamingResponse(events(), media_type="text/event-stream")

        return Starlette(routes=[Route("/{path:path}", answer, methods=METHODS)])


def silent_app() -> Starlette:
    """Accepts the request and never answers (until the client leaves, or the limit)."""

    async def answer(request: Request) -> Response:
        with anyio.move_on_after(WAIT_LIMIT_S):
            while not await request.is_disconnected():
                await anyio.sleep(0.05)
        return Response(status_code=500)

    return Starlette(routes=[Route("/{path:path}", answer, methods=METHODS)])
