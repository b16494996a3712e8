"""The proxy's upstream pool (``harness.proxy.pool``): requests go to the pool with the
fewest in flight, so concurrent requests spread over pools of a few connections each and
idle connections of the first pools are reused; every request's count ends when its answer
is closed, whether it was read, abandoned, or never came."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest
from starlette.types import ASGIApp

from harness.proxy.pool import BalancedPool
from tests.proxy.upstreams import echo_app

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_concurrent_requests_spread_over_pools_and_each_count_ends(
    serve_app: Callable[[ASGIApp], str],
) -> None:
    base = serve_app(echo_app())
    pool = BalancedPool(12, keepalive_expiry=4.0, per_pool=3)
    assert pool.pools == 4
    async with httpx.AsyncClient(transport=pool, base_url=base) as client:
        async with client.stream("POST", "/one", content=b"x") as held:
            assert pool.in_flight == (1, 0, 0, 0)  # open until its answer is closed
            async with client.stream("POST", "/two", content=b"y"):
                assert pool.in_flight == (1, 1, 0, 0)  # the next goes to the least loaded
            assert pool.in_flight == (1, 0, 0, 0)
            await held.aread()
        assert pool.in_flight == (0, 0, 0, 0)
        answers = await asyncio.gather(*(client.post(f"/{i}", content=b"z") for i in range(9)))
        assert {answer.status_code for answer in answers} == {200}
        assert pool.in_flight == (0, 0, 0, 0)


async def test_a_request_that_fails_ends_its_count() -> None:
    pool = BalancedPool(4, keepalive_expiry=4.0, per_pool=2)
    async with httpx.AsyncClient(transport=pool) as client:
        with pytest.raises(httpx.ConnectError):
            await client.post("http://127.0.0.1:9/v1/chat/completions", content=b"{}")
    assert pool.in_flight == (0, 0)
