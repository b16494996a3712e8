"""HTTP plumbing of a load run: a sharded connection pool, and a synchronous bridge.

``ShardedTransport``: the run's one ``httpx.AsyncClient`` keeps ``concurrency``
connections, split into pools of at most ``SHARD_CONNECTIONS``. httpcore's pool scans every
connection, and for each one every other one, on each request it queues and each it
releases (``_assign_requests_to_connections``, which polls each idle socket); with 50
connections that cost more CPU per call than the agent itself, so a load run would have
measured httpcore. A session sends one request at a time and each worker slot runs one
session at a time, so one connection per slot is all a slot ever uses: each slot gets a
pool of its own (``SHARD_CONNECTIONS = 1``; with 8 per pool the harness spent ~0.1 ms more
per call in httpcore than with 1). Each session sends its worker slot in ``SLOT_HEADER``;
slot ``s`` uses pool ``s % pools``, so no pool ever has more requests in flight than
connections.

``InlineSyncTransport`` and ``drive``: for Locust's gevent workers. The agent is async, but
an asyncio event loop cannot run in several greenlets of one thread. The bridge sends each
request through a *synchronous* httpx transport (whose sockets gevent has patched, so a
blocking read yields to the other greenlets) and returns without ever suspending, so
``drive`` runs a whole agent turn as a plain call, with no event loop at all.

**A killed greenlet** (Locust stopping a user that outlived ``--stop-timeout``) gets
``GreenletExit``, a ``BaseException`` the agent does not know, most often inside a
provider call: the call, which the fake server has read and counts, was lost to the
summary and the metrics (issue 28: 90 calls summarised, 96 served). ``cancelled_when_killed``
turns such an exception into ``Killed``, an ``asyncio.CancelledError``, so the agent counts
the call and the turn ``cancelled`` as under asyncio; ``drive`` re-raises the original
exception once the coroutine has unwound, so the greenlet still dies of its kill.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import ssl
from collections.abc import Coroutine, Iterator
from typing import Any, Final, TypeVar

import httpx

from harness.runtime.errors import HarnessError

SLOT_HEADER: Final = "x-trimscope-load-slot"
SHARD_CONNECTIONS: Final = 1

T = TypeVar("T")


class ShardedTransport(httpx.AsyncBaseTransport):
    """``connections`` connections as pools of at most ``per_pool`` (see the docstring)."""

    def __init__(self, connections: int, per_pool: int = SHARD_CONNECTIONS) -> None:
        count = max(1, math.ceil(connections / per_pool))
        size = max(1, math.ceil(connections / count))
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        tls = tls_context()
        self._pools = [httpx.AsyncHTTPTransport(limits=limits, verify=tls) for _ in range(count)]

    @property
    def pools(self) -> int:
        return len(self._pools)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            slot = int(request.headers.get(SLOT_HEADER, "0"))
        except ValueError:
            slot = 0
        return await self._pools[slot % len(self._pools)].handle_async_request(request)

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context for every pool of every run in the process: each new one
    loads the CA bundle again (~20 ms, charged to the run that builds its client). It is
    never changed after it is made, so sharing it is safe."""
    return httpx.create_ssl_context()


class InlineSyncTransport(httpx.AsyncBaseTransport):
    """An async transport that does its I/O synchronously, without suspending."""

    def __init__(self, transport: httpx.BaseTransport) -> None:
        self._transport = transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        with cancelled_when_killed():
            return await self._send(request)

    async def _send(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        sync_request = httpx.Request(
            request.method,
            request.url,
            headers=request.headers,
            content=body,
            extensions=request.extensions,
        )
        response = self._transport.handle_request(sync_request)
        try:
            stream = response.stream
            if not isinstance(stream, httpx.SyncByteStream):
                raise TypeError("a synchronous transport returned an asynchronous stream")
            raw = b"".join(stream)  # still encoded: the async client decodes it
        finally:
            response.close()
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(raw),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        self._transport.close()


class Killed(asyncio.CancelledError):
    """What a coroutine driven by ``drive`` unwinds with when its greenlet is killed;
    ``original`` is the kill (``GreenletExit``), which ``drive`` raises again."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(type(original).__name__)
        self.original = original


@contextlib.contextmanager
def cancelled_when_killed() -> Iterator[None]:
    """Around a blocking step of a driven coroutine (I/O, a sleep): a ``BaseException``
    that is neither an ``Exception`` nor a cancellation (a greenlet's kill) becomes
    ``Killed``, so the agent counts what it was doing as cancelled."""
    try:
        yield
    except (Exception, asyncio.CancelledError):
        raise
    except BaseException as kill:
        raise Killed(kill) from kill


class SuspendedError(HarnessError, RuntimeError):
    """A driven coroutine awaited something that needs an event loop."""


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (its I/O is synchronous) to completion; one
    that unwound from a kill (``Killed``) raises the kill itself."""
    try:
        awaited = coroutine.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    except Killed as killed:
        raise killed.original from None
    coroutine.close()
    raise SuspendedError(f"the coroutine awaited {awaited!r}; drive() runs no event loop")
