"""The wire observer inside ``trimscope load`` (``--wire-findings FILE``): every request the
fakes receive, read as ``trimscope proxy`` reads it, beside what the agents announce.

``WatchingTransport`` wraps the run's one client transport: a request's body (the agent
sends it whole) and its answer's bytes as the agent reads them (at most
``max_body_bytes`` of each) are fed, once the answer is read or closed, to one
``harness.wire.WireObserver`` for the whole run, sessions told apart by the header every
load client sends (``template.SESSION_HEADER``). Memory stays bounded: the observer keeps
per session fingerprints and sizes of rows, never bodies (idle sessions expire, at most
``DEFAULT_MAX_SESSIONS`` are kept); the findings are spooled to an anonymous temporary
file as they come and counted by kind; ``close`` writes the file atomically (an
interrupted run writes the findings of what finished; its summary says it was
interrupted). The observer's work runs on the sessions' event loop, inside the calls'
measured time: a run with ``--wire-findings`` is not one to time the agent by.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Final

import httpx

from harness.atomic import atomic_write
from harness.load.template import SESSION_HEADER
from harness.load.transport import ShardedTransport
from harness.providers.overflow.classify import extended_is_overflow
from harness.wire import Finding, ObserverConfig, WireExchange, WireKind, WireObserver, wire_of
from harness.wire.observer import DEFAULT_MAX_BODY_BYTES

STREAM_TYPES: Final = ("text/event-stream", "application/x-ndjson")
"""Answer media types the fakes stream in (SSE; NDJSON for Ollama)."""


class WireWatch:
    """The run's observer, its findings counted by kind and spooled for ``path``."""

    def __init__(self, path: Path, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.path = path
        self.max_body_bytes = max_body_bytes
        self.observer = WireObserver(
            ObserverConfig(
                session_header=SESSION_HEADER,
                max_body_bytes=max_body_bytes,
                is_overflow=extended_is_overflow,
            )
        )
        self.counts: Counter[str] = Counter()
        # open for the whole run (closed by ``close``): the findings never wait in memory
        self._spool: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115

    def transport(self, concurrency: int) -> WatchingTransport:
        """The run's usual transport (``ShardedTransport``), watched."""
        return WatchingTransport(ShardedTransport(concurrency), self)

    def observe(self, exchange: WireExchange) -> tuple[Finding, ...]:
        findings = self.observer.observe(exchange)
        for finding in findings:
            self.counts[finding.kind] += 1
            line = json.dumps(finding.to_json(), separators=(",", ":")) + "\n"
            self._spool.write(line.encode("utf-8"))
        return findings

    def close(self) -> str:
        """Write ``path`` (atomically) and say what it holds, in one line."""
        self._spool.seek(0)

        def fill(stream: IO[bytes]) -> None:
            shutil.copyfileobj(self._spool, stream)

        atomic_write(self.path, fill)
        self._spool.close()
        kinds = ", ".join(f"{kind} {count:,}" for kind, count in sorted(self.counts.items()))
        total = sum(self.counts.values())
        return f"wire findings: {total:,} ({kinds or 'none'}) written to {self.path}"


class WatchingTransport(httpx.AsyncBaseTransport):
    """``inner``, with each generation exchange shown to ``watch`` once it is over."""

    def __init__(self, inner: httpx.AsyncBaseTransport, watch: WireWatch) -> None:
        self._inner = inner
        self._watch = watch

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        wire = wire_of(request.method, request.url.path)
        response = await self._inner.handle_async_request(request)
        if wire is None:
            return response
        copy = _Copy(self._watch, wire, request, response)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=copy,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Copy(httpx.AsyncByteStream):
    """The answer's bytes passed on, the first ``max_body_bytes`` kept; the exchange is
    observed when the stream closes (read to its end, or abandoned)."""

    def __init__(
        self, watch: WireWatch, wire: WireKind, request: httpx.Request, answer: httpx.Response
    ) -> None:
        self._watch, self._wire, self._request, self._answer = watch, wire, request, answer
        self._kept: list[bytes] = []
        self._room = watch.max_body_bytes
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        stream = self._answer.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        async for chunk in stream:
            if self._room > 0:
                self._kept.append(chunk[: self._room])
                self._room -= len(chunk)
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._answer.aclose()
        finally:
            self._observe()

    def _observe(self) -> None:
        if self._done:
            return
        self._done = True
        request, answer = self._request, self._answer
        content_type = answer.headers.get("content-type", "").split(";")[0].strip().lower()
        try:
            body = request.content
        except httpx.RequestNotRead:
            body = b""  # a streamed request body: unobservable (the agent sends none)
        self._watch.observe(
            WireExchange(
                wire=self._wire,
                method=request.method,
                path=request.url.path,
                request_headers={k.lower(): v for k, v in request.headers.items()},
                request_body=body,
                status=answer.status_code,
                response_headers={k.lower(): v for k, v in answer.headers.items()},
                response_body=b"".join(self._kept),
                streamed=content_type in STREAM_TYPES,
            )
        )


def watch_wire(path: Path | None, *, locust: bool, sweep: bool) -> WireWatch | None:
    """``--wire-findings``' watch (``None`` without it); ``ValueError`` when it is asked
    of a run it cannot watch (Locust's clients run in other processes; a sweep is many
    runs)."""
    if path is None:
        return None
    if locust or sweep:
        raise ValueError("--wire-findings watches one asyncio run; not with --locust or --sweep")
    return WireWatch(path)


__all__ = ["WatchingTransport", "WireWatch", "watch_wire"]
