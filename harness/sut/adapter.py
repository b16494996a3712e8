"""Write a protocol runtime around an in-process agent in ~40 lines (stdlib only).

This file imports nothing outside the standard library, so an adapter's own venv can
copy it as is. It reads trimscope's lines from stdin, calls your callbacks and writes the
answers on stdout (``docs/sut-protocol.md``)::

    from adapter import Adapter, Callbacks, Session, TurnFailed

    async def on_open(session: Session) -> None:
        session.state = MyAgent(session.open["provider"], session.open["system"])

    async def on_user(session: Session, text: str) -> str:
        return await session.state.reply(text, tool=session.call_tool)

    Adapter("my-runtime", "1.0", ["openai_chat"], ["tools", "system"],
            Callbacks(on_open, on_user)).main()

``on_open`` raises ``Unsupported(reason)`` for a session it cannot run; ``on_user``
returns the turn's answer or raises ``TurnFailed(kind, message)`` (any other exception
is an ``internal`` error). While the adapter runs, ``print`` goes to stderr: stdout
carries protocol lines only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import IO, Any, Final

PROTOCOL_VERSION: Final = 1
MAX_LINE_BYTES: Final = 1_048_576
MAX_HELD_BYTES: Final = 65_536
"""Event lines held for the next message are written at once beyond this many bytes."""


class Unsupported(Exception):
    """``on_open`` cannot run this session; the message is the reason."""


class TurnFailed(Exception):
    """A turn ends in an error of ``kind``: ``overflow``, ``provider`` or ``internal``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Session:
    """One session: the ``open`` message as sent, and whatever the adapter keeps."""

    id: str
    open: dict[str, Any]
    adapter: Adapter
    state: Any = None
    _tool_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """Ask trimscope to run a tool; its result's content."""
        call_id = f"tool-{next(self._tool_ids)}"
        result = self.adapter.expect_tool_result(self.id, call_id)
        self.adapter.write(
            {"op": "tool_call", "session": self.id, "id": call_id, "name": name,
             "arguments": arguments}
        )  # fmt: skip
        return await result

    def event(self, kind: str, **fields: Any) -> None:
        """Self-report a ``trim``, ``compaction`` or ``recovery`` with its own fields. The
        line goes out with the next message (the turn's tool call, answer or error): one
        write for both, not a wake-up of trimscope per event (``Adapter.hold``)."""
        self.adapter.hold({**fields, "op": "event", "session": self.id, "kind": kind})


async def _nothing(session: Session) -> None:
    return None


@dataclass(frozen=True)
class Callbacks:
    on_open: Callable[[Session], Awaitable[None]]
    on_user: Callable[[Session, str], Awaitable[str]]
    on_close: Callable[[Session], Awaitable[None]] = _nothing


class Adapter:
    def __init__(
        self, name: str, version: str, wires: list[str], features: list[str], callbacks: Callbacks
    ) -> None:
        self.hello = {"op": "hello", "protocol": PROTOCOL_VERSION, "name": name,
                      "version": version, "wires": wires, "features": features}  # fmt: skip
        self.callbacks = callbacks
        self.sessions: dict[str, Session] = {}
        self._pending: dict[tuple[str, str], asyncio.Future[str]] = {}
        self._turns: set[asyncio.Task[None]] = set()
        self._out: IO[bytes] = sys.stdout.buffer
        self._held: list[bytes] = []
        self._held_bytes = 0

    @staticmethod
    def _line(message: dict[str, Any]) -> bytes:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        return line.encode("utf-8") + b"\n"

    def write(self, message: dict[str, Any]) -> None:
        """Write ``message`` now, after the lines held for it (one write for all)."""
        held, self._held, self._held_bytes = self._held, [], 0
        self._out.write(b"".join([*held, self._line(message)]))
        self._out.flush()

    def hold(self, message: dict[str, Any]) -> None:
        """Write ``message`` with the next one: an event precedes its turn's next message
        anyway, and each write to the pipe wakes trimscope (on a busy machine a context
        switch each way: ``bench/sut.py``). Beyond ``MAX_HELD_BYTES`` held, written now."""
        line = self._line(message)
        self._held.append(line)
        self._held_bytes += len(line)
        if self._held_bytes > MAX_HELD_BYTES:
            held, self._held, self._held_bytes = self._held, [], 0
            self._out.write(b"".join(held))
            self._out.flush()

    def log(self, text: str) -> None:
        self.write({"op": "log", "text": text})

    def expect_tool_result(self, session: str, call_id: str) -> asyncio.Future[str]:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._pending[(session, call_id)] = future
        return future

    def main(self) -> None:
        """Serve until ``bye`` or end of input, then exit 0."""
        self._out = sys.stdout.buffer
        with contextlib.redirect_stdout(sys.stderr):  # stray prints must not break lines
            asyncio.run(self.serve())
        sys.exit(0)

    async def serve(self) -> None:
        readline = await self._line_reader()
        try:
            while line := await readline():
                try:
                    message = json.loads(line)
                except ValueError:  # not trimscope's: say so on stderr, keep serving
                    sys.stderr.write(f"adapter: ignored a non-JSON line: {line[:80]!r}\n")
                    continue
                if message.get("op") == "bye":
                    break
                await self.dispatch(message)
        finally:
            for task in self._turns:
                task.cancel()
            if self._held:  # events of a turn that never ended: written, not lost
                self._out.write(b"".join(self._held))
                self._out.flush()

    async def _line_reader(self) -> Callable[[], Awaitable[bytes]]:
        """stdin's lines: from the pipe trimscope gives, or (a file, a terminal) through a
        thread, which asyncio's pipe transport does not read."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        except ValueError:
            stdin = sys.stdin.buffer

            async def from_thread() -> bytes:
                return await loop.run_in_executor(None, stdin.readline, MAX_LINE_BYTES)

            return from_thread
        return reader.readline

    async def dispatch(self, message: dict[str, Any]) -> None:
        op, session_id = message.get("op"), str(message.get("session", ""))
        if op == "hello":
            self.write(self.hello)
        elif op == "open":
            await self._open(Session(session_id, message, self))
        elif op == "user" and session_id not in self.sessions:
            self._error(Session(session_id, {}, self), "internal", "no such session is open")
        elif op == "user":
            task = asyncio.create_task(self._turn(self.sessions[session_id], message["text"]))
            self._turns.add(task)
            task.add_done_callback(self._turns.discard)
        elif op == "tool_result":
            future = self._pending.pop((session_id, str(message["id"])), None)
            if future is not None and not future.done():
                future.set_result(str(message["content"]))
        elif op == "close" and session_id in self.sessions:
            await self.callbacks.on_close(self.sessions.pop(session_id))

    async def _open(self, session: Session) -> None:
        try:
            await self.callbacks.on_open(session)
        except Unsupported as reason:
            self.write({"op": "unsupported", "session": session.id, "reason": str(reason)})
            return
        self.sessions[session.id] = session
        self.write({"op": "opened", "session": session.id})

    async def _turn(self, session: Session, text: str) -> None:
        try:
            answer = await self.callbacks.on_user(session, text)
        except TurnFailed as failed:
            self._error(session, failed.kind, str(failed))
        except Exception as error:  # any other failure is the adapter's own: internal
            self._error(session, "internal", f"{type(error).__name__}: {error}")
        else:
            self.write({"op": "answer", "session": session.id, "text": answer})

    def _error(self, session: Session, kind: str, message: str) -> None:
        self.write({"op": "error", "session": session.id, "kind": kind, "message": message})
