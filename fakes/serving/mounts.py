"""Three ways to reach the same fake: in-process, through respx, over a real socket.

- ``asgi_transport(fake)`` / ``asgi_client(fake)``: ``httpx.ASGITransport`` in process;
- ``mount_respx(router, fake, base_url)``: a respx route whose side effect is respx's
  ASGI handling, so code that builds its own ``httpx.AsyncClient`` reaches the fake
  (respx runs ASGI apps for async clients only);
- ``FakeServer(fake)``: uvicorn on 127.0.0.1 in a background thread (a free port by
  default), ready when ``start()`` returns, stopped by ``stop()``;
- ``serve_forever(fake, ...)``: uvicorn in the calling (main) thread for the CLI,
  stopping cleanly on SIGINT / SIGTERM.

A scripted ``drop_mid_stream`` closes a real connection mid-body; the in-process mounts
raise the same ``httpx.RemoteProtocolError`` (they buffer the body, so the client gets
no partial data first).
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any

import httpx
import respx
from respx.handlers import AsyncTransportHandler

from fakes.engine import FakeProvider
from fakes.serving.answer import StreamDropped
from fakes.serving.app import build_app
from fakes.serving.log import SERVED_EXCHANGES

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette

LOOPBACK = "127.0.0.1"
DEFAULT_BASE_URL = "http://fake.test"
_POLL_SECONDS = 0.01


def _dropped(error: BaseException) -> StreamDropped | None:
    if isinstance(error, StreamDropped):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            if found := _dropped(inner):
                return found
    return None


class FakeTransport(httpx.ASGITransport):
    """``httpx.ASGITransport`` that reports a scripted drop as httpx does over a socket."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await super().handle_async_request(request)
        except Exception as error:
            dropped = _dropped(error)
            if dropped is None:
                raise
            message = f"peer closed connection without sending complete message body ({dropped})"
            raise httpx.RemoteProtocolError(message, request=request) from error


def asgi_transport(fake: FakeProvider) -> FakeTransport:
    return FakeTransport(app=build_app(fake))


def asgi_client(
    fake: FakeProvider, base_url: str = DEFAULT_BASE_URL, **kwargs: Any
) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=asgi_transport(fake), base_url=base_url, **kwargs)


def mount_respx(router: respx.MockRouter, fake: FakeProvider, base_url: str) -> respx.Route:
    """Route every request under ``base_url`` to the fake, through respx."""
    handler = AsyncTransportHandler(asgi_transport(fake))
    return router.route(url__startswith=base_url.rstrip("/") + "/").mock(side_effect=handler)


class _QuietDrops(logging.Filter):
    """Hide uvicorn's traceback for a scripted drop: it is the point, not a bug."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and _dropped(record.exc_info[1] or Exception()))


def _bind(host: str, port: int) -> socket.socket:
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say so, and accepted
    # sockets inherit it here; without it Nagle's algorithm and delayed ACKs add ~40 ms to
    # every answer the server writes in more than one piece.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


_QUIET_DROPS = _QuietDrops()


def _config(
    fake: FakeProvider | Starlette, log_level: str, graceful_seconds: float
) -> uvicorn.Config:
    # uvicorn is imported only by what serves: loading a scenario or building an in-process
    # fake (``trimscope validate``, ``run``) then never pays for it.
    import uvicorn  # noqa: PLC0415

    logger = logging.getLogger("uvicorn.error")
    if _QUIET_DROPS not in logger.filters:
        logger.addFilter(_QUIET_DROPS)
    return uvicorn.Config(
        build_app(fake) if isinstance(fake, FakeProvider) else fake,  # or a replay's app
        lifespan="off",
        log_level=log_level,
        timeout_graceful_shutdown=max(1, int(graceful_seconds)),
        access_log=False,
    )


class FakeServer:
    """A real HTTP server for one fake, in a background thread; also a context manager."""

    def __init__(
        self,
        fake: FakeProvider,
        host: str = LOOPBACK,
        port: int = 0,
        *,
        log_level: str = "warning",
        graceful_seconds: float = 1.0,
    ) -> None:
        self.fake = fake
        import uvicorn  # noqa: PLC0415  (see _config)

        self._socket = _bind(host, port)
        self._server = uvicorn.Server(_config(fake, log_level, graceful_seconds))
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self, timeout: float = 10.0) -> str:
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name=f"fake-{self.fake.profile.name}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"fake server did not start within {timeout}s")
            time.sleep(_POLL_SECONDS)
        return self.base_url

    def request_stop(self) -> None:
        """Ask the server to shut down without waiting (``stop`` waits)."""
        self._server.should_exit = True

    def stop(self, timeout: float = 10.0) -> None:
        self.request_stop()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise RuntimeError(f"fake server did not stop within {timeout}s")
        self._socket.close()

    def __enter__(self) -> FakeServer:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


def _announcing_server(config: uvicorn.Config, on_ready: Callable[[], None]) -> uvicorn.Server:
    """A uvicorn server that calls ``on_ready`` once it accepts connections (the class is
    made here so that uvicorn is imported only when a server is wanted)."""
    import uvicorn  # noqa: PLC0415  (see _config)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                on_ready()

    return AnnouncingServer(config)


def serve_forever(
    fake: FakeProvider | Starlette,
    host: str = LOOPBACK,
    port: int = 0,
    *,
    on_ready: Callable[[str], None],
    log_level: str = "warning",
) -> None:
    """Serve in this (main) thread until SIGINT or SIGTERM, then return normally.

    uvicorn catches both signals and re-raises them after its graceful shutdown; handlers
    installed here beforehand turn that re-raise into a plain return (exit status 0).
    A fake's log keeps only its last ``SERVED_EXCHANGES`` from then on (``fakes.serving.log``).
    """
    if isinstance(fake, FakeProvider):
        fake.log.keep_last(SERVED_EXCHANGES)
    sock = _bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    server = _announcing_server(
        _config(fake, log_level, 1.0), lambda: on_ready(f"http://{bound_host}:{bound_port}")
    )

    def stop(signum: int, frame: FrameType | None) -> None:
        server.should_exit = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
