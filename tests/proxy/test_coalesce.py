"""Upstream connections send what httpcore writes in one piece before they read, the
same bytes in the same order; the proxy's pools use them."""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio
import httpcore
import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.types import ASGIApp

from harness.proxy.coalesce import FLUSH_BYTES, CoalescingStream
from harness.proxy.pool import BalancedPool
from tests.proxy.upstreams import echo_app


class _Wire(httpcore.AsyncNetworkStream):
    """The connection's far side as the stream sees it: each ``write`` call, and an
    answer to read (``failing``: every write fails, as on a connection the peer closed)."""

    def __init__(self, failing: bool = False) -> None:
        self.sent: list[bytes] = []
        self.failing = failing

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if self.failing:
            raise httpcore.WriteError("closed by the peer")
        self.sent.append(buffer)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return b"HTTP/1.1 413 Too Large\r\n\r\n"

    async def aclose(self) -> None:
        pass


@given(st.lists(st.binary(max_size=3 * FLUSH_BYTES // 2), max_size=6))
def test_the_bytes_written_reach_the_wire_unchanged_in_few_sends(pieces: list[bytes]) -> None:
    wire = _Wire()
    stream = CoalescingStream(wire)

    async def exchange() -> None:
        for piece in pieces:
            await stream.write(piece)
        await stream.read(1024)

    anyio.run(exchange)
    assert b"".join(wire.sent) == b"".join(pieces)
    assert len(wire.sent) <= 1 + sum(map(len, pieces)) // FLUSH_BYTES
    assert all(wire.sent)


def test_a_request_is_one_send_made_at_the_read() -> None:
    wire = _Wire()
    stream = CoalescingStream(wire)

    async def exchange() -> bytes:
        for piece in (b"POST / HTTP/1.1\r\n", b"content-length: 2\r\n\r\n", b"{}", b""):
            await stream.write(piece)
        assert wire.sent == []  # nothing sent before the answer is awaited
        return await stream.read(1024)

    assert anyio.run(exchange).startswith(b"HTTP/1.1 413")
    assert wire.sent == [b"POST / HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}"]


def test_a_failed_send_still_lets_the_upstreams_early_answer_be_read() -> None:
    stream = CoalescingStream(_Wire(failing=True))

    async def exchange() -> bytes:
        await stream.write(b"POST / HTTP/1.1\r\n\r\n")
        return await stream.read(1024)

    assert anyio.run(exchange).startswith(b"HTTP/1.1 413")


@pytest.mark.parametrize("size", [0, 10, FLUSH_BYTES * 3 + 1])
def test_the_proxys_pool_sends_through_coalescing_connections(
    serve_app: Callable[[ASGIApp], str], size: int
) -> None:
    upstream = serve_app(echo_app())
    body = bytes(range(256)) * (size // 256) + b"x" * (size % 256)

    async def post() -> tuple[bytes, object]:
        pool = BalancedPool(8, keepalive_expiry=1.0)
        async with httpx.AsyncClient(transport=pool, base_url=upstream) as client:
            answer = await client.post("/v1/x", content=body)
            return answer.content, answer.extensions["network_stream"]

    content, stream = anyio.run(post)
    assert isinstance(stream, CoalescingStream)
    assert json.loads(content)["body"].encode("latin-1") == body
