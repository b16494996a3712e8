"""Prometheus observer: events become the metrics of ``names.METRICS`` on an injected registry.

One event, one update, so the counters account exactly (``accounting.py``):
``HistoryTrimmed`` → trims, dropped messages and turns; ``BudgetResolved`` → budget
decisions and the route's budget and window gauges; ``CapacityChecked`` → capacity checks
(and refusals); ``OverflowDetected`` → classifier verdicts; ``RecoveryAttempted`` →
recoveries; ``ProviderCallFinished`` → calls, GenAI duration and token usage, utilisation;
``WireFindingObserved`` → wire findings (``prom_wire.py``), all by ``source`` where it applies.
Trims, provider edits and budgets are counted in ``prom_decisions.py``.

Two metrics need more than one event:

- utilisation is the *peak* request of one call over the window: the larger of the
  estimate (``ProviderCallStarted``) and the input tokens the provider reported
  (``ProviderCallFinished``); a call refused before dispatch is observed from its
  ``CapacityChecked``. One observation per call, never a sum over a turn.
- an overflow is counted once its recovery is settled, with ``recovered``: ``true`` when
  the session's next provider call succeeds; ``false`` when recovery gives up, the retry is
  refused or fails (a rate-limited attempt does not settle: the loop may try it again), or
  the turn ends first. The turn's end is its ``TurnFinished`` or, for drivers that emit no
  turn events (legacy, channel), the first event of another turn of the session; ``close``
  settles what is still pending (``false``: the run ended first; the oldest sessions sooner
  past a bound), so every ``OverflowDetected`` is counted exactly once.

Counters and histograms carry a ``trace_id`` exemplar when ``exemplars`` (the OTel
observer's ``exemplar_of``, subscribed before this one) knows the session's latest span and
its trace was recorded (not dropped by the sampler); exemplars show only in OpenMetrics
output and never in multiprocess mode.

Cost per event: events are dispatched by type through a table of bound handlers (built from
``_dispatch``'s ``match``, once per type), each doing its kind's whole work in one call: the
session's exemplar is asked for once (a dict read in the OTel observer, no call of ours; not
at all for events that update nothing, unless they settle an overflow), pending overflows
are looked at only when there are some; each family's children are kept in a dict keyed by
their label values, and a call's finish keeps the bound updates of its route and outcome
together, so an update is a dict lookup and the client's ``inc``/``observe``/``set``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
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
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    WireFindingObserved,
)
from harness.pricing.formula import uncached_input
from harness.telemetry import names as n
from harness.telemetry.fanout import TypeDispatched
from harness.telemetry.metrics import Children, MetricSet
from harness.telemetry.prom_decisions import DecisionMetrics
from harness.telemetry.prom_wire import WireFindingMetrics

Exemplars = Callable[[str], "Mapping[str, str] | None"]
"""A session id's exemplar labels (its latest recorded trace), or ``None``."""
MAX_OPEN_CALLS = 10_000
"""Calls started but not finished that are remembered (oldest forgotten first)."""
MAX_PENDING_OVERFLOW_SESSIONS = 10_000
"""Sessions with overflows not yet settled; past it the oldest settle as not recovered (a
runtime on the wire has no turn to end, so an abandoned session would wait for ``close``)."""

_Exemplar = Mapping[str, str]
_Handler = Callable[[Any], None]
_Update = Callable[[float, _Exemplar | None], None]
_Finish = tuple[_Update, _Update, _Update, _Update, _Update, _Update, _Update]
"""A call finish's updates: calls, duration, input usage, cache read, cache write,
uncached input, output usage (``_unreported`` for a count the call does not report)."""
_CallKey = tuple[str, str, str | None, str, str | None, str]
"""A finished call's provider (route), provider kind, model, outcome, error type, source."""
_FinishKey = tuple[str, str, str | None, str, str | None, str, bool, bool]


