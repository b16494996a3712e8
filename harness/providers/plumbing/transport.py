"""The HTTP half every client shares: send one request over the injected ``httpx``
client and hand back a decoded body or a stream of events, or raise a typed error.

Nothing here builds a network client: the caller injects ``httpx.AsyncClient`` (with a
real transport, ``httpx.MockTransport``, ``httpx.ASGITransport`` or respx), as the
architecture requires. Requests are sent as compact UTF-8 JSON so the bytes on the wire are
deterministic.
"""

from __future__ import annotations

import abc
import itertools
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Final, NamedTuple

import httpx

from harness.providers.clients.context_management import ProviderContext
from harness.providers.overflow.errors import ProviderError, ProviderProtocolError
from harness.providers.overflow.failures import (
    MALFORMED_BODY_ERROR_TYPE,
    STREAM_INCOMPLETE_ERROR_TYPE,
    embedded_error,
    failure_error,
    retry_after_seconds,
    transport_error,
)
from harness.providers.plumbing.base import ProviderReply, ProviderRequest
from harness.providers.plumbing.sse import SseEvent, iter_sse
from harness.providers.plumbing.wirejson import (
    JsonObject,
    WireShapeError,
    decode_body,
    encode_body,
    loads,
)

URL_MEMO_PATHS: Final = 32
"""Parsed request URLs a client keeps (``HttpProviderClient.url``)."""

Clock = Callable[[], datetime]
IdFactory = Callable[[], str]
EventSink = Callable[[SseEvent], None]


class Answer(NamedTuple):
    """A decoded 200 body, with its response (the body's text for error reports, decoded
    only when one is made) and status."""

    value: object
    response: httpx.Response
    status: int

    @property
    def text(self) -> str:
        return self.response.text


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_call_id() -> str:
    """Id for a tool call whose wire format has none (Gemini, Ollama native)."""
    return f"call_{uuid.uuid4().hex[:24]}"


def sequential_call_ids() -> IdFactory:
    """Ids shaped like ``new_call_id``'s, numbered from 1: a scenario's run and the same
    scenario through ``trimscope sut reference`` name a Gemini call alike, so their
    requests can be compared row for row."""
    numbers = itertools.count(1)
    return lambda: f"call_{next(numbers):024x}"


