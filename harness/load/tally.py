"""What a load run counts from the event bus: one observer, every event kind matched.

Trims are counted by ``(reason, trigger)`` with the reason in its metric-label form
(``token_budget``, ``turn_limit``), the same labels ``trimscope_history_trims_total``
carries, so the asyncio and Locust summaries read alike.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from typing import assert_never

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    RecoveryAttempted,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from harness.telemetry.names import trim_reason_label


class LoadTally:
    """Counts of one run; thread-safe (the bus may publish from Locust greenlets)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.trims: Counter[tuple[str, str]] = Counter()
        self.calls: Counter[str] = Counter()
        self.turns: Counter[str] = Counter()
        self.turn_errors: Counter[str] = Counter()
        self.recoveries: Counter[str] = Counter()
        self.overflows = 0
        self.capacity_refusals = 0
        self.tool_calls = 0

    def on_event(self, event: Event) -> None:
        with self._lock:
            self._count(event)

    def _count(self, event: Event) -> None:
        match event:
            case TurnStarted() | BudgetResolved() | ProviderCallStarted() | ToolCallStarted():
                pass  # ignored: their outcomes are counted from the events that close them
            case TurnFinished():
                self.turns[event.outcome] += 1
                if event.error_type:
                    self.turn_errors[event.error_type] += 1
            case CapacityChecked():
                if not event.fits:
                    self.capacity_refusals += 1
            case ProviderCallFinished():
                self.calls[event.outcome] += 1
            case OverflowDetected():
                self.overflows += 1
            case RecoveryAttempted():
                self.recoveries[event.outcome] += 1
            case HistoryTrimmed():
                self.trims[trim_reason_label(event.reason), str(event.trigger)] += 1
            case ToolCallFinished():
                self.tool_calls += 1
            case _:
                assert_never(event)

    @property
    def provider_calls(self) -> int:
        with self._lock:
            return sum(self.calls.values())


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-quantile (0–1) by linear interpolation between closest ranks."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
