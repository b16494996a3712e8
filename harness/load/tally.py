"""What a load run counts from the event bus: one observer, every event kind matched.

Trims are counted by ``(reason, trigger)`` with the reason in its metric-label form
(``token_budget``, ``turn_limit``), the same labels ``trimscope_history_trims_total``
carries, so the asyncio and Locust summaries read alike.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    WireFindingObserved,
)
from harness.pricing.formula import uncached_input
from harness.sketch import Sketch
from harness.telemetry.names import UNKNOWN, trim_reason_label

IGNORED: frozenset[type[Event]] = frozenset(
    {
        TurnStarted,
        BudgetResolved,
        ProviderCallStarted,
        ToolCallStarted,
        ProviderContextEdited,
        WireFindingObserved,
    }
)
"""Kinds a load run does not count: their outcomes are counted from the kinds that close them
(provider-side edits: the load fakes are not asked for any; wire findings: a load run drives
the reference agent, not a runtime through the proxy)."""


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
        # Cache and cost (issue 16): reported tokens per model, as (uncached, read, write,
        # output); cache loss by trigger; the successful calls' reported input sizes (a
        # sketch: memory flat in the number of calls).
        self.usage: dict[str, list[int]] = {}
        self.cache_loss: Counter[str] = Counter()
        self.request_tokens = Sketch()
        # The counting method of each kind counted: one lookup per event, not a chain of
        # patterns. The other kinds (``IGNORED``) open what the counted ones close.
        self._counters: dict[type[Event], Callable[[Any], None]] = {
            TurnFinished: self._turn,
            CapacityChecked: self._capacity,
            ProviderCallFinished: self._call,
            OverflowDetected: self._overflow,
            RecoveryAttempted: self._recovery,
            HistoryTrimmed: self._trim,
            ToolCallFinished: self._tool,
        }

    def on_event(self, event: Event) -> None:
        count = self._counters.get(type(event))
        if count is not None:
            with self._lock:
                count(event)

    def _turn(self, event: TurnFinished) -> None:
        self.turns[event.outcome] += 1
        if event.error_type:
            self.turn_errors[event.error_type] += 1

    def _capacity(self, event: CapacityChecked) -> None:
        if not event.fits:
            self.capacity_refusals += 1

    def _call(self, event: ProviderCallFinished) -> None:
        self.calls[event.outcome] += 1
        reported, output = event.input_tokens, event.output_tokens
        if reported is None and output is None:
            return
        totals = self.usage.setdefault(event.model or UNKNOWN, [0, 0, 0, 0])
        # Output is counted even when input is not reported, as the Prometheus observer
        # counts it: a Locust summary, read from those metrics, then counts the same.
        totals[3] += output or 0
        if reported is None:
            return
        read = event.cache_read_input_tokens or 0
        write = event.cache_creation_input_tokens or 0
        totals[0] += uncached_input(reported, read, write)
        totals[1] += read
        totals[2] += write
        self.request_tokens.add(reported)

    def _overflow(self, event: OverflowDetected) -> None:
        self.overflows += 1

    def _recovery(self, event: RecoveryAttempted) -> None:
        self.recoveries[event.outcome] += 1

    def _trim(self, event: HistoryTrimmed) -> None:
        self.trims[trim_reason_label(event.reason), str(event.trigger)] += 1
        if event.cache_loss_tokens is not None:
            self.cache_loss[str(event.trigger)] += event.cache_loss_tokens

    def _tool(self, event: ToolCallFinished) -> None:
        self.tool_calls += 1

    @property
    def provider_calls(self) -> int:
        with self._lock:
            return sum(self.calls.values())
