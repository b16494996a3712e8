"""The runtime under test as a child process: started in its own process group, spoken to
over its stdin/stdout pipes, bounded in every way, and always reaped.

What the child writes on stdout is read one line at a time (at most ``MAX_LINE_BYTES``, at
most ``MAX_LINES_PER_SECOND``) and decoded by ``harness.sut.protocol``; what it writes on
stderr is kept as its last ``STDERR_TAIL_LINES`` lines, for the verdict of a crash. Every
wait has a timeout. ``stop`` sends ``bye``, waits ``BYE_GRACE_S``, then signals the whole
process group (SIGTERM, then SIGKILL): no grandchild outlives a run either.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import shlex
import shutil
import signal
import time
from dataclasses import dataclass
from typing import Final

from harness.runtime.errors import HarnessError
from harness.sut.protocol import (
    MAX_LINE_BYTES,
    Bye,
    FromRuntime,
    ProtocolError,
    ToRuntime,
    decode_from_runtime,
    encode,
)

MAX_LINES_PER_SECOND: Final = 2_000
"""More stdout lines than this in one second is a flood: no runtime needs that many."""
STDERR_TAIL_LINES: Final = 20
STDERR_LINE_CHARS: Final = 500
BYE_GRACE_S: Final = 2.0
"""How long a runtime has to exit on its own after ``bye`` (or end of input)."""
TERM_GRACE_S: Final = 2.0
"""How long after SIGTERM before SIGKILL."""
KILL_WAIT_S: Final = 2.0
"""How long to wait for the kernel to report a SIGKILLed child gone."""
EXIT_POLL_S: Final = 0.01


class CommandError(HarnessError, ValueError):
    """The ``--sut`` command cannot be started (empty, not found, not executable)."""


class RuntimeFault(HarnessError):
    """The runtime broke the protocol, timed out or died; ``verdict`` says which."""

    def __init__(self, verdict: str, detail: str) -> None:
        super().__init__(detail)
        self.verdict = verdict
        self.detail = detail


def resolve_command(command: str) -> list[str]:
    """``command`` split as a shell would, its program found on PATH and executable."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise CommandError(f"--sut {command!r}: {error}") from error
    if not argv:
        raise CommandError("--sut: expected a command, found an empty string")
    found = shutil.which(argv[0])
    if found is None:
        reason = "not executable" if os.path.exists(argv[0]) else "not found"
        raise CommandError(f"--sut {command!r}: {argv[0]!r} {reason}")
    return [found, *argv[1:]]


@dataclass
class _Flood:
    """Lines read in the current one-second window."""

    window_start: float = 0.0
    lines: int = 0

    def count(self, now: float) -> bool:
        """Count one line; ``True`` when the window's bound is passed."""
        if now - self.window_start >= 1.0:
            self.window_start, self.lines = now, 0
        self.lines += 1
        return self.lines > MAX_LINES_PER_SECOND