def _unreported(value: float, exemplar: _Exemplar | None) -> None:
    """In a ``_Finish`` for a token count the call did not report; never called (the count
    is part of the key it is kept under)."""
    raise AssertionError("an update for a count the call did not report")


def _no_exemplar(session_id: str) -> None:
    """``exemplars`` when there are none (no span observer, or multiprocess mode)."""


@dataclass(slots=True)
class _OpenCall:
    provider: str
    model: str
    estimate_tokens: int
    window: int
    source: str


@dataclass(slots=True)
class _Overflow:
    call_id: str
    turn_id: str | None
    provider: str
    error_type: str
    source: str


class PrometheusObserver(TypeDispatched):
    """Records every event kind into ``registry``; thread-safe.

    ``exemplars``: a session id's exemplar labels (``OtelObserver.exemplar_of``).
    ``multiprocess``: prometheus-client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``
    set before prometheus_client was imported); exemplars are then never attached.
    """

    def __init__(
        self,
        registry: CollectorRegistry,
        *,
        exemplars: Exemplars | None = None,
        multiprocess: bool = False,
        lock: threading.Lock | None = None,
    ) -> None:
        super().__init__(lock)
        self.metrics = MetricSet(registry)
        self._exemplars: Exemplars = (
            _no_exemplar if multiprocess or exemplars is None else exemplars
        )
        self._calls: OrderedDict[tuple[str, str], _OpenCall] = OrderedDict()
        self._overflows: dict[str, list[_Overflow]] = {}
        children = {spec.name: Children(self.metrics.family(spec)) for spec in n.METRICS}
        self._turns = children[n.TURNS.name]
        self._capacity_checks = children[n.CAPACITY_CHECKS.name]
        self._capacity_refusals = children[n.CAPACITY_REFUSALS.name]
        self._utilizations = children[n.UTILIZATION.name]
        self._provider_calls = children[n.PROVIDER_CALLS.name]
        self._durations = children[n.GEN_AI_DURATION.name]
        self._token_usage = children[n.GEN_AI_TOKEN_USAGE.name]
        self._estimate_accuracy = children[n.ESTIMATE_ACCURACY.name]
        self._overflow_verdicts = children[n.OVERFLOW_VERDICTS.name]
        self._recoveries = children[n.RECOVERIES.name]
        self._overflows_settled = children[n.OVERFLOWS.name]
        self._tool_calls = children[n.TOOL_CALLS.name]
        self._tools_truncated = children[n.TOOL_RESULTS_TRUNCATED.name]
        self._input_tokens = children[n.INPUT_TOKENS.name]
        self._wire = WireFindingMetrics(children)
        self._decisions = DecisionMetrics(
            children, self._exemplars, self._overflows, self._other_turn
        )
        # (provider, model, outcome, error type, source, no input count, no output count)
        # -> the bound updates of a call's finish
        self._finishes: dict[_FinishKey, _Finish] = {}

    def close(self) -> None:
        """Count the overflows still pending as not recovered (the run ended first)."""
        with self.lock:
            for session in list(self._overflows):
                self._settle(session, None, recovered=False)

    def _other_turn(self, event: Event, exemplar: _Exemplar | None) -> None:
        """With overflows pending for the event's session (the caller checks), an event of
        another turn settles them: their turn ended without recovering (drivers without
        ``TurnFinished``). ``exemplar``: the event's, or ``None`` for the kinds that ask
        for none."""
        pending = self._overflows.get(event.session_id)
        if pending and pending[-1].turn_id != event.turn_id:
            if exemplar is None:
                exemplar = self._exemplars(event.session_id)
            self._settle(event.session_id, exemplar, recovered=False)

    def _dispatch(self, event: Event) -> _Handler:  # noqa: PLR0911, PLR0912 (a case per event kind)
        """The handler for ``event``'s type; ``on_event`` keeps it per type."""
        match event:
            case TurnStarted() | ToolCallStarted():
                return self._started  # their finish events carry what is counted
            case TurnFinished():
                return self._turn_finished
            case BudgetResolved():
                return self._decisions.budget
            case CapacityChecked():
                return self._capacity
            case ProviderCallStarted():
                return self._call_started
            case ProviderCallFinished():
                return self._call_finished
            case OverflowDetected():
                return self._overflow
            case RecoveryAttempted():
                return self._recovery
            case HistoryTrimmed():
                return self._decisions.trim
            case ProviderContextEdited():
                return self._decisions.provider_edit
            case WireFindingObserved():
                return self._wire_finding
            case ToolCallFinished():
                return self._tool
            case _:
                assert_never(event)

    # --- per kind -----------------------------------------------------------------------

    # Each begins alike: the event's exemplar (asked once), then pending overflows another
    # turn settles (one membership test when the session has none). Inline, not a shared step: one
    # Python call per event is the point (issue 15).

    def _started(self, event: TurnStarted | ToolCallStarted) -> None:
        if event.session_id in self._overflows:
            self._other_turn(event, None)

    def _turn_finished(self, event: TurnFinished) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        if event.session_id in self._overflows:
            self._settle(event.session_id, exemplar, recovered=False)
        self._turns[(event.outcome,)].inc(1, exemplar)

    def _wire_finding(self, event: WireFindingObserved) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        self._wire.record(event, exemplar)

    def _capacity(self, event: CapacityChecked) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        route = (event.provider, event.model or n.UNKNOWN)
        fits = n.bool_label(event.fits)
        self._capacity_checks[(*route, event.purpose, fits)].inc(1, exemplar)
        if event.fits:
            return
        self._capacity_refusals[(*route, event.purpose)].inc(1, exemplar)
        # only the reference agent checks capacity before dispatch: the source is the agent
        sourced = (*route, n.SOURCE_AGENT)
        self._utilization(sourced, event.estimate_tokens, event.model_context_window, exemplar)
        if event.session_id in self._overflows:  # a refused retry did not recover
            self._settle(event.session_id, exemplar, recovered=False)

    def _call_started(self, event: ProviderCallStarted) -> None:
        if event.session_id in self._overflows:
            self._other_turn(event, None)
        calls = self._calls
        calls[(event.session_id, event.call_id)] = _OpenCall(
            event.provider,
            event.model or n.UNKNOWN,
            event.estimate_tokens,
            event.model_context_window,
            event.source,
        )
        while len(calls) > MAX_OPEN_CALLS:
            calls.popitem(last=False)

    def _call_finished(self, event: ProviderCallFinished) -> None:
        exemplar = self._exemplars(event.session_id)
        overflows = self._overflows
        if event.session_id in overflows:
            self._other_turn(event, exemplar)
            # a rate-limited attempt may be retried: it settles nothing
            if event.session_id in overflows and event.outcome != n.CALL_RATE_LIMITED:
                self._settle(event.session_id, exemplar, recovered=event.outcome == "ok")
        reported, output = event.input_tokens, event.output_tokens
        key = (
            event.provider,
            event.provider_kind,
            event.model,
            event.outcome,
            event.error_type,
            event.source,
        )
        finish = self._finishes.get((*key, reported is None, output is None))
        if finish is None:
            finish = self._finish(key, reported is not None, output is not None)
        calls, duration, usage_in, read, write, uncached, usage_out = finish
        calls(1, exemplar)
        duration(event.duration_s, exemplar)
        if reported is not None:
            usage_in(reported, exemplar)
            # the reported input split into cache reads, cache writes and the rest
            read_tokens = event.cache_read_input_tokens or 0
            write_tokens = event.cache_creation_input_tokens or 0
            read(read_tokens, exemplar)
            write(write_tokens, exemplar)
            uncached(uncached_input(reported, read_tokens, write_tokens), exemplar)
        if output is not None:
            usage_out(output, exemplar)
        opened = self._calls.pop((event.session_id, event.call_id), None)
        if opened is None:
            return
        route = (opened.provider, opened.model, opened.source)
        estimate = opened.estimate_tokens
        self._utilization(route, max(estimate, reported or 0), opened.window, exemplar)
        if reported is not None and estimate > 0:
            self._estimate_accuracy[route].observe(reported / estimate, exemplar)

    def _overflow(self, event: OverflowDetected) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        error = event.error_type or n.ERROR_TYPE_OTHER
        self._overflow_verdicts[
            (
                event.provider,
                error,
                n.bool_label(event.reference_verdict),
                n.bool_label(event.extended_verdict),
                event.source,
            )
        ].inc(1, exemplar)
        pending = self._overflows.setdefault(event.session_id, [])
        pending.append(_Overflow(event.call_id, event.turn_id, event.provider, error, event.source))
        while len(self._overflows) > MAX_PENDING_OVERFLOW_SESSIONS:
            self._settle(next(iter(self._overflows)), None, recovered=False)

    def _recovery(self, event: RecoveryAttempted) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        outcome = event.outcome if event.outcome in n.RECOVERY_OUTCOMES else n.OTHER
        self._recoveries[(event.provider, outcome)].inc(1, exemplar)
        if outcome != n.RECOVERY_RETRYING:
            self._settle(event.session_id, exemplar, recovered=False)

    def _tool(self, event: ToolCallFinished) -> None:
        exemplar = self._exemplars(event.session_id)
        if event.session_id in self._overflows:
            self._other_turn(event, exemplar)
        outcome = "error" if event.error_type else "ok"
        self._tool_calls[(event.tool_name, outcome)].inc(1, exemplar)
        if event.truncated:
            self._tools_truncated[(event.tool_name,)].inc(1, exemplar)

    # --- helpers ------------------------------------------------------------------------

    def _finish(self, call: _CallKey, reported: bool, output: bool) -> _Finish:
        """The bound updates of a call's finish for its route, outcome, source and which
        token counts it reports, kept together (one lookup per call instead of eight). A
        child is made only for an update that happens (a child shows in the output at 0)."""
        provider, kind, model, outcome, error_type, source = call
        route = (provider, model or n.UNKNOWN)
        # the GenAI series: the conventions' provider name, the model, then the route alias
        gen_ai = (n.OPERATION_CHAT, n.gen_ai_provider_name(kind), route[1], provider)
        error = n.NO_ERROR if outcome == "ok" else (error_type or n.ERROR_TYPE_OTHER)
        usage, inputs = self._token_usage, self._input_tokens
        finish: _Finish = (
            self._provider_calls[(*route, outcome, source)].inc,
            self._durations[(*gen_ai, error, source)].observe,
            usage[(*gen_ai, n.TOKEN_TYPE_INPUT, source)].observe if reported else _unreported,
            inputs[(*route, n.CACHE_READ, source)].inc if reported else _unreported,
            inputs[(*route, n.CACHE_WRITE, source)].inc if reported else _unreported,
            inputs[(*route, n.CACHE_UNCACHED, source)].inc if reported else _unreported,
            usage[(*gen_ai, n.TOKEN_TYPE_OUTPUT, source)].observe if output else _unreported,
        )
        self._finishes[(*call, not reported, not output)] = finish
        return finish

    def _settle(self, session_id: str, exemplar: _Exemplar | None, *, recovered: bool) -> None:
        """Count the session's pending overflows, settled (``recovered`` or not)."""
        pending = self._overflows.pop(session_id, ())
        label = n.bool_label(recovered)
        for overflow in pending:
            labels = (overflow.provider, overflow.error_type, label, overflow.source)
            self._overflows_settled[labels].inc(1, exemplar)

    def _utilization(
        self, route: tuple[str, str, str], tokens: int, window: int, exemplar: _Exemplar | None
    ) -> None:
        if window > 0:
            self._utilizations[route].observe(tokens / window, exemplar)
