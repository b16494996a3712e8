"""Progress for long commands (``run``, ``load``, ``conformance``, the benches): a rich
progress bar when the stream is a terminal, else one status line every
``STATUS_INTERVAL_S`` (done/total, rate, ETA) and a last one at the end, so CI logs show a
run is alive without a line per item, also while one item stalls for minutes; ``quiet``
shows nothing.

Commands build one ``Tracker`` with ``tracker(...)``, enter it, and call ``advance`` as
items finish. ``note`` prints a line the user must see (a failure) above the bar.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Final, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

STATUS_INTERVAL_S: Final = 10.0
"""Between two status lines off a terminal: often enough to show life in a CI log, rarely
enough that a long run's log stays readable."""

HEARTBEAT_THREAD: Final = "trimscope-progress-heartbeat"
"""The name of a status tracker's heartbeat thread (tests look for it after exit)."""

Clock = Callable[[], float]


class Tracker:
    """Shows nothing (``quiet``); the base of the two that show something."""

    def __enter__(self) -> Tracker:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None

    def advance(self, steps: int = 1, detail: str = "") -> None:
        """``steps`` more items done; ``detail`` replaces the short text after the counts."""

    def note(self, line: str) -> None:
        """A line the user must see (markup allowed), printed above the progress."""


def _duration(seconds: float) -> str:
    whole = max(0, round(seconds))
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def status_line(label: str, done: int, total: int | None, elapsed: float, detail: str = "") -> str:
    """``run: 40/99 (40%), 12.3/s, ETA 0m05s, 3 failed``; without a total, the count and
    the rate only. Pure: the status tests compare these strings."""
    rate = done / elapsed if elapsed > 0 else 0.0
    if total is None:
        counts = f"{done:,}"
    else:
        share = 100 * done // total if total else 100
        counts = f"{done:,}/{total:,} ({share}%)"
    parts = [f"{label}: {counts}", f"{rate:,.1f}/s"]
    if total is not None and done < total and rate > 0:
        parts.append(f"ETA {_duration((total - done) / rate)}")
    if detail:
        parts.append(detail)
    return ", ".join(parts)


class StatusTracker(Tracker):
    """Off a terminal: a status line when ``interval_s`` has passed since the last one, and
    a closing line with the elapsed time.

    ``advance`` writes one as an item finishes late enough; while the tracker is entered, a
    heartbeat thread also writes one when an interval passed with no line at all (an item
    that stalls for minutes must not look like a hung job), ending ``; none finished for
    0m40s`` when no item finished in that interval. One lock keeps lines whole; ``advance``
    takes it only when a line is due, so an item costs a clock read and a comparison."""

    def __init__(
        self, label: str, total: int | None, stream: TextIO, interval_s: float, clock: Clock
    ) -> None:
        self._label, self._total, self._stream = label, total, stream
        self._interval_s, self._clock = interval_s, clock
        self._done, self._detail = 0, ""
        self._began = self._last = self._finished = clock()
        self._lock = threading.Lock()  # the heartbeat and the caller's threads write lines
        self._stop = threading.Event()
        self._heart: threading.Thread | None = None

    def __enter__(self) -> Tracker:
        if self._interval_s > 0 and self._heart is None:  # no interval: a line per item
            self._stop = threading.Event()
            # The first wait is reckoned here, not in the thread: the thread may first run
            # after the caller has finished items (and moved an injected clock).
            first = self._interval_s - (self._clock() - self._last)
            self._heart = threading.Thread(
                target=self._beat_until_stopped, args=(first,), name=HEARTBEAT_THREAD
            )
            self._heart.daemon = True  # a backstop only: __exit__ joins it
            self._heart.start()
        return self

    def _beat_until_stopped(self, wait: float) -> None:
        try:
            while not self._stop.wait(wait):
                wait = self.beat()
        except (OSError, ValueError):
            # A broken or closed stream: the caller's own next write says so; a heartbeat
            # must not add a traceback from a thread.
            return

    def beat(self) -> float:
        """The heartbeat's step: the status line if none was written for an interval; the
        seconds until the next one is due (the thread waits that long, or until exit)."""
        with self._lock:
            now = self._clock()
            silent = now - self._last
            if silent < self._interval_s:
                return self._interval_s - silent  # positive: the same float comparison
            stalled = now - self._finished
            waiting = (
                f"; none finished for {_duration(stalled)}" if stalled >= self._interval_s else ""
            )
            self._last = now
            self._write(self._status(now) + waiting)
            return self._interval_s

    def _status(self, now: float) -> str:
        return status_line(self._label, self._done, self._total, now - self._began, self._detail)

    def _write(self, line: str) -> None:
        self._stream.write(line + "\n")
        self._stream.flush()

    def advance(self, steps: int = 1, detail: str = "") -> None:
        self._done += steps
        self._detail = detail or self._detail
        now = self._clock()
        if steps:
            self._finished = now
        if now - self._last >= self._interval_s:  # unlocked: the usual item takes no lock
            with self._lock:
                if now - self._last >= self._interval_s:  # the heartbeat may have just written
                    self._last = now
                    self._write(self._status(now))

    def note(self, line: str) -> None:
        with self._lock:
            self._write(Text.from_markup(line).plain)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Also on an exception or Ctrl-C: the heartbeat ends with the tracker.
        self._stop.set()
        if self._heart is not None:
            self._heart.join()
            self._heart = None
        now = self._clock()
        # No lock: the heartbeat is gone, and a lock a Ctrl-C left held must not hang exit.
        self._write(f"{self._status(now)}; {_duration(now - self._began)} elapsed")


class _RateColumn(ProgressColumn):
    """Items per second, as the status line spells it."""

    def render(self, task: Task) -> Text:
        return Text(f"{task.speed or 0.0:,.1f}/s", style="progress.data.speed")


class BarTracker(Tracker):
    """On a terminal: rich's bar with done/total, rate, elapsed and remaining time."""

    def __init__(self, label: str, total: int | None, console: Console) -> None:
        self._progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[detail]}"),
            console=console,
        )
        self._task = self._progress.add_task(label, total=total, detail="")

    def __enter__(self) -> Tracker:
        self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def advance(self, steps: int = 1, detail: str = "") -> None:
        if detail:
            self._progress.update(self._task, advance=steps, detail=detail)
        else:
            self._progress.update(self._task, advance=steps)

    def note(self, line: str) -> None:
        self._progress.console.print(line, highlight=False, soft_wrap=True)


def tracker(
    label: str,
    total: int | None,
    *,
    quiet: bool = False,
    stream: TextIO | None = None,
    interval_s: float = STATUS_INTERVAL_S,
    clock: Clock = time.monotonic,
) -> Tracker:
    """The progress for ``total`` items (``None``: unknown) on ``stream`` (default:
    stderr): nothing when ``quiet``, a bar on a terminal, status lines elsewhere."""
    if quiet:
        return Tracker()
    out = sys.stderr if stream is None else stream
    if out.isatty():
        return BarTracker(label, total, Console(file=out, force_terminal=True))
    return StatusTracker(label, total, out, interval_s, clock)


__all__ = [
    "HEARTBEAT_THREAD",
    "STATUS_INTERVAL_S",
    "BarTracker",
    "StatusTracker",
    "Tracker",
    "status_line",
    "tracker",
]
