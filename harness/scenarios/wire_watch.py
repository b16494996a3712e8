"""The wire observer inside ``run``: what the fakes received, read as a proxy would read it.

After a scenario the fakes' request logs hold every generation exchange the agent made.
Each one is turned back into bytes (the request and answer bodies as JSON; a streamed
answer as the events the client received, SSE, or NDJSON for Ollama) and fed, in call
order, to one ``harness.wire.WireObserver`` per scenario (the scenario's id is the
session): the same decoders and inference the proxy runs, on traffic whose history changes
the reference agent announced itself, so the two can be held equal (``tests/wire``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence

import fakes
from harness.events import Event, ProviderCallFinished
from harness.providers.overflow.classify import extended_is_overflow
from harness.wire import (
    Finding,
    ObserverConfig,
    WireExchange,
    WireKind,
    WireObserver,
    wire_of,
)
from harness.wire.observer import DEFAULT_SESSION_HEADER


def _json_bytes(value: object) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")  # a body the fake logged as text (not JSON)
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def _stream_bytes(wire: WireKind, events: Sequence[object]) -> bytes:
    if wire == "ollama":
        return b"".join(_json_bytes(e) + b"\n" for e in events)
    return b"".join(b"data: " + _json_bytes(e) + b"\n\n" for e in events)


def as_wire_exchange(session: str, exchange: fakes.Exchange) -> WireExchange | None:
    """One logged exchange as the bytes a proxy would have seen (``None``: not a
    generation call of a known wire)."""
    wire = wire_of(exchange.method, exchange.path)
    if wire is None:
        return None
    streamed = bool(exchange.stream_events)
    answer = (
        _stream_bytes(wire, exchange.stream_events)
        if streamed
        else _json_bytes(exchange.response_body)
    )
    return WireExchange(
        wire=wire,
        method=exchange.method,
        path=exchange.path,
        request_headers={DEFAULT_SESSION_HEADER: session},
        request_body=_json_bytes(exchange.request_body),
        status=exchange.status,
        response_headers=dict(exchange.response_headers),
        response_body=answer,
        streamed=streamed,
    )


def _in_call_order(
    logs: Mapping[str, fakes.RequestLog], events: Sequence[Event]
) -> Iterator[fakes.Exchange]:
    """Each fake's calls in the order the agent's calls finished (one log entry per
    ``ProviderCallFinished``, as ``runner._requests`` pairs them)."""
    pending = {ref: iter(log.calls()) for ref, log in logs.items()}
    for event in events:
        if isinstance(event, ProviderCallFinished) and event.provider in pending:
            found = next(pending[event.provider], None)
            if found is not None:
                yield found


def wire_findings(
    session: str, logs: Mapping[str, fakes.RequestLog], events: Sequence[Event]
) -> tuple[Finding, ...]:
    """Every finding of the scenario's traffic, read with the extended overflow classifier
    (the agent's default)."""
    observer = WireObserver(ObserverConfig(is_overflow=extended_is_overflow))
    found: list[Finding] = []
    for exchange in _in_call_order(logs, events):
        wire_exchange = as_wire_exchange(session, exchange)
        if wire_exchange is not None:
            found.extend(observer.observe(wire_exchange))
    return tuple(found)
