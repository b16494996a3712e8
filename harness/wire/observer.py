"""The observer: one object that reads exchanges of many sessions and returns findings.

It keeps per session only fingerprints and sizes of rows, never bodies (bounded memory);
idle sessions expire after ``idle_s`` by the injected clock; at most ``max_sessions`` are
kept (the least recently seen goes first). Overflow answers are recognised by an injected
classifier (``harness.providers.overflow.classify`` in the composition roots; the observer itself
stays stdlib + runtime). The decoders are injected too (``Decoders``): by default those
of ``harness.wire.decode``, imported on first use.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Protocol

from harness.wire.decoded import DecodedAnswer, DecodedRequest, WireDecodeError
from harness.wire.infer import Call, infer_call, is_failure
from harness.wire.model import Finding, WireExchange, WireKind
from harness.wire.prints import print_rows
from harness.wire.sessions import Session, SessionTable

DEFAULT_SESSION_HEADER: Final = "x-trimscope-session"
DEFAULT_IDLE_S: Final = 900.0
DEFAULT_MAX_SESSIONS: Final = 100_000
DEFAULT_MAX_BODY_BYTES: Final = 8 * 1024 * 1024
UNKNOWN_SESSION: Final = "unobservable"
"""The session of an ``unobservable`` finding whose request names none the observer knows."""

# (provider or wire name, HTTP status or None for an in-stream error, the error body) →
# is this a context-window overflow?
OverflowClassifier = Callable[[str, int | None, str], bool]


def _no_overflow(provider: str, status: int | None, body: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class ObserverConfig:
    """Resolved once; every default is the constant above."""

    session_header: str = DEFAULT_SESSION_HEADER
    idle_s: float = DEFAULT_IDLE_S
    max_sessions: int = DEFAULT_MAX_SESSIONS
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    is_overflow: OverflowClassifier = _no_overflow
    clock: Callable[[], float] = field(default=time.monotonic)


@dataclass(frozen=True, slots=True)
class ObservedCall:
    """The last generation exchange the observer read: its session and 1-based call
    there, the model the request named and the answer as decoded (usage, stop reason,
    error text), for a caller that reports the call itself (the proxy's call events)."""

    session: str
    call: int
    model: str | None
    answer: DecodedAnswer


class RequestDecoder(Protocol):
    def __call__(self, wire: WireKind, path: str, body: bytes, /) -> DecodedRequest: ...


class AnswerDecoder(Protocol):
    def __call__(
        self, wire: WireKind, status: int, body: bytes, /, *, streamed: bool
    ) -> DecodedAnswer: ...


class GenerationPath(Protocol):
    def __call__(self, wire: WireKind, method: str, path: str, /) -> bool: ...


@dataclass(frozen=True, slots=True)
class Decoders:
    """The three functions the observer reads bodies with; each raises only
    ``WireDecodeError`` on a body it cannot read."""

    decode_request: RequestDecoder
    decode_answer: AnswerDecoder
    is_generation_request: GenerationPath


STATE_HINTS: Final = ("previous_response_id", "conversation")
"""Hints that name a history the provider holds (OpenAI Responses, Conversations)."""


def holds_state(request: DecodedRequest) -> bool:
    """The request continues a history the provider holds, not all of it in its rows."""
    compacted = any("compaction" in item for item in request.provider_items)
    return compacted or any(request.hints.get(hint) for hint in STATE_HINTS)


def default_decoders() -> Decoders:
    """``harness.wire.decode``'s decoders (imported here, on first use: tests and tools
    that feed decoded records never load them)."""
    module = importlib.import_module("harness.wire.decode")
    return Decoders(
        decode_request=module.decode_request,
        decode_answer=module.decode_answer,
        is_generation_request=module.is_generation_request,
    )


class WireObserver:
    """Feed it every exchange in the order they completed; it answers with the findings
    of that exchange (possibly none). Never raises on bad input: what it cannot read is
    an ``unobservable`` finding, counted in ``unobservable_count``."""

    def __init__(self, config: ObserverConfig | None = None, decoders: Decoders | None = None):
        self.config = config or ObserverConfig()
        self._decoders = decoders
        self._sessions = SessionTable(self.config.idle_s, self.config.max_sessions)
        self._unobservable = 0
        self._last_call: tuple[str, int] | None = None
        self._last_observed: ObservedCall | None = None

    @property
    def decoders(self) -> Decoders:
        if self._decoders is None:
            self._decoders = default_decoders()
        return self._decoders

    @property
    def session_count(self) -> int:
        """Open sessions (expired and evicted ones not counted)."""
        return len(self._sessions)

    @property
    def last_call(self) -> tuple[str, int] | None:
        """The session and call number of the last exchange observed (``None`` before the
        first, or when it was ignored), for a caller that stamps its own records."""
        return self._last_call

    @property
    def last_observed(self) -> ObservedCall | None:
        """The last exchange observed with its request decoded (``None`` before the first,
        or when the last was ignored or its request could not be read)."""
        return self._last_observed

    @property
    def unobservable_count(self) -> int:
        """Exchanges the observer could not read (too large, or not decodable)."""
        return self._unobservable

    def observe(self, exchange: WireExchange) -> tuple[Finding, ...]:
        """The findings of one exchange; non-generation paths are ignored."""
        self._last_call = None
        self._last_observed = None
        try:
            if not self.decoders.is_generation_request(
                exchange.wire, exchange.method, exchange.path
            ):
                return ()
            return self._observe(exchange)
        except WireDecodeError as error:
            return (self._unreadable(exchange, f"the body cannot be decoded: {error}"),)
        except Exception as error:  # the proxy must keep forwarding, whatever came
            return (self._unreadable(exchange, f"observer error: {type(error).__name__}"),)

    def observe_decoded(
        self,
        exchange: WireExchange,
        request: DecodedRequest,
        answer: DecodedAnswer,
    ) -> tuple[Finding, ...]:
        """The findings of an exchange whose bodies are already decoded (the bodies of
        ``exchange`` are not read; its wire, headers and status are)."""
        config = self.config
        now = config.clock()
        self._sessions.expire(now)
        prints = print_rows(request.rows)
        header = exchange.request_headers.get(config.session_header)
        session = self._sessions.pick(header, request.hints, prints, now)
        session.calls += 1
        failed = is_failure(exchange.status, answer.error_text)
        call = Call(
            session=session.name,
            call=session.calls,
            wire=exchange.wire,
            status=exchange.status,
            request=prints,
            answer=print_rows(answer.rows),
            failed=failed,
            overflow=failed and self._is_overflow(exchange, answer),
            provider_edits=answer.provider_edits,
            provider_items=request.provider_items,
            truncation_auto=request.truncation_auto,
            provider_state=holds_state(request),
        )
        self._last_call = (session.name, session.calls)
        self._last_observed = ObservedCall(session.name, session.calls, request.model, answer)
        findings, memory = infer_call(session.memory, call)
        self._sessions.update(session, memory, answer.response_id)
        return findings

    def _observe(self, exchange: WireExchange) -> tuple[Finding, ...]:
        limit = self.config.max_body_bytes
        if len(exchange.request_body) > limit or len(exchange.response_body) > limit:
            return (self._unreadable(exchange, f"a body is over {limit} bytes"),)
        decoders = self.decoders
        request = decoders.decode_request(exchange.wire, exchange.path, exchange.request_body)
        unread = ""
        answer = DecodedAnswer()
        if exchange.status is not None:
            try:
                answer = decoders.decode_answer(
                    exchange.wire,
                    exchange.status,
                    exchange.response_body,
                    streamed=exchange.streamed,
                )
            except WireDecodeError as error:
                unread = f"the answer cannot be decoded: {error}"
        findings = self.observe_decoded(exchange, request, answer)
        if unread and self._last_call is not None:
            # The request was read and counted: the finding is filed under its call.
            self._unobservable += 1
            name, call = self._last_call
            unreadable = Finding(
                session=name, call=call, kind="unobservable", status=exchange.status, detail=unread
            )
            return (*findings, unreadable)
        return findings

    def _is_overflow(self, exchange: WireExchange, answer: DecodedAnswer) -> bool:
        status = exchange.status
        in_stream = status is not None and status < 400  # noqa: PLR2004 - first error status
        return self.config.is_overflow(
            exchange.wire, None if in_stream else status, answer.error_text or ""
        )

    def _unreadable(self, exchange: WireExchange, detail: str) -> Finding:
        """An ``unobservable`` finding, in the session the header names if it is open
        (the call is counted there), else in ``UNKNOWN_SESSION`` numbered by count."""
        self._unobservable += 1
        header = exchange.request_headers.get(self.config.session_header)
        session: Session | None = self._sessions.get(header) if header else None
        if session is not None:
            name, call = session.name, session.calls + 1
            session.calls = call
        else:
            name, call = UNKNOWN_SESSION, self._unobservable
        self._last_call = (name, call)
        return Finding(
            session=name, call=call, kind="unobservable", status=exchange.status, detail=detail
        )
