"""The ASGI app of a fake: the profile's endpoints as starlette routes.

Generation endpoints go through the engine; discovery endpoints through
``fakes.serving.discovery``. Unknown paths get starlette's 404 and wrong methods its 405, as a
strict mock should. Every request is written to the fake's log before it is answered.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from fakes.counting.counters import COUNTER_HEADER, counter_label
from fakes.engine import FakeProvider
from fakes.profiles import Endpoint
from fakes.rows import JSONValue
from fakes.serving.answer import Answer, sent_events, to_response
from fakes.serving.discovery import HANDLERS, DiscoveryRequest
from fakes.serving.log import Exchange
from fakes.wire.base import RequestContext


def _parsed(raw: bytes) -> JSONValue:
    try:
        value: JSONValue = json.loads(raw) if raw else None
    except ValueError:
        return raw.decode("utf-8", "replace")
    return value


def _record(
    fake: FakeProvider, request: Request, raw: bytes, index: int | None, answer: Answer
) -> None:
    body: JSONValue = answer.body
    if answer.raw is not None:
        body = answer.raw.decode("utf-8", "replace")
    fake.log.record(
        Exchange(
            call_index=index,
            method=request.method,
            path=request.url.path,
            request_headers=dict(request.headers),
            request_body=_parsed(raw),
            counter=fake.counter.name,
            window=answer.window or fake.model.context_window,
            tokens=answer.tokens,
            outcome=answer.outcome,
            status=answer.status,
            response_headers=dict(answer.headers),
            response_body=body,
            stream_events=sent_events(answer),
            detail=answer.detail,
            variant=answer.variant,
            fault=answer.fault,
            rows=answer.rows,
        )
    )


def _named(fake: FakeProvider, answer: Answer) -> Answer:
    """The answer with the header naming the counter behind its counts (``COUNTER_HEADER``)."""
    label = counter_label(fake.counter.name)
    return replace(answer, headers={**answer.headers, COUNTER_HEADER: label})


async def _hang(request: Request, seconds: float) -> None:
    """Wait ``seconds``, or until the client goes away (a real server notices)."""
    with anyio.move_on_after(seconds):
        while (await request.receive())["type"] != "http.disconnect":
            pass


def _generate(fake: FakeProvider, endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    assert endpoint.wire is not None
    wire = fake.wire(endpoint.wire)

    async def handle(request: Request) -> Response:
        raw = await request.body()
        index, behaviour = fake.take_call()
        ctx = RequestContext(
            request.path_params.get("model"),
            dict(request.headers),
            fake.profile.enforce_pairing,
            request.url.path,
            dict(request.query_params),
        )
        answer = _named(fake, fake.answer(wire, raw, ctx, index, behaviour))
        if answer.latency_ms:  # the step's (a ``when`` script's is known only now)
            await anyio.sleep(answer.latency_ms / 1000)
        _record(fake, request, raw, index, answer)
        if answer.hang_seconds:
            await _hang(request, answer.hang_seconds)
        return to_response(answer)

    return handle


def _discover(fake: FakeProvider, endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    handler = HANDLERS[endpoint.kind]

    async def handle(request: Request) -> Response:
        raw = await request.body()
        params = {k: str(v) for k, v in request.path_params.items()}
        query = DiscoveryRequest(params.get("model"), raw, dict(request.headers), params)
        status, body = handler(fake, endpoint, query)
        answer = _named(fake, Answer(status, body, outcome="discovery"))
        _record(fake, request, raw, None, answer)
        return JSONResponse(body, status, dict(answer.headers))

    return handle


def build_app(fake: FakeProvider) -> Starlette:
    routes: list[Any] = []
    for endpoint in fake.profile.endpoints:
        make = _generate if endpoint.kind == "generate" else _discover
        routes.append(Route(endpoint.path, make(fake, endpoint), methods=[endpoint.method]))
    app = Starlette(routes=routes)
    app.state.fake = fake
    return app
