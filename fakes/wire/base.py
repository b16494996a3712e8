"""What every wire format provides to the engine, and the records they exchange.

A wire format decodes a request body into a ``CanonicalRequest`` (rejecting what the real
API rejects, orphaned tool pairs included, by raising ``WireError``), renders a normal
answer from a ``ReplyPlan`` (as one JSON body, and as stream events when it streams), and
renders its own error bodies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from fakes.catalogue import WireName
from fakes.rows import CanonicalRequest, JSONValue

ErrorKind: TypeAlias = Literal[
    "invalid_request", "not_found", "rate_limit", "server_error", "overloaded"
]
StopReason: TypeAlias = Literal["stop", "tool_calls", "length", "context_window"]
StreamMedia: TypeAlias = Literal["sse", "ndjson", "json_array"]


class WireError(Exception):
    """A request the real API would reject; carries the status and body it would send."""

    def __init__(
        self,
        status: int,
        body: JSONValue,
        headers: Mapping[str, str] | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(detail or f"HTTP {status}")
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        self.detail = detail


@dataclass(frozen=True, slots=True)
class RequestContext:
    """What a decoder may need beyond the body: the model named in the path, headers,
    the path itself and the query parameters (Gemini streams by path and ``alt``)."""

    path_model: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    enforce_pairing: bool = True
    path: str = ""
    query: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PlannedToolCall:
    id: str
    name: str
    arguments: Mapping[str, object]
    arguments_json: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Reported usage. ``input_tokens`` is the whole prompt, cached tokens included
    (OpenAI's convention); formats that exclude cache reads subtract them."""

    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    cache_creation_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class ReplyPlan:
    index: int
    model: str
    text: str | None
    tool_calls: tuple[PlannedToolCall, ...]
    usage: Usage
    stop: StopReason
    created: int
    response_id: str
    include_stream_usage: bool = True
    obfuscate: bool = True
    options: Mapping[str, object] = field(default_factory=dict)
    """The decoded request's ``options`` (a wire's own hints for its answer's shape)."""


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One SSE event (``event`` may be ``None``), one NDJSON line or one element of a
    streamed JSON array (``event`` unused). ``data`` is JSON, or a literal string such
    as ``[DONE]``."""

    data: JSONValue
    event: str | None = None
    literal: bool = False
    comment: bool = False
    """An SSE comment line (``: <data>``), which SSE clients skip (OpenRouter's
    ``: OPENROUTER PROCESSING``); only in SSE streams."""


class WireFormat(Protocol):
    @property
    def name(self) -> WireName: ...

    @property
    def tool_id_prefix(self) -> str: ...

    @property
    def stream_media(self) -> StreamMedia: ...

    @property
    def response_id_prefix(self) -> str: ...

    def decode(self, body: Any, ctx: RequestContext) -> CanonicalRequest: ...

    def reply(self, plan: ReplyPlan) -> JSONValue: ...

    def stream(self, plan: ReplyPlan) -> tuple[StreamEvent, ...]: ...

    def stream_error(self, plan: ReplyPlan, event: JSONValue) -> tuple[StreamEvent, ...]: ...

    def error(self, status: int, kind: ErrorKind, message: str) -> JSONValue: ...

    def error_headers(self, kind: ErrorKind) -> Mapping[str, str]: ...

    def unknown_model(self, model: str) -> WireError: ...


class Unstreamed:
    """For wire formats whose streaming the fakes do not model (Bedrock ConverseStream,
    Cohere): a streamed request gets the whole reply, or the error, as one event."""

    __slots__ = ()

    def reply(self, plan: ReplyPlan) -> JSONValue:
        raise NotImplementedError

    def stream(self, plan: ReplyPlan) -> tuple[StreamEvent, ...]:
        return (StreamEvent(self.reply(plan)),)

    def stream_error(self, plan: ReplyPlan, event: JSONValue) -> tuple[StreamEvent, ...]:
        return (StreamEvent(event),)
