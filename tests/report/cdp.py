"""Just enough of a headless-Chromium driver for the report's browser test, stdlib only.

Chromium is started with ``--remote-debugging-port=0`` (it picks a free port and writes it
to ``DevToolsActivePort`` in its profile folder, so there is no port race), and spoken to
over the DevTools protocol on a minimal RFC 6455 WebSocket client (text frames, masking,
fragmentation, ping/pong). Structured protocol events are what make the test robust: console
calls, uncaught exceptions, log entries (CSP violations, failed loads) and every network
request arrive as JSON with a level, instead of version-dependent lines on stderr.

Every wait has a deadline; the browser runs in its own process group, which ``close`` ends.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

# Debian's chromium, headless, as root in a container; nothing fetched or synced.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
    "--hide-scrollbars",
)
_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class BrowserError(RuntimeError):
    pass


class WebSocket:
    """A client WebSocket for text messages on a loopback connection."""

    def __init__(self, url: str, deadline: float) -> None:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self.deadline = deadline
        self._sock = socket.create_connection((host, port), timeout=self._remaining())
        key = base64.b64encode(os.urandom(16)).decode()
        self._sock.sendall(
            (
                f"GET {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        self._buffer = b""
        while b"\r\n\r\n" not in self._buffer:
            self._buffer += self._recv()
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        accept = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        if not head.startswith(b"HTTP/1.1 101") or accept.encode() not in head:
            raise BrowserError(f"WebSocket handshake refused: {head[:200]!r}")

    def _remaining(self) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("browser deadline passed")
        return remaining

    def _recv(self) -> bytes:
        self._sock.settimeout(self._remaining())
        chunk = self._sock.recv(65536)
        if not chunk:
            raise BrowserError("the browser closed the connection")
        return chunk

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        size = len(payload)
        if size < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
        elif size < 1 << 16:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        self._sock.sendall(header + mask + masked)

    def send(self, text: str) -> None:
        self._send_frame(0x1, text.encode())

    def _frame(self) -> tuple[int, bool, bytes]:
        """The next frame (opcode, final, payload). Bytes leave the buffer only once the
        whole frame is in, so a timeout never loses part of one."""
        while True:
            frame = _parse_frame(self._buffer)
            if frame is not None:
                opcode, final, payload, used = frame
                self._buffer = self._buffer[used:]
                return opcode, final, payload
            self._buffer += self._recv()

    def receive(self) -> str:
        """The next whole text message (answering pings on the way)."""
        message = b""
        while True:
            opcode, final, payload = self._frame()
            if opcode == 0x8:
                raise BrowserError("the browser closed the WebSocket")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
            elif opcode in {0x0, 0x1}:
                message += payload
                if final:
                    return message.decode()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._send_frame(0x8, b"")
        self._sock.close()


def _parse_frame(buffer: bytes) -> tuple[int, bool, bytes, int] | None:
    """(opcode, final, payload, bytes used) of the frame at the buffer's start, or None."""
    if len(buffer) < 2:
        return None
    first, second = buffer[0], buffer[1]
    size, offset = second & 0x7F, 2
    if size in {126, 127}:
        width = 2 if size == 126 else 8
        if len(buffer) < offset + width:
            return None
        size = int.from_bytes(buffer[offset : offset + width], "big")
        offset += width
    mask = b""
    if second & 0x80:
        mask, offset = buffer[offset : offset + 4], offset + 4
    if len(buffer) < offset + size:
        return None
    payload = buffer[offset : offset + size]
    if mask:
        payload = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    return first & 0x0F, bool(first & 0x80), payload, offset + size


class DevTools:
    """Commands and the events that arrive between their answers."""

    def __init__(self, socket_: WebSocket) -> None:
        self._ws = socket_
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.receive())
            if message.get("id") != ident:
                self.events.append(message)
                continue
            if "error" in message:
                raise BrowserError(f"{method}: {message['error']}")
            result: dict[str, Any] = message.get("result", {})
            return result

    def wait_for(self, method: str) -> dict[str, Any]:
        while not any(e.get("method") == method for e in self.events):
            self.events.append(json.loads(self._ws.receive()))
        return next(e for e in self.events if e.get("method") == method)

    def settle(self, seconds: float) -> None:
        """Collect events for a little longer (late errors, e.g. from timers)."""
        until = min(time.monotonic() + seconds, self._ws.deadline)
        saved, self._ws.deadline = self._ws.deadline, until
        try:
            while True:
                self.events.append(json.loads(self._ws.receive()))
        except TimeoutError:
            pass
        finally:
            self._ws.deadline = saved

    def evaluate(self, expression: str) -> Any:
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise BrowserError(f"evaluation failed: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def named(self, method: str) -> list[dict[str, Any]]:
        return [e["params"] for e in self.events if e.get("method") == method]


def _short_temp() -> str:
    """A temp folder of the browser's own, removed when it is closed: Chromium puts its
    singleton socket folder (``org.chromium.Chromium.*``) in ``TMPDIR`` and leaves it there
    when a signal ends it. Short, because a socket's path is limited to 107 bytes (under a
    pytest ``tmp_path`` Chromium aborts)."""
    return tempfile.mkdtemp(prefix="trimscope-chromium-")


class Chromium:
    """A headless Chromium with DevTools on loopback; use as a context manager."""

    def __init__(self, binary: str, profile: Path, log: Path, deadline: float) -> None:
        self.deadline = deadline
        self._profile = profile
        self._log = log.open("wb")
        self._temp = _short_temp()
        self._process = subprocess.Popen(
            [
                binary,
                *FLAGS,
                f"--user-data-dir={profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env={**os.environ, "TMPDIR": self._temp},
            start_new_session=True,  # its helpers share one process group, ended in close()
        )

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def devtools(self) -> DevTools:
        """A DevTools session attached to the browser's page."""
        port = self._port()
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no *_proxy
        with direct.open(f"http://127.0.0.1:{port}/json/list", timeout=5) as answer:
            targets = json.loads(answer.read())
        page = next(t for t in targets if t.get("type") == "page")
        return DevTools(WebSocket(page["webSocketDebuggerUrl"], self.deadline))

    def _port(self) -> int:
        active = self._profile / "DevToolsActivePort"
        while time.monotonic() < self.deadline:
            if self._process.poll() is not None:
                raise BrowserError(f"chromium exited with {self._process.returncode}")
            with contextlib.suppress(FileNotFoundError, ValueError, IndexError):
                return int(active.read_text().splitlines()[0])
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its DevTools port in time")

    def close(self) -> None:
        if self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait(timeout=3)
        self._log.close()
        shutil.rmtree(self._temp, ignore_errors=True)


def screenshot(binary: str, url: str, target: Path, profile: Path, timeout: float) -> None:
    """Chromium's own ``--screenshot`` of ``url`` into ``target`` (PNG)."""
    temp = _short_temp()
    try:
        _screenshot(binary, url, target, profile, timeout, {**os.environ, "TMPDIR": temp})
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _screenshot(
    binary: str, url: str, target: Path, profile: Path, timeout: float, env: dict[str, str]
) -> None:
    process = subprocess.Popen(
        [
            binary,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--screenshot={target}",
            "--window-size=1280,1800",
            url,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # helpers that outlived the browser
    if process.returncode != 0 or not target.exists():
        raise BrowserError(f"--screenshot failed ({process.returncode}): {err[-2000:]!r}")
