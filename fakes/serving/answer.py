"""An answer the engine decided on, and how it goes on the wire (starlette responses).

``StreamDropped`` is raised inside a streaming body to drop the connection mid-answer:
a real server closes the socket (the client sees an incomplete chunked or
``content-length`` body); the in-process mounts turn it into the same
``httpx.RemoteProtocolError``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field

from starlette.responses import Response, StreamingResponse

from fakes.counting.counters import TokenCount
from fakes.rows import JSONValue, Row
from fakes.serving.log import Outcome
from fakes.wire.base import StreamEvent, StreamMedia


class StreamDropped(Exception):
    """Raised by a fake's response body to drop the connection (a scripted fault)."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: JSONValue = None
    headers: Mapping[str, str] = field(default_factory=dict)
    events: tuple[StreamEvent, ...] | None = None
    media: StreamMedia = "sse"
    raw: bytes | None = None
    drop_after: int | None = None
    hang_seconds: float = 0.0
    latency_ms: int = 0
    outcome: Outcome = "reply"
    tokens: TokenCount | None = None
    rows: tuple[Row, ...] = ()
    window: int = 0
    detail: str = ""
    variant: str | None = None
    fault: str | None = None


def json_bytes(value: JSONValue) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def encode_event(event: StreamEvent, media: StreamMedia) -> bytes:
    if event.comment and media == "sse":
        return f": {event.data}\n\n".encode()
    data = event.data if event.literal and isinstance(event.data, str) else None
    text = data if data is not None else json_bytes(event.data).decode("utf-8")
    if media == "ndjson":
        return (text + "\n").encode("utf-8")
    if media == "json_array":
        return text.encode("utf-8")
    prefix = f"event: {event.event}\n" if event.event else ""
    return f"{prefix}data: {text}\n\n".encode()


def _array_element(event: StreamEvent, n: int) -> bytes:
    # Gemini's streamGenerateContent without ``alt=sse``: one JSON array, its elements
    # written as they come (``[`` before the first, ``,`` between, ``]`` at the end).
    return (b"[" if n == 0 else b",\r\n") + encode_event(event, "json_array")


async def _events(answer: Answer, events: tuple[StreamEvent, ...]) -> AsyncIterator[bytes]:
    array = answer.media == "json_array"
    for n, event in enumerate(events):
        if answer.drop_after is not None and n >= answer.drop_after:
            raise StreamDropped(f"dropped after {n} events")
        yield _array_element(event, n) if array else encode_event(event, answer.media)
    if array:
        yield b"]" if events else b"[]"


async def _truncated(content: bytes, keep: int) -> AsyncIterator[bytes]:
    yield content[:keep]
    raise StreamDropped(f"dropped after {keep} of {len(content)} bytes")


_STREAM_CONTENT_TYPES: dict[StreamMedia, str] = {
    "sse": "text/event-stream",
    "ndjson": "application/x-ndjson",
    "json_array": "application/json",
}


def to_response(answer: Answer) -> Response:
    headers = dict(answer.headers)
    if answer.events is not None:
        media = _STREAM_CONTENT_TYPES[answer.media]
        return StreamingResponse(_events(answer, answer.events), answer.status, headers, media)
    if answer.raw is not None:
        return Response(answer.raw, answer.status, headers, "application/json")
    if answer.body is None:
        return Response(b"", answer.status, headers)
    content = json_bytes(answer.body)
    if answer.drop_after is not None:
        headers["content-length"] = str(len(content))
        stream = _truncated(content, answer.drop_after)
        return StreamingResponse(stream, answer.status, headers, "application/json")
    return Response(content, answer.status, headers, "application/json")


def sent_events(answer: Answer) -> tuple[JSONValue, ...]:
    """The events the client receives before any drop (for the request log); SSE
    comments are no events (clients skip them)."""
    events = answer.events or ()
    kept = events if answer.drop_after is None else events[: answer.drop_after]
    return tuple(e.data for e in kept if not e.comment)
