"""The proxy's upstream connections as many small httpx pools, each request sent through
the pool with the fewest requests in flight.

httpcore's pool scans every connection on each request it queues and each it releases,
and for each idle one every other one (``_assign_requests_to_connections``: an
``is_idle`` list per connection, and a ``poll`` syscall per idle socket to see whether the
server closed it). With ``n`` connections that is O(n²) work per request on the proxy's
one event loop: profiled at 20 concurrent sessions, 447,000 ``is_idle`` calls and 30,000
``poll`` calls for 1,000 requests; at 500 sessions it is ~250,000 calls per request, the
loop stalls, and every answer in flight waits (the same cost ``harness.load.transport``
shards away for a load run's client). Pools of at most ``SHARD_CONNECTIONS`` keep that
work constant; the least-loaded pool is the first with the fewest in flight, so idle
connections of the first pools are reused before new ones are opened.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Final

import httpx

SHARD_CONNECTIONS: Final = 8
"""Connections per pool: its scans stay a few dozen calls, and a pool only fills when
more requests are in flight than pools."""


class BalancedPool(httpx.AsyncBaseTransport):
    """At most ``max_connections`` connections, as pools of ``SHARD_CONNECTIONS``."""

    def __init__(
        self,
        max_connections: int,
        *,
        keepalive_expiry: float,
        per_pool: int = SHARD_CONNECTIONS,
    ) -> None:
        count = max(1, math.ceil(max_connections / per_pool))
        size = max(1, math.ceil(max_connections / count))
        limits = httpx.Limits(
            max_connections=size, max_keepalive_connections=size, keepalive_expiry=keepalive_expiry
        )
        tls = httpx.create_ssl_context()  # one for all: each loads the CA bundle (~20 ms)
        self._pools = [httpx.AsyncHTTPTransport(limits=limits, verify=tls) for _ in range(count)]
        self._in_flight = [0] * count

    @property
    def pools(self) -> int:
        return len(self._pools)

    @property
    def in_flight(self) -> tuple[int, ...]:
        """Requests whose answer is not closed yet, per pool."""
        return tuple(self._in_flight)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        in_flight = self._in_flight
        index = in_flight.index(min(in_flight))
        in_flight[index] += 1
        try:
            response = await self._pools[index].handle_async_request(request)
        except BaseException:
            in_flight[index] -= 1
            raise
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Counted(response, self, index),
            extensions=response.extensions,
        )

    def _done(self, index: int) -> None:
        self._in_flight[index] -= 1

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()


class _Counted(httpx.AsyncByteStream):
    """The answer's stream; closing it ends the request's count in its pool (once)."""

    def __init__(self, response: httpx.Response, owner: BalancedPool, index: int) -> None:
        self._response, self._owner, self._index = response, owner, index
        self._open = True

    async def __aiter__(self) -> AsyncIterator[bytes]:
        stream = self._response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        async for chunk in stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._response.aclose()
        finally:
            if self._open:
                self._open = False
                self._owner._done(self._index)


__all__ = ["SHARD_CONNECTIONS", "BalancedPool"]
