"""One real HTTP server (uvicorn on 127.0.0.1) for every fake of a run.

Each session's fake is mounted under its own path prefix, ``/s/<key>``, so the runtime
reaches a fresh fake per scenario at ``http://127.0.0.1:PORT/s/<key>`` over a real
socket, and a run starts one server rather than one per scenario. The prefix is taken off
before the fake's app sees the request, so its log shows the paths the runtime asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any, Final

import uvicorn

from fakes import FakeProvider
from fakes.serving.app import build_app

LOOPBACK: Final = "127.0.0.1"
PREFIX: Final = "/s/"
START_TIMEOUT_S: Final = 10.0
STOP_TIMEOUT_S: Final = 10.0
POLL_S: Final = 0.01
LISTEN_BACKLOG: Final = 128
NOT_FOUND: Final = 404

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class Dispatcher:
    """An ASGI app routing ``/s/<key>/rest`` to the app mounted as ``key``."""

    def __init__(self) -> None:
        self._apps: dict[str, App] = {}
        self._lock = threading.Lock()

    def mount(self, key: str, app: App) -> None:
        with self._lock:
            self._apps[key] = app

    def unmount(self, key: str) -> None:
        with self._lock:
            self._apps.pop(key, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        key, _, rest = path.removeprefix(PREFIX).partition("/")
        with self._lock:
            app = self._apps.get(key) if path.startswith(PREFIX) else None
        if app is None or scope["type"] != "http":
            await _not_found(send, path)
            return
        inner = dict(scope, path="/" + rest, raw_path=("/" + rest).encode("utf-8"))
        await app(inner, receive, send)


async def _not_found(send: Send, path: str) -> None:
    body = json.dumps({"error": f"no fake mounted at {path}"}).encode("utf-8")
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": NOT_FOUND, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _QuietServer(uvicorn.Server):
    """A uvicorn server that leaves the process's signals alone: the run routes SIGINT and
    SIGTERM itself (``harness.interrupt``), and uvicorn would re-raise them after its
    shutdown."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class FakeHost:
    """The server, served by the run's own event loop (no thread: the fakes, the runtime's
    pipes and the in-process reference share one loop and never wait for a GIL switch);
    ``mount(key, fake)`` returns the fake's base URL."""

    def __init__(self) -> None:
        self.dispatcher = Dispatcher()
        # IPPROTO_TCP: asyncio then sets TCP_NODELAY on accepted sockets (see fakes.serving.mounts)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._socket.bind((LOOPBACK, 0))
        self._socket.listen(LISTEN_BACKLOG)
        config = uvicorn.Config(
            self.dispatcher,
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        self._server = _QuietServer(config)
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}"

    async def start(self) -> None:
        self._task = asyncio.create_task(self._server.serve(sockets=[self._socket]))
        async with asyncio.timeout(START_TIMEOUT_S):
            while not self._server.started:
                if self._task.done():
                    await self._task  # its error, if it failed
                    raise RuntimeError("fake host stopped while starting")
                await asyncio.sleep(POLL_S)

    def mount(self, key: str, fake: FakeProvider) -> str:
        self.dispatcher.mount(key, build_app(fake))
        return f"{self.url}{PREFIX}{key}"

    def unmount(self, key: str) -> None:
        self.dispatcher.unmount(key)

    async def stop(self) -> None:
        # Nothing to drain: every session has ended (or the run was stopped), and a
        # graceful shutdown waits in 0.1 s ticks for idle keep-alive connections.
        self._server.should_exit = self._server.force_exit = True
        if self._task is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_TIMEOUT_S):
                    await self._task
        self._socket.close()
