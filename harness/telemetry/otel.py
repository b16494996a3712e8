"""OpenTelemetry observer: events become GenAI spans and ``trimscope.*`` span events.

Spans, per session (all children of the turn's agent span):

- ``invoke_agent {agent}`` (INTERNAL) from ``TurnStarted`` to ``TurnFinished``;
- ``{operation} {model}`` (CLIENT), the inference span, from ``ProviderCallStarted`` to
  ``ProviderCallFinished``, with ``gen_ai.conversation.compacted=true`` when the request
  used a trimmed history and ``error.type`` (the provider's code, else ``_OTHER``) on failure.
  A dispatch the loop retries after a rate limit has one start and one finish per attempt:
  each further attempt gets a span of its own (same name and request attributes, starting
  where the previous attempt ended, ``trimscope.call.attempt`` = 1, 2, ...), so a retry that
  succeeds is not reported with the first attempt's error;
- ``execute_tool {name}`` (INTERNAL) from ``ToolCallStarted`` to ``ToolCallFinished``.

Decision events become span events, placed by causality: an overflow, its recovery and a
reactive or reported-usage trim belong to the call that caused them, so they go on that
call's inference span (kept open for them after ``ProviderCallFinished``; its end time is
still the finish time); budget resolutions, capacity checks, proactive and turn-limit trims
precede or follow calls, so they go on the agent span. With no open span (a seeding trim
outside a turn) the event gets a short span of its own, e.g. ``trimscope.trim``. A runtime
seen on the wire: its trims and findings (``WireFindingObserved``) follow the call they were
read from, and have short spans of their own when the proxy opened none; inference spans
and the span events of trims, overflows, provider edits and findings say
``trimscope.source`` (``agent`` or ``wire``).

Sampling: the tracer provider's sampler decides (``OTEL_TRACES_SAMPLER`` by default). A span
it dropped keeps nothing, so no attributes or span events are built for it, and its trace
is remembered as none: ``trace_id_of`` then answers ``None``, so metric exemplars link only
to traces that were recorded.

The tracer provider is injected, never the global one. Span times come from the events'
``at`` through ``clock_to_ns`` when given (reproducible under a fake clock), else from the
SDK's wall clock at the moment the event is observed.

Cost per event (the observer runs on the agent loop's thread): events are dispatched by
type through a table of bound handlers (built from ``_dispatch``'s ``match``, once per
type); the turn's parent context is built once per agent span; each session's trace id is
formatted and stored only when it changes (every span of a turn shares the agent span's),
so ``max_sessions`` forgets the session whose trace id changed least recently; with it, the
exemplar labels the metrics observer attaches (``exemplar_of``: built once per recorded
trace, read with the dict's own ``get``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any, assert_never

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    CompactionOutcome,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallFinished,
    ToolCallStarted,
    TrimTrigger,
    TurnFinished,
    TurnStarted,
    WireFindingObserved,
)
from harness.telemetry import names as n
from harness.telemetry.attributes import (
    Attributes,
    Decision,
    agent_start_attributes,
    call_finish_attributes,
    call_start_attributes,
    tool_start_attributes,
)
from harness.telemetry.fanout import TypeDispatched
from harness.telemetry.otel_spans import (
    CallSpan,
    DecisionKind,
    SessionSpans,
    caused_by,
    set_outcome,
)
from harness.telemetry.otel_traces import DEFAULT_MAX_SESSIONS, SessionTraces

# A wire trim is read from one call's request: like a reactive or reported-usage trim, it
# belongs to that call's span when one is open.
_FOLLOW_UP_TRIGGERS = frozenset(
    {TrimTrigger.REACTIVE, TrimTrigger.REPORTED_USAGE, TrimTrigger.WIRE}
)


_Handler = Callable[[Any], None]


class OtelObserver(TypeDispatched):
    """Turns events into spans on an injected tracer provider. Thread-safe."""

    def __init__(
        self,
        tracer_provider: trace.TracerProvider,
        *,
        clock_to_ns: Callable[[float], int] | None = None,
        operation_name: str = n.OPERATION_CHAT,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        lock: threading.Lock | None = None,
    ) -> None:
        super().__init__(lock)
        self._tracer = tracer_provider.get_tracer(
            n.INSTRUMENTATION_NAME, schema_url=n.SEMCONV_SCHEMA_URL
        )
        # None: the SDK's clock (tested inline: a call per event to answer None cost more)
        self._ns = clock_to_ns
        self._operation = operation_name
        self._sessions: dict[str, SessionSpans] = {}
        traces = SessionTraces(max_sessions)
        # the hot paths read the trace memory's dict and call its method directly
        self._last_trace = traces.last
        self._remember = traces.remember
        self.exemplar_of: Callable[[str], dict[str, str] | None] = traces.exemplars.get
        """A session id's exemplar labels (``trace_id``: its latest recorded trace), or
        ``None``: for the metrics observer, which asks once per event. The dict's own
        ``get``: no call of ours, and the labels are built once per trace, not per event."""
        self._call_names: dict[str | None, str] = {}  # model -> inference span name

    def trace_id_of(self, event: Event) -> str | None:
        """Hex trace id of the span that recorded ``event`` (or the session's latest).

        Observers that run after this one on the bus use it for exemplars. Lock-free: one
        dict read (atomic) of an immutable pair, written whole under the lock.
        """
        known = self._last_trace.get(event.session_id)
        return known[1] if known is not None else None

    def close(self) -> None:
        """End every span still open (an aborted run), marked ``trimscope.incomplete``."""
        with self.lock:
            for state in self._sessions.values():
                self._close_call(state)
                for span in (*state.tools.values(), state.agent):
                    if span is not None:
                        span.set_attribute(n.ATTR_INCOMPLETE, True)
                        span.end()
            self._sessions.clear()

    # --- dispatch -----------------------------------------------------------------------

    def _dispatch(self, event: Event) -> _Handler:  # noqa: PLR0911 (a case per event kind)
        """The handler for ``event``'s type; ``on_event`` keeps it per type."""
        match event:
            case TurnStarted():
                return self._turn_started
            case TurnFinished():
                return self._turn_finished
            case ProviderCallStarted():
                return self._call_started
            case ProviderCallFinished():
                return self._call_finished
            case ToolCallStarted():
                return self._tool_started
            case ToolCallFinished():
                return self._tool_finished
            case BudgetResolved() | CapacityChecked():
                return partial(self._decision, DecisionKind.of(event), False)
            case HistoryTrimmed():
                return partial(self._trimmed, DecisionKind.of(event))
            case OverflowDetected() | RecoveryAttempted():
                return partial(self._decision, DecisionKind.of(event), True)
            case ProviderContextEdited():
                return partial(self._provider_edited, DecisionKind.of(event))
            case WireFindingObserved():  # a follow-up of the exchange it was read from
                return partial(self._decision, DecisionKind.of(event), True)
            case _:
                assert_never(event)

    # --- turns, calls, tools ------------------------------------------------------------

    def _turn_started(self, event: TurnStarted) -> None:
        state = self._sessions.get(event.session_id) or self._state(event.session_id)
        self._close_call(state)
        start = None if self._ns is None else self._ns(event.at)
        if state.agent is not None:  # a turn that never finished: close it, marked
            state.agent.set_attribute(n.ATTR_INCOMPLETE, True)
            state.agent.end(end_time=start)
        agent, state.agent_trace = self._start(
            event.session_id,
            n.agent_span_name(event.agent_name),
            SpanKind.INTERNAL,
            agent_start_attributes(event),
            start,
        )
        state.agent = agent
        state.parent = trace.set_span_in_context(agent)

    def _turn_finished(self, event: TurnFinished) -> None:
        state = self._sessions.pop(event.session_id, None)  # nothing stays open
        if state is None:
            return
        self._close_call(state)
        end = None if self._ns is None else self._ns(event.at)
        for span in state.tools.values():
            span.set_attribute(n.ATTR_INCOMPLETE, True)
            span.end(end_time=end)
        agent = state.agent
        if agent is None:
            return
        if agent.is_recording():
            attributes: Attributes = {
                n.ATTR_TURN_OUTCOME: event.outcome,
                n.ATTR_TURN_ITERATIONS: event.iterations,
            }
            set_outcome(agent, attributes, event.error_type)
        agent.end(end_time=end)

    def _call_started(self, event: ProviderCallStarted) -> None:
        # the most frequent span: ``_start`` inline and the span name kept per model
        session_id = event.session_id
        state = self._sessions.get(session_id) or self._state(session_id)
        if state.call is not None:
            self._close_call(state)
        name = self._call_names.get(event.model)
        if name is None:
            name = self._call_names[event.model] = n.inference_span_name(
                self._operation, event.model
            )
        attributes = call_start_attributes(event, self._operation)
        span = self._tracer.start_span(
            name,
            context=state.parent,
            kind=SpanKind.CLIENT,
            attributes=attributes,
            start_time=None if self._ns is None else self._ns(event.at),
        )
        trace_id: int = span.get_span_context().trace_id
        known = self._last_trace.get(session_id)
        if known is None or known[0] != trace_id:  # else stored already: a lookup only
            self._remember(session_id, span)
        state.call = CallSpan(event.call_id, span, name, attributes, trace_id)

    def _call_finished(self, event: ProviderCallFinished) -> None:
        state = self._sessions.get(event.session_id) or self._state(event.session_id)
        call = state.call
        if call is None or call.call_id != event.call_id:
            return  # a finish without its start: nothing to attach it to
        if call.end_ns is not None:  # a further attempt of the same dispatch
            call = state.call = self._next_attempt(call, event, state.parent)
        call.end_ns = time.time_ns() if self._ns is None else self._ns(event.at)
        span = call.span
        if span.is_recording():  # ``set_outcome`` inline: every call passes here
            attributes = call_finish_attributes(event)
            if event.outcome == "ok":
                span.set_attributes(attributes)
            else:
                error = event.error_type or n.ERROR_TYPE_OTHER
                attributes[n.ERROR_TYPE] = error
                span.set_attributes(attributes)
                span.set_status(Status(StatusCode.ERROR, error))

    def _next_attempt(
        self, previous: CallSpan, event: ProviderCallFinished, parent: Context | None
    ) -> CallSpan:
        """End the previous attempt's span; the new one starts where it ended."""
        if previous.attempt == 1:
            previous.span.set_attribute(n.ATTR_ATTEMPT, 1)
        previous.span.end(end_time=previous.end_ns)
        attempt = previous.attempt + 1
        span, trace_id = self._start(
            event.session_id,
            previous.name,
            SpanKind.CLIENT,
            {**previous.attributes, n.ATTR_ATTEMPT: attempt},
            previous.end_ns,
            parent=parent,
        )
        return CallSpan(
            previous.call_id, span, previous.name, previous.attributes, trace_id, attempt=attempt
        )

    def _tool_started(self, event: ToolCallStarted) -> None:
        state = self._sessions.get(event.session_id) or self._state(event.session_id)
        if state.call is not None:
            self._close_call(state)
        state.tools[event.call_id] = self._start(
            event.session_id,
            n.tool_span_name(event.tool_name),
            SpanKind.INTERNAL,
            tool_start_attributes(event),
            None if self._ns is None else self._ns(event.at),
            parent=state.parent,
        )[0]

    def _tool_finished(self, event: ToolCallFinished) -> None:
        state = self._sessions.get(event.session_id) or self._state(event.session_id)
        span = state.tools.pop(event.call_id, None)
        if span is None:
            return
        if span.is_recording():
            attributes: Attributes = {
                n.ATTR_TOOL_RESULT_BYTES: event.result_bytes,
                n.ATTR_TOOL_TRUNCATED: event.truncated,
            }
            set_outcome(span, attributes, event.error_type)
        span.end(end_time=None if self._ns is None else self._ns(event.at))

    # --- decisions ----------------------------------------------------------------------

    def _trimmed(self, kind: DecisionKind, event: HistoryTrimmed) -> None:
        self._decision(kind, event.trigger in _FOLLOW_UP_TRIGGERS, event)

    def _provider_edited(self, kind: DecisionKind, event: ProviderContextEdited) -> None:
        """A span event on its call's span; the context the model saw was compacted, so
        the span says ``gen_ai.conversation.compacted`` (unless the compaction failed)."""
        self._decision(kind, True, event)
        state = self._sessions.get(event.session_id)
        call = state.call if state is not None else None
        failed = event.compaction is CompactionOutcome.FAILED
        if call is not None and call.call_id == event.call_id and not failed:
            call.span.set_attribute(n.GEN_AI_CONVERSATION_COMPACTED, True)

    def _decision(self, kind: DecisionKind, follow_up: bool, event: Decision) -> None:
        """A span event on the span it belongs to (``follow_up``: possibly the open call's),
        else on a short span of its own."""
        session_id = event.session_id
        state = self._sessions.get(session_id)
        target: Span | None = None
        if state is not None:
            call = state.call
            if call is not None and follow_up and caused_by(event, call, kind.names_call):
                target, trace_id = call.span, call.trace_id
            else:
                if call is not None:
                    self._close_call(state)
                target, trace_id = state.agent, state.agent_trace
        at = None if self._ns is None else self._ns(event.at)
        if target is not None:
            if target.is_recording():  # a span the sampler dropped keeps nothing
                target.add_event(kind.span_event, kind.attributes(event), timestamp=at)
            known = self._last_trace.get(session_id)
            if known is None or known[0] != trace_id:  # else stored already: a lookup only
                self._remember(session_id, target)
            return
        attributes = kind.attributes(event)
        span, _ = self._start(
            event.session_id,
            kind.outside_span,
            SpanKind.INTERNAL,
            {n.GEN_AI_CONVERSATION_ID: event.session_id},
            at,
        )
        span.add_event(kind.span_event, attributes, timestamp=at)
        span.end(end_time=at)

    # --- helpers ------------------------------------------------------------------------

    def _state(self, session_id: str) -> SessionSpans:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = SessionSpans()
        return state

    def _start(
        self,
        session_id: str,
        name: str,
        kind: SpanKind,
        attributes: Attributes,
        start_ns: int | None,
        *,
        parent: Context | None = None,
    ) -> tuple[Span, int]:
        """Start a span (under ``parent``, the turn's context, when given) and note its
        trace as the session's latest; the span and its trace id."""
        span = self._tracer.start_span(
            name, context=parent, kind=kind, attributes=attributes, start_time=start_ns
        )
        trace_id: int = span.get_span_context().trace_id
        known = self._last_trace.get(session_id)
        if known is None or known[0] != trace_id:  # else stored already: a lookup only
            self._remember(session_id, span)
        return span, trace_id

    def _close_call(self, state: SessionSpans) -> None:
        call, state.call = state.call, None
        if call is not None:
            if call.end_ns is None:  # superseded before it finished: record that honestly
                call.span.set_attribute(n.ATTR_INCOMPLETE, True)
            call.span.end(end_time=call.end_ns)


def event_clock_ns(at: float) -> int:
    """``clock_to_ns`` for an epoch-seconds clock (or a fake clock in tests)."""
    return round(at * 1_000_000_000)