class RuntimeProcess:
    """One running runtime. ``receive`` raises ``RuntimeFault`` for everything that is not
    a message in time; after a fault the process is stopped and may not be reused."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.lines_read = 0
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self.logs: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._process: asyncio.subprocess.Process | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self._flood = _Flood()

    async def start(self) -> None:
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group: stop() reaches grandchildren
                limit=MAX_LINE_BYTES,
            )
        except OSError as error:  # executable, yet no program (exec format error, ...)
            raise RuntimeFault("CRASH", f"cannot start {self.argv[0]}: {error}") from error
        self._stderr_task = asyncio.create_task(self._drain_stderr())

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def _drain_stderr(self) -> None:
        assert self._process is not None
        assert self._process.stderr is not None
        stream = self._process.stderr
        with contextlib.suppress(Exception):
            while True:
                try:
                    line = await stream.readline()
                except ValueError:  # a stderr line over the limit: keep its start
                    line = await stream.read(STDERR_LINE_CHARS)
                if not line:
                    return
                text = line.decode("utf-8", "replace").rstrip()
                self.stderr_tail.append(text[:STDERR_LINE_CHARS])

    def _crash_detail(self, what: str) -> str:
        code = None if self._process is None else self._process.returncode
        tail = " | ".join(list(self.stderr_tail)[-3:])
        status = f"exit status {code}" if code is not None else "closed its stdout"
        return f"{what}: the runtime {status}" + (f"; stderr: {tail}" if tail else "")

    async def send(self, message: ToRuntime) -> None:
        assert self._process is not None
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(encode(message))
            await self._process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            await self._wait_exit(BYE_GRACE_S)
            raise RuntimeFault("CRASH", self._crash_detail(f"sending {message.op}")) from error

    async def receive(self, timeout_s: float, waiting_for: str) -> FromRuntime:
        """The next message (``log`` lines are kept and skipped)."""
        while True:
            message = await self._receive_one(timeout_s, waiting_for)
            if message.op != "log":
                return message
            self.logs.append(message.text[:STDERR_LINE_CHARS])

    async def _receive_one(self, timeout_s: float, waiting_for: str) -> FromRuntime:
        assert self._process is not None
        assert self._process.stdout is not None
        try:
            async with asyncio.timeout(timeout_s):
                line = await self._process.stdout.readline()
        except TimeoutError as error:
            raise RuntimeFault("TIMEOUT", f"no {waiting_for} within {timeout_s:g}s") from error
        except ValueError as error:  # asyncio's limit: a line longer than MAX_LINE_BYTES
            number = self.lines_read + 1
            detail = f"line {number}: longer than {MAX_LINE_BYTES} bytes"
            raise RuntimeFault("PROTOCOL", detail) from error
        if not line:
            await self._wait_exit(BYE_GRACE_S)
            raise RuntimeFault("CRASH", self._crash_detail(f"waiting for {waiting_for}"))
        self.lines_read += 1
        if self._flood.count(time.monotonic()):
            detail = f"line {self.lines_read}: more than {MAX_LINES_PER_SECOND} lines in 1s"
            raise RuntimeFault("PROTOCOL", f"floods stdout: {detail}")
        try:
            return decode_from_runtime(line, self.lines_read)
        except ProtocolError as error:
            raise RuntimeFault("PROTOCOL", str(error)) from error

    async def _wait_exit(self, timeout_s: float) -> bool:
        """Has the child exited within ``timeout_s``? Polled on its return code, because
        asyncio's ``wait()`` also waits for the pipes, which a grandchild may hold."""
        if self._process is None:
            return True
        deadline = time.monotonic() + timeout_s
        while self._process.returncode is None:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(EXIT_POLL_S)
        return True

    def _signal_group(self, signum: int) -> None:
        if self._process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signum)

    async def stop(self, *, polite: bool = True) -> None:
        """``bye``, then SIGTERM, then SIGKILL to the whole process group: SIGKILL always,
        for grandchildren that outlive the child or ignore SIGTERM. Bounded in time."""
        process = self._process
        if process is None:
            return
        if polite and process.returncode is None and process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.write(encode(Bye()))
                await process.stdin.drain()
                process.stdin.close()
        if not await self._wait_exit(BYE_GRACE_S if polite else 0.0):
            self._signal_group(signal.SIGTERM)
            await self._wait_exit(TERM_GRACE_S)
        self._signal_group(signal.SIGKILL)
        await self._wait_exit(KILL_WAIT_S)
        if process.stdin is not None:
            process.stdin.close()  # else asyncio closes it at collection, maybe loop-less
        try:  # the pipes close once the group is gone; then asyncio is done with it
            async with asyncio.timeout(KILL_WAIT_S):
                await process.wait()
        except TimeoutError:  # a process outside the group holds them: let go of our ends
            getattr(process, "_transport").close()  # noqa: B009  (no public way)
        if self._stderr_task is not None:
            self._stderr_task.cancel()
            with contextlib.suppress(BaseException):
                await self._stderr_task
