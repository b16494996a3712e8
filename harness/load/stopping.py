"""Stopping a load run before its end without losing a call (a signal, a fake server dead).

Cancelling every session at once loses the calls in flight: the harness never hears
their answers, while the fake server may or may not have read the request before the
connection closed (uvicorn hands an app a disconnect instead of a body it had not read
yet), so the harness, the metrics, the spans and the server each counted a different
number of calls. A ``RunStop`` stops in two steps instead:

1. at once, every session that is *not* inside a provider call is cancelled (it is
   sleeping out a Retry-After, or between turns: nothing is in flight);
2. a session inside a call keeps waiting for that call's answer; when it comes (or its
   error), ``TimedClient`` drops it and raises ``CancelledError``, so the agent counts the
   call ``cancelled`` (``ProviderCallFinished``), exactly the calls the server counted.

The runner cancels whatever still runs ``STOP_GRACE_S`` after the stop (a call that hangs
past it is counted ``cancelled`` too, and the server counts it once it read it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Final

STOP_GRACE_S: Final = 5.0
"""How long the calls in flight at a stop (and turns running at the duration cap) may take
to finish before their sessions are cancelled."""

STOPPED_BY_SIGNAL: Final = "signal"
STOPPED_BY_SERVER_DEATH: Final = "server_died"


class RunStop:
    """Which sessions are inside a provider call, and the reason the run stopped (``None``
    while it runs). Used from the event loop's thread only."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.stopped = asyncio.Event()
        self._in_call: set[asyncio.Task[object] | None] = set()
        self._sessions: list[asyncio.Task[None]] = []

    def watch(self, sessions: Iterable[asyncio.Task[None]]) -> None:
        """The tasks a stop cancels."""
        self._sessions = list(sessions)

    def call_started(self) -> None:
        self._in_call.add(asyncio.current_task())

    def call_finished(self) -> bool:
        """The calling task's call is over; ``True`` when the run stopped meanwhile (the
        caller then ends its session)."""
        self._in_call.discard(asyncio.current_task())
        return self.reason is not None

    def request(self, reason: str) -> None:
        """Stop the run (the first reason wins): the sessions not inside a call now."""
        if self.reason is not None:
            return
        self.reason = reason
        self.stopped.set()
        for task in self._sessions:
            if task not in self._in_call:
                task.cancel()

    @property
    def in_call(self) -> int:
        """Sessions inside a provider call now."""
        return len(self._in_call)
