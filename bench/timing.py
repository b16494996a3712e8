"""Timing and table helpers: the process's CPU time, medians, garbage collection paused."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

CLOCK = time.process_time_ns
"""The process's CPU time: the trimmers are single-threaded and CPU-bound, so this is
their cost without the time the scheduler gives other processes. On 2 cores shared by
busy neighbours, wall-clock medians of the same code varied by 4x between runs."""


@dataclass(frozen=True)
class Sample:
    """CPU times (``CLOCK``) of one measured call, in nanoseconds."""

    times_ns: tuple[int, ...]

    @property
    def median_ns(self) -> float:
        return statistics.median(self.times_ns)

    @property
    def runs(self) -> int:
        return len(self.times_ns)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Collect first, then keep the cyclic collector out of the timed regions."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def measure(
    calls: Mapping[str, Callable[[], object]],
    repeats: int,
    max_seconds: float,
    warmup: bool = True,
) -> dict[str, tuple[Sample, object]]:
    """Time every call once per round, interleaved, for up to ``repeats`` rounds; stop early
    once ``max_seconds`` are spent (after at least one round). Interleaving keeps the ratios
    honest when the machine's speed drifts. Returns each call's sample and last result
    (results are freed outside the timed regions)."""
    times: dict[str, list[int]] = {name: [] for name in calls}
    results: dict[str, object] = dict.fromkeys(calls)
    with gc_paused():
        if warmup:
            for name, call in calls.items():
                results[name] = call()
        spent = 0
        for _ in range(repeats):
            for name, call in calls.items():
                results[name] = None  # free the previous result before the clock starts
                start = CLOCK()
                results[name] = call()
                elapsed = CLOCK() - start
                times[name].append(elapsed)
                spent += elapsed
            if spent > max_seconds * 1e9:
                break
    return {name: (Sample(tuple(times[name])), results[name]) for name in calls}


_NS_PER_S, _NS_PER_MS, _NS_PER_US = 1e9, 1e6, 1e3
_RATIO_DECIMALS_BELOW = 100
"""Ratios under this keep a decimal."""


def fmt_time(ns: float) -> str:
    if ns >= _NS_PER_S:
        return f"{ns / _NS_PER_S:.2f} s"
    if ns >= _NS_PER_MS:
        return f"{ns / _NS_PER_MS:.2f} ms"
    return f"{ns / _NS_PER_US:.1f} µs"


def fmt_ratio(ratio: float) -> str:
    return f"{ratio:.1f}×" if ratio < _RATIO_DECIMALS_BELOW else f"{ratio:,.0f}×"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])
