"""Prometheus observer: events become the metrics of ``names.METRICS`` on an injected registry.

One event, one update, so the counters account exactly (``accounting.py``):
``HistoryTrimmed`` → trims, dropped messages and turns; ``BudgetResolved`` → budget
decisions and the route's budget and window gauges; ``CapacityChecked`` → capacity checks
(and refusals); ``OverflowDetected`` → classifier verdicts; ``RecoveryAttempted`` →
recoveries; ``ProviderCallFinished`` → calls, GenAI duration and token usage, utilisation.

Two metrics need more than one event:

- utilisation is the *peak* request of one call over the window: the larger of the
  estimate (``ProviderCallStarted``) and the input tokens the provider reported
  (``ProviderCallFinished``); a call refused before dispatch is observed from its
  ``CapacityChecked``. One observation per call, never a sum over a turn.
- an overflow is counted once its recovery is settled, with ``recovered``: ``true`` when
  the session's next provider call succeeds; ``false`` when recovery gives up, the retry is
  refused or fails (a rate-limited attempt does not settle: the loop may try it again), or
  the turn ends first. The turn's end is its ``TurnFinished`` or, for
  drivers that emit no turn events (legacy, channel), the first event of another turn of
  the session; ``close`` settles what is still pending (``false``: the run ended first), so
  every ``OverflowDetected`` is counted exactly once.

Counters and histograms carry a ``trace_id`` exemplar when ``trace_ids`` (the OTel
observer's ``trace_id_of``, subscribed before this one) knows the span; exemplars show only
in OpenMetrics output and never in multiprocess mode.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, assert_never

from prometheus_client import CollectorRegistry

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
from harness.telemetry import names as n
from harness.telemetry.metrics import MetricSet

TraceIds = Callable[[Event], str | None]
MAX_OPEN_CALLS = 10_000
"""Calls started but not finished that are remembered (oldest forgotten first)."""


@dataclass(frozen=True, slots=True)
class _OpenCall:
    provider: str
    model: str
    estimate_tokens: int
    window: int


@dataclass(frozen=True, slots=True)
class _Overflow:
    call_id: str
    turn_id: str | None
    provider: str
    error_type: str


class PrometheusObserver:
    """Records every event kind into ``registry``; thread-safe.

    ``multiprocess``: prometheus-client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``
    set before prometheus_client was imported); exemplars are then never attached.
    """

    def __init__(
        self,
        registry: CollectorRegistry,
        *,
        trace_ids: TraceIds | None = None,
        multiprocess: bool = False,
    ) -> None:
        self.metrics = MetricSet(registry)
        self._trace_ids = None if multiprocess else trace_ids
        self._calls: OrderedDict[tuple[str, str], _OpenCall] = OrderedDict()
        self._overflows: dict[str, list[_Overflow]] = {}
        self._lock = threading.Lock()
        self._children: dict[tuple[str, tuple[str, ...]], Any] = {}
        self._event: Event | None = None
        self._event_exemplar: dict[str, str] | None = None
        self._exemplars: dict[str, dict[str, str]] = {}

    def on_event(self, event: Event) -> None:
        with self._lock:
            self._event = None  # the exemplar is looked up once per event, when first needed
            try:
                self._settle_earlier_turn(event)
                self._dispatch(event)
            finally:
                self._event = self._event_exemplar = None

    def close(self) -> None:
        """Count the overflows still pending as not recovered (the run ended first)."""
        with self._lock:
            for session in list(self._overflows):
                self._settle_session(session, None, recovered=False)

    def _dispatch(self, event: Event) -> None:
        match event:
            case TurnStarted() | ToolCallStarted():
                pass  # ignored: their finish events carry what is counted
            case TurnFinished():
                self._settle(event, recovered=False)
                self._inc(n.TURNS, event, event.outcome)
            case BudgetResolved():
                self._budget(event)
            case CapacityChecked():
                self._capacity(event)
            case ProviderCallStarted():
                self._call_started(event)
            case ProviderCallFinished():
                self._call_finished(event)
            case OverflowDetected():
                self._overflow(event)
            case RecoveryAttempted():
                self._recovery(event)
            case HistoryTrimmed():
                self._trim(event)
            case ToolCallFinished():
                self._tool(event)
            case _:
                assert_never(event)

    # --- per kind -----------------------------------------------------------------------

    def _trim(self, event: HistoryTrimmed) -> None:
        trigger = str(event.trigger)
        reason = n.trim_reason_label(event.reason)
        provider = _label(event.provider)
        self._inc(n.TRIMS, event, reason, trigger, provider)
        exemplar = self._exemplar(event)
        self._child(n.DROPPED_MESSAGES, trigger, provider).observe(event.dropped_messages, exemplar)
        self._child(n.DROPPED_TURNS, trigger, provider).observe(event.dropped_turns, exemplar)

    def _budget(self, event: BudgetResolved) -> None:
        route = (event.provider, _label(event.model))
        self._inc(
            n.BUDGET_DECISIONS,
            event,
            *route,
            str(event.rule),
            event.window_source,
        )
        self._child(n.BUDGET_TOKENS, *route).set(event.budget_tokens)
        self._child(n.WINDOW_TOKENS, *route).set(event.model_context_window)

    def _capacity(self, event: CapacityChecked) -> None:
        route = (event.provider, _label(event.model))
        fits = n.bool_label(event.fits)
        self._inc(n.CAPACITY_CHECKS, event, *route, event.purpose, fits)
        if event.fits:
            return
        self._inc(n.CAPACITY_REFUSALS, event, *route, event.purpose)
        self._utilization(event, route, event.estimate_tokens, event.model_context_window)
        self._settle(event, recovered=False)  # a refused retry did not recover

    def _call_started(self, event: ProviderCallStarted) -> None:
        key = (event.session_id, event.call_id)
        self._calls[key] = _OpenCall(
            event.provider, _label(event.model), event.estimate_tokens, event.model_context_window
        )
        while len(self._calls) > MAX_OPEN_CALLS:
            self._calls.popitem(last=False)

    def _call_finished(self, event: ProviderCallFinished) -> None:
        route = (event.provider, _label(event.model))
        ok = event.outcome == "ok"
        if event.outcome != n.CALL_RATE_LIMITED:  # a rate-limited attempt may be retried
            self._settle(event, recovered=ok)
        self._inc(n.PROVIDER_CALLS, event, *route, event.outcome)
        error = n.NO_ERROR if ok else (event.error_type or n.ERROR_TYPE_OTHER)
        gen_ai = (n.OPERATION_CHAT, event.provider, _label(event.model))
        exemplar = self._exemplar(event)
        self._child(n.GEN_AI_DURATION, *gen_ai, error).observe(event.duration_s, exemplar)
        for token_type, tokens in (
            (n.TOKEN_TYPE_INPUT, event.input_tokens),
            (n.TOKEN_TYPE_OUTPUT, event.output_tokens),
        ):
            if tokens is not None:
                self._child(n.GEN_AI_TOKEN_USAGE, *gen_ai, token_type).observe(tokens, exemplar)
        opened = self._calls.pop((event.session_id, event.call_id), None)
        if opened is not None:
            self._call_sizes(event, opened)

    def _call_sizes(self, event: ProviderCallFinished, opened: _OpenCall) -> None:
        route = (opened.provider, opened.model)
        reported = event.input_tokens
        peak = max(opened.estimate_tokens, reported or 0)
        self._utilization(event, route, peak, opened.window)
        if reported is not None and opened.estimate_tokens > 0:
            self._child(n.ESTIMATE_ACCURACY, *route).observe(
                reported / opened.estimate_tokens, self._exemplar(event)
            )

    def _overflow(self, event: OverflowDetected) -> None:
        error = event.error_type or n.ERROR_TYPE_OTHER
        self._inc(
            n.OVERFLOW_VERDICTS,
            event,
            event.provider,
            error,
            n.bool_label(event.reference_verdict),
            n.bool_label(event.extended_verdict),
        )
        pending = self._overflows.setdefault(event.session_id, [])
        pending.append(_Overflow(event.call_id, event.turn_id, event.provider, error))

    def _recovery(self, event: RecoveryAttempted) -> None:
        outcome = event.outcome if event.outcome in n.RECOVERY_OUTCOMES else n.OTHER
        self._inc(n.RECOVERIES, event, event.provider, outcome)
        if outcome != n.RECOVERY_RETRYING:
            self._settle(event, recovered=False)

    def _tool(self, event: ToolCallFinished) -> None:
        outcome = "error" if event.error_type else "ok"
        self._inc(n.TOOL_CALLS, event, event.tool_name, outcome)
        if event.truncated:
            self._inc(n.TOOL_RESULTS_TRUNCATED, event, event.tool_name)

    # --- helpers ------------------------------------------------------------------------

    def _settle(self, event: Event, *, recovered: bool) -> None:
        """Count the session's overflows whose fate ``event`` settled."""
        self._settle_session(event.session_id, event, recovered=recovered)

    def _settle_earlier_turn(self, event: Event) -> None:
        """An event of another turn: the pending overflows' turn ended without recovering
        (drivers without ``TurnFinished``)."""
        pending = self._overflows.get(event.session_id)
        if pending and pending[-1].turn_id != event.turn_id:
            self._settle(event, recovered=False)

    def _settle_session(self, session_id: str, event: Event | None, *, recovered: bool) -> None:
        pending = self._overflows.pop(session_id, ())
        if not pending:
            return
        exemplar = self._exemplar(event) if event is not None else None
        for overflow in pending:
            self._child(
                n.OVERFLOWS, overflow.provider, overflow.error_type, n.bool_label(recovered)
            ).inc(1, exemplar)

    def _utilization(self, event: Event, route: tuple[str, str], tokens: int, window: int) -> None:
        if window > 0:
            self._child(n.UTILIZATION, *route).observe(tokens / window, self._exemplar(event))

    def _inc(self, spec: n.MetricSpec, event: Event, *labels: str) -> None:
        self._child(spec, *labels).inc(1, self._exemplar(event))

    def _child(self, spec: n.MetricSpec, *labels: str) -> Any:
        """The family's child for ``labels``, looked up once and kept (``labels()`` locks and
        validates on every call)."""
        key = (spec.name, labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self.metrics.family(spec).labels(*labels)
        return child

    def _exemplar(self, event: Event) -> dict[str, str] | None:
        if event is self._event:
            return self._event_exemplar
        trace_id = self._trace_ids(event) if self._trace_ids is not None else None
        exemplar = None
        if trace_id:
            exemplar = self._exemplars.get(trace_id)
            if exemplar is None:
                if len(self._exemplars) >= MAX_OPEN_CALLS:
                    self._exemplars.clear()
                exemplar = self._exemplars[trace_id] = {n.EXEMPLAR_TRACE_ID: trace_id}
        self._event, self._event_exemplar = event, exemplar
        return exemplar


def _label(value: str | None) -> str:
    return value if value else n.UNKNOWN
