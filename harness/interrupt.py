"""Stopping a run in order when the user sends SIGINT (Ctrl-C) or SIGTERM.

A command that does work wraps it in ``stop_on_signals(stop)``: the signal handlers then
only *record* the first signal in a ``StopRequest`` and call the callbacks the work
registered with ``StopRequest.on_request``. They never raise in the middle of whatever
was running (a half-written file, a child process half-stopped). The work stops itself:

- asyncio work registers a callback that cancels its tasks through
  ``loop.call_soon_threadsafe`` (the same self-pipe wake-up asyncio's own signal handling
  uses), catches the cancellation where it knows what was in flight, and marks it;
- blocking waits (a child process starting, Locust running) wait in short steps and call
  ``raise_if_requested``, which raises ``Interrupted`` (a ``BaseException``, so no
  ``except Exception`` swallows it) to unwind through the ``finally`` blocks that stop
  children and remove temporary folders.

Once the outputs are written the command exits ``128 + signal`` (130 for SIGINT, 143 for
SIGTERM), the shell's convention for "killed by that signal". A second signal changes
nothing: the orderly stop is bounded in time, and stopping children half-way would leave
them behind.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import PurePath
from types import FrameType
from typing import Final

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
SIGNAL_EXIT_BASE: Final = 128
"""A process stopped by signal N exits ``128 + N`` (POSIX shells' convention)."""


class Interrupted(BaseException):
    """Raised by work that noticed the stop request at a point where it may unwind."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopRequest:
    """The first stop signal of a run, and who to tell. Only the main thread changes it
    (Python runs signal handlers there), so it needs no lock (a lock taken by the code a
    handler interrupted would deadlock the handler)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._callbacks: list[Callable[[], None]] = []

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str | None:
        """``"SIGINT"`` or ``"SIGTERM"``; ``None`` while nothing was requested."""
        return None if self.signum is None else signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int | None:
        return None if self.signum is None else SIGNAL_EXIT_BASE + self.signum

    def request(self, signum: int) -> None:
        """Record ``signum`` (the first one wins) and tell every registered callback once."""
        if self.signum is not None:
            return
        self.signum = signum
        for callback in list(self._callbacks):
            callback()

    def raise_if_requested(self) -> None:
        if self.signum is not None:
            raise Interrupted(self.signum)

    @contextlib.contextmanager
    def on_request(self, callback: Callable[[], None]) -> Iterator[None]:
        """Call ``callback`` when a stop is requested while the block runs (at once when
        one already was)."""
        self._callbacks.append(callback)
        try:
            if self.signum is not None:
                callback()
            yield
        finally:
            self._callbacks.remove(callback)


@contextlib.contextmanager
def stop_on_signals(
    stop: StopRequest, signals: Sequence[signal.Signals] = STOP_SIGNALS
) -> Iterator[StopRequest]:
    """Route ``signals`` to ``stop.request`` while the block runs; the previous handlers
    come back after it."""

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.request(signum)

    previous = {number: signal.signal(number, handler) for number in signals}
    try:
        yield stop
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


_early: StopRequest | None = None
"""The stop request of a command whose signals are recorded from its first line."""
CONSOLE_SCRIPT: Final = "trimscope"


def record_early_signals(argv: Sequence[str], commands: Collection[str]) -> None:
    """When this process is the ``trimscope`` console script running one of ``commands``,
    record SIGINT and SIGTERM from now on (the CLI calls this before its heavy imports):
    a signal during imports or setup then stops the run in order, with every output
    written and marked, instead of killing it with nothing written. Other commands, and
    the CLI imported by a program (tests), keep the default handlers."""
    global _early  # noqa: PLW0603 (signal handlers are the process's, one set of them)
    script, *args = argv or [""]
    if PurePath(script).name != CONSOLE_SCRIPT or not args or args[0] not in commands:
        return
    if threading.current_thread() is not threading.main_thread() or _early is not None:
        return
    stop = StopRequest()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.request(signum)

    for number in STOP_SIGNALS:
        signal.signal(number, handler)
    _early = stop


def early_stop() -> StopRequest:
    """The request the early handlers record into (a signal may already be in it), or a
    new one when they were not installed."""
    return _early if _early is not None else StopRequest()


def ignore_signals_once_written() -> None:
    """After a run's outputs are written, a stop signal changes nothing. Ignored, not
    recorded: the interpreter's teardown resets the handlers Python set to the default,
    and a signal then would kill the process (exit -2) after a clean run; it keeps an
    ignored one. Only in the process whose signals ``record_early_signals`` took (a
    program importing the CLI keeps its own)."""
    if _early is None:
        return
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
