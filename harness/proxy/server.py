"""The proxy as a real HTTP server: uvicorn on a socket bound before it starts.

``ProxyServer(proxy).serve(on_ready)`` (an ``AsgiServer`` of the proxy's app) runs in the
calling (main) thread until SIGINT or SIGTERM: uvicorn stops accepting, lets the
exchanges in flight finish for up to ``GRACEFUL_S`` seconds (then cancels them; each is
still observed, as a client that left), closes the upstream connections, and re-raises
the signal to the handler the caller installed (``harness.interrupt.stop_on_signals``).
``start()``/``stop()`` run it in a background thread instead (tests, the bench).
"""

from __future__ import annotations

import gc
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Final, Self

import uvicorn
from starlette.types import ASGIApp

from harness.proxy.app import ObservingProxy

GRACEFUL_S: Final = 5
"""How long a stop waits for exchanges in flight (a stream may run for minutes)."""
BACKLOG: Final = 1024
CLIENT_KEEP_ALIVE_S: Final = 75
"""How long an idle client connection is kept (nginx's default). Longer than clients keep
theirs (httpx 5 s, most SDKs under a minute), so the client closes first: a server that
closes an idle connection as the client reuses it breaks that request (uvicorn's default
is 5 s, httpx's 5 s: a race a bench run of 50 sessions lost)."""
_POLL_S: Final = 0.01


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket with TCP_NODELAY (accepted sockets inherit it: without it,
    Nagle's algorithm and delayed ACKs add ~40 ms to answers written in pieces)."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class _Server(uvicorn.Server):
    """uvicorn, calling ``on_ready`` once it accepts connections."""

    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._on_ready()


class AsgiServer:
    """An ASGI app served by uvicorn on ``host:port`` (0: a free port); the socket is bound
    here, so ``url`` is known before it serves. The proxy's server, and the same stack for
    the bench's bare pass-through and the tests' small upstreams."""

    def __init__(
        self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0,
        *, log_level: str = "warning",
    ) -> None:  # fmt: skip
        self._socket = bind(host, port)
        self._ready = threading.Event()
        config = uvicorn.Config(
            app,
            lifespan="on",
            log_level=log_level,
            access_log=False,  # an access log would print paths with ?key=
            server_header=False,  # the upstream's own server and date headers go through
            date_header=False,
            timeout_graceful_shutdown=GRACEFUL_S,
            timeout_keep_alive=CLIENT_KEEP_ALIVE_S,
        )
        self._server = _Server(config, self._started)
        self._thread: threading.Thread | None = None
        self._announce: Callable[[str], None] | None = None

    def _started(self) -> None:
        self._ready.set()
        if self._announce is not None:
            self._announce(self.url)

    @property
    def started(self) -> bool:
        """Whether it accepted connections at some point."""
        return self._ready.is_set()

    @property
    def url(self) -> str:
        return url_of(self._socket)

    def serve(self, on_ready: Callable[[str], None]) -> None:
        """Serve in this thread until a signal (see the module's docstring)."""
        self._announce = on_ready
        # What the process imported so far (the CLI, typer, rich, prometheus, OpenTelemetry
        # through the telemetry package) lives until exit: out of the collector's sight, a
        # full collection no longer walks it every few dozen requests.
        gc.collect()
        gc.freeze()
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self._socket.close()

    def start(self, timeout: float = 10.0) -> str:
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True,
            name="trimscope-asgi-server",
        )  # fmt: skip
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._ready.wait(_POLL_S):
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the proxy did not start within {timeout} s")
        return self.url

    def stop(self, timeout: float = 15.0) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise RuntimeError(f"the proxy did not stop within {timeout} s")
        self._socket.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:  # fmt: skip
        self.stop()


class ProxyServer(AsgiServer):
    """One observing proxy's server."""

    def __init__(
        self, proxy: ObservingProxy, host: str = "127.0.0.1", port: int = 0,
        *, log_level: str = "warning",
    ) -> None:  # fmt: skip
        super().__init__(proxy.app, host, port, log_level=log_level)
        self.proxy = proxy


__all__ = ["GRACEFUL_S", "AsgiServer", "ProxyServer", "bind", "url_of"]
