"""Upstream connections that send a request in one write, not one per piece.

httpcore writes a request's head, each body chunk and the end of the message each with a
``send`` of its own. On loopback every ``send`` wakes the upstream's process, which
reads a head it cannot answer yet and sleeps again; on a busy machine the proxy often
loses its core at that wake-up (a py-spy profile at 50 sessions: a quarter of the
proxy's running time inside ``send``, the request's head and body in about equal parts).
``CoalescingBackend`` holds what is written until the connection next reads (the request
is whole: the answer is awaited) or ``FLUSH_BYTES`` are held, then sends it at once. The
bytes and their order are unchanged; only the ``send`` calls are fewer.

A write that fails while flushing before a read is passed over as httpcore passes over a
failed request write: the read then gets the upstream's early answer (a 413, say) or
the connection's failure.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any, Final

import httpcore

FLUSH_BYTES: Final = 64 * 1024
"""At most this much is held: a long upload is sent as it comes, in pieces this large."""


class CoalescingStream(httpcore.AsyncNetworkStream):
    """One connection; writes held until the next read (or ``FLUSH_BYTES``)."""

    def __init__(self, stream: httpcore.AsyncNetworkStream) -> None:
        self._stream = stream
        self._held: list[bytes] = []
        self._held_bytes = 0

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._held.append(buffer)
        self._held_bytes += len(buffer)
        if self._held_bytes >= FLUSH_BYTES:
            await self._flush(timeout)

    async def _flush(self, timeout: float | None) -> None:
        if not self._held:
            return
        data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
        self._held.clear()
        self._held_bytes = 0
        await self._stream.write(data, timeout)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            await self._flush(timeout)
        except httpcore.WriteError:
            pass  # as httpcore does: the answer may still come (see the module's docstring)
        return await self._stream.read(max_bytes, timeout)

    async def aclose(self) -> None:
        self._held.clear()  # nobody reads an answer to them
        await self._stream.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        await self._flush(timeout)
        secured = await self._stream.start_tls(ssl_context, server_hostname, timeout)
        return CoalescingStream(secured)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class CoalescingBackend(httpcore.AsyncNetworkBackend):
    """httpcore's own backend, its streams wrapped in ``CoalescingStream``."""

    def __init__(self, backend: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._backend = backend or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_tcp(
            host, port, timeout, local_address, socket_options
        )
        return CoalescingStream(stream)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_unix_socket(path, timeout, socket_options)
        return CoalescingStream(stream)

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


__all__ = ["FLUSH_BYTES", "CoalescingBackend", "CoalescingStream"]