class HttpProviderClient(abc.ABC):
    """Base of every wire client: configuration, auth headers, HTTP and error mapping.

    ``provider_name`` is the name errors are rendered with (the reference's
    ``{provider} API error (...)``); it defaults to ``provider_kind``. Clients do not
    choose a classifier: every error carries every verdict (``ProviderError.verdicts``)
    and the agent decides with the one it is configured with.
    ``clock`` dates ``Retry-After`` HTTP dates; ``id_factory`` names tool calls that arrive
    without an id. ``provider_context``: the route's provider-side context management (wires
    without such fields ignore it; the conformance probe swaps it per probe).
    """

    provider_kind: str = ""

    def __init__(
        self,
        *,
        client: httpx.AsyncClient,
        base_url: str,
        api_key: str | None,
        provider_name: str | None = None,
        provider_kind: str | None = None,
        extra_headers: Mapping[str, str] | None = None,
        clock: Clock = utc_now,
        id_factory: IdFactory = new_call_id,
        provider_context: ProviderContext | None = None,
    ) -> None:
        self._client = client
        self.provider_context = provider_context
        self.base_url = base_url.rstrip("/")
        self._urls: dict[str, httpx.URL] = {}
        self._api_key = api_key
        if provider_kind is not None:
            self.provider_kind = provider_kind
        self.provider_name = provider_name or self.provider_kind
        self._extra_headers = dict(extra_headers or {})
        self._clock = clock
        self.new_id = id_factory

    @abc.abstractmethod
    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """One request, one reply; every failure raises a ``ProviderError`` subclass."""

    def auth_headers(self) -> dict[str, str]:
        """Bearer auth; wires with their own header override this."""
        return {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _headers(self, *, stream: bool) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if stream:
            headers["accept"] = "text/event-stream"
        headers.update(self.auth_headers())
        headers.update(self._extra_headers)
        return headers

    def _failure(self, status: int | None, body: str, headers: httpx.Headers) -> ProviderError:
        retry = retry_after_seconds(headers, now=self._clock())
        return failure_error(self.provider_name, status, body, retry_after_s=retry)

    def protocol_error(
        self,
        status: int | None,
        body: str,
        why: str,
        *,
        error_type: str = MALFORMED_BODY_ERROR_TYPE,
    ) -> ProviderProtocolError:
        """An answer that cannot be understood; ``why`` leads, the body follows."""
        detail = f"{why}: {body}" if body else why
        return ProviderProtocolError(self.provider_name, status, detail, error_type=error_type)

    def parse_answer(
        self, answer: Answer, parse: Callable[[object, IdFactory], ProviderReply]
    ) -> ProviderReply:
        """Run a wire parser; a body without the promised shape is a protocol error."""
        try:
            return parse(answer.value, self.new_id)
        except WireShapeError as exc:
            raise self.protocol_error(answer.status, answer.text, str(exc)) from exc

    def stream_incomplete(self, last: str) -> ProviderProtocolError:
        return self.protocol_error(
            None, "", f"stream ended before {last}", error_type=STREAM_INCOMPLETE_ERROR_TYPE
        )

    def stream_error(self, data: str) -> ProviderError:
        """An error event inside a 200 stream: classified on the event's own data."""
        return failure_error(self.provider_name, None, data)

    def url(self, path: str) -> httpx.URL:
        """``base_url + path``, parsed once per path: httpx parses a ``str`` URL again for
        every request (about 18 µs, a tenth of the client's own work per call). A wire has
        a handful of paths (one per model at most), so at most ``URL_MEMO_PATHS`` are kept."""
        url = self._urls.get(path)
        if url is None:
            url = httpx.URL(self.base_url + path)
            if len(self._urls) < URL_MEMO_PATHS:
                self._urls[path] = url
        return url

    async def post_json(self, path: str, payload: JsonObject) -> Answer:
        """POST and return the decoded 200 body; every other outcome raises."""
        try:
            response = await self._client.post(
                self.url(path),
                content=encode_body(payload),
                headers=self._headers(stream=False),
            )
        except httpx.TransportError as exc:
            raise transport_error(self.provider_name, exc) from exc
        raw = response.content if _utf8(response) else None
        value = self._decode(response.status_code, response.headers, lambda: response.text, raw)
        return Answer(value, response, response.status_code)

    def _decode(
        self,
        status: int,
        headers: httpx.Headers,
        text: Callable[[], str],
        raw: bytes | None = None,
    ) -> object:
        """The decoded body, or the error it stands for. ``text`` is asked only when it is
        needed: for an error, or when the body cannot be read from its UTF-8 ``raw`` bytes
        (``decode_body``); without ``raw`` the text is decoded."""
        if status >= httpx.codes.BAD_REQUEST:
            raise self._failure(status, text(), headers)
        try:
            decoded = decode_body(raw, text) if raw is not None else loads(text())
        except WireShapeError as exc:
            raise self.protocol_error(status, text(), str(exc)) from exc
        if embedded_error(decoded):
            raise self._failure(status, text(), headers)
        return decoded

    async def post_sse(self, path: str, payload: JsonObject, sink: EventSink) -> None:
        """POST a streaming request and feed each event to ``sink``, which raises for
        in-stream errors. Errors before the stream (HTTP status, JSON error bodies) and
        transport failures mid-stream are raised here."""
        try:
            async with self._client.stream(
                "POST",
                self.url(path),
                content=encode_body(payload),
                headers=self._headers(stream=True),
            ) as response:
                if response.status_code >= httpx.codes.BAD_REQUEST or _is_json(response):
                    body = (await response.aread()).decode("utf-8", "replace")
                    self._decode(response.status_code, response.headers, lambda: body)
                    raise self.protocol_error(
                        response.status_code, body, "expected an event stream"
                    )
                async for event in iter_sse(response.aiter_lines()):
                    try:
                        sink(event)
                    except WireShapeError as exc:
                        raise self.protocol_error(None, event.data, str(exc)) from exc
        except httpx.TransportError as exc:
            raise transport_error(self.provider_name, exc) from exc

    def decode_event(self, event: SseEvent) -> JsonObject:
        try:
            value = loads(event.data)
        except WireShapeError as exc:
            raise self.protocol_error(None, event.data, str(exc)) from exc
        if not isinstance(value, dict):
            raise self.protocol_error(None, event.data, "event data is not a JSON object")
        return {str(k): v for k, v in value.items()}


def _utf8(response: httpx.Response) -> bool:
    """Whether the body's text is its bytes read as UTF-8 (no other charset declared), so
    the bytes can be decoded directly. The header is parsed only when it names a charset
    (``charset_encoding`` parses it on every call, and it rarely does)."""
    if "charset" not in response.headers.get("content-type", "").lower():
        return True
    charset = response.charset_encoding
    return charset is None or charset.lower().replace("_", "-") in {"utf-8", "utf8"}


def _is_json(response: httpx.Response) -> bool:
    """A JSON body where events were expected: an error body, or a server that ignored
    ``stream``. Any other content type is read as events (fakes may omit the header)."""
    return "json" in response.headers.get("content-type", "")
