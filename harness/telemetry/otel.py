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
outside a turn) the event gets a short span of its own, e.g. ``trimscope.trim``.

The tracer provider is injected, never the global one. Span times come from the events'
``at`` through ``clock_to_ns`` when given (reproducible under a fake clock), else from the
SDK's wall clock at the moment the event is observed.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

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
    TrimTrigger,
    TurnFinished,
    TurnStarted,
    event_kind,
)
from harness.telemetry import names as n
from harness.telemetry.attributes import (
    Attributes,
    Decision,
    agent_start_attributes,
    call_finish_attributes,
    call_start_attributes,
    decision_attributes,
    tool_start_attributes,
)

DEFAULT_MAX_SESSIONS = 10_000
"""Sessions whose last trace id is remembered for exemplars (oldest forgotten first)."""

_FOLLOW_UP_TRIGGERS = frozenset({TrimTrigger.REACTIVE, TrimTrigger.REPORTED_USAGE})


@dataclass(slots=True)
class _Call:
    call_id: str
    span: Span
    name: str
    attributes: Attributes
    end_ns: int | None = None  # set at ProviderCallFinished; the span ends when superseded
    attempt: int = 1


@dataclass(slots=True)
class _Session:
    agent: Span | None = None
    call: _Call | None = None
    tools: dict[str, Span] = field(default_factory=dict)


class OtelObserver:
    """Turns events into spans on an injected tracer provider. Thread-safe."""

    def __init__(
        self,
        tracer_provider: trace.TracerProvider,
        *,
        clock_to_ns: Callable[[float], int] | None = None,
        operation_name: str = n.OPERATION_CHAT,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        self._tracer = tracer_provider.get_tracer(
            n.INSTRUMENTATION_NAME, schema_url=n.SEMCONV_SCHEMA_URL
        )
        self._clock_to_ns = clock_to_ns
        self._operation = operation_name
        self._max_sessions = max_sessions
        self._sessions: dict[str, _Session] = {}
        self._last_trace: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def on_event(self, event: Event) -> None:
        with self._lock:
            self._dispatch(event)

    def trace_id_of(self, event: Event) -> str | None:
        """Hex trace id of the span that recorded ``event`` (or the session's latest).

        Observers that run after this one on the bus use it for exemplars.
        """
        with self._lock:
            return self._last_trace.get(event.session_id)

    def close(self) -> None:
        """End every span still open (an aborted run), marked ``trimscope.incomplete``."""
        with self._lock:
            for state in self._sessions.values():
                self._close_call(state)
                for span in (*state.tools.values(), state.agent):
                    if span is not None:
                        span.set_attribute(n.ATTR_INCOMPLETE, True)
                        span.end()
            self._sessions.clear()

    # --- dispatch -----------------------------------------------------------------------

    def _dispatch(self, event: Event) -> None:
        match event:
            case TurnStarted():
                self._turn_started(event)
            case TurnFinished():
                self._turn_finished(event)
            case ProviderCallStarted():
                self._call_started(event)
            case ProviderCallFinished():
                self._call_finished(event)
            case ToolCallStarted():
                self._tool_started(event)
            case ToolCallFinished():
                self._tool_finished(event)
            case BudgetResolved() | CapacityChecked():
                self._decision(event, follow_up=False)
            case HistoryTrimmed():
                self._decision(event, follow_up=event.trigger in _FOLLOW_UP_TRIGGERS)
            case OverflowDetected() | RecoveryAttempted():
                self._decision(event, follow_up=True)
            case _:
                assert_never(event)

    # --- turns, calls, tools ------------------------------------------------------------

    def _turn_started(self, event: TurnStarted) -> None:
        state = self._state(event.session_id)
        self._close_call(state)
        if state.agent is not None:  # a turn that never finished: close it, marked
            state.agent.set_attribute(n.ATTR_INCOMPLETE, True)
            state.agent.end(end_time=self._ns(event.at))
        state.agent = self._start(
            n.agent_span_name(event.agent_name),
            event,
            SpanKind.INTERNAL,
            agent_start_attributes(event),
            parent=None,
        )

    def _turn_finished(self, event: TurnFinished) -> None:
        state = self._state(event.session_id)
        self._close_call(state)
        end = self._ns(event.at)
        for span in state.tools.values():
            span.set_attribute(n.ATTR_INCOMPLETE, True)
            span.end(end_time=end)
        state.tools.clear()
        agent, state.agent = state.agent, None
        self._sessions.pop(event.session_id, None)  # nothing is open any more
        if agent is None:
            return
        agent.set_attribute(n.ATTR_TURN_OUTCOME, event.outcome)
        agent.set_attribute(n.ATTR_TURN_ITERATIONS, event.iterations)
        if event.error_type:
            agent.set_attribute(n.ERROR_TYPE, event.error_type)
            agent.set_status(Status(StatusCode.ERROR, event.error_type))
        agent.end(end_time=end)

    def _call_started(self, event: ProviderCallStarted) -> None:
        state = self._state(event.session_id)
        self._close_call(state)
        name = n.inference_span_name(self._operation, event.model)
        attributes = call_start_attributes(event, self._operation)
        span = self._start(name, event, SpanKind.CLIENT, attributes, parent=state.agent)
        state.call = _Call(event.call_id, span, name, attributes)

    def _call_finished(self, event: ProviderCallFinished) -> None:
        state = self._state(event.session_id)
        call = state.call
        if call is None or call.call_id != event.call_id:
            return  # a finish without its start: nothing to attach it to
        if call.end_ns is not None:  # a further attempt of the same dispatch
            call = state.call = self._next_attempt(call, event, state.agent)
        call.span.set_attributes(call_finish_attributes(event))
        if event.outcome != "ok":
            error = event.error_type or n.ERROR_TYPE_OTHER
            call.span.set_attribute(n.ERROR_TYPE, error)
            call.span.set_status(Status(StatusCode.ERROR, error))
        end = self._ns(event.at)
        call.end_ns = end if end is not None else time.time_ns()

    def _next_attempt(
        self, previous: _Call, event: ProviderCallFinished, parent: Span | None
    ) -> _Call:
        """End the previous attempt's span; the new one starts where it ended."""
        if previous.attempt == 1:
            previous.span.set_attribute(n.ATTR_ATTEMPT, 1)
        previous.span.end(end_time=previous.end_ns)
        context = trace.set_span_in_context(parent) if parent is not None else None
        attempt = previous.attempt + 1
        span = self._tracer.start_span(
            previous.name,
            context=context,
            kind=SpanKind.CLIENT,
            attributes={**previous.attributes, n.ATTR_ATTEMPT: attempt},
            start_time=previous.end_ns,
        )
        self._remember(event.session_id, span)
        return _Call(previous.call_id, span, previous.name, previous.attributes, attempt=attempt)

    def _tool_started(self, event: ToolCallStarted) -> None:
        state = self._state(event.session_id)
        self._close_call(state)
        state.tools[event.call_id] = self._start(
            n.tool_span_name(event.tool_name),
            event,
            SpanKind.INTERNAL,
            tool_start_attributes(event),
            parent=state.agent,
        )

    def _tool_finished(self, event: ToolCallFinished) -> None:
        span = self._state(event.session_id).tools.pop(event.call_id, None)
        if span is None:
            return
        span.set_attribute(n.ATTR_TOOL_RESULT_BYTES, event.result_bytes)
        span.set_attribute(n.ATTR_TOOL_TRUNCATED, event.truncated)
        if event.error_type:
            span.set_attribute(n.ERROR_TYPE, event.error_type)
            span.set_status(Status(StatusCode.ERROR, event.error_type))
        span.end(end_time=self._ns(event.at))

    # --- decisions ----------------------------------------------------------------------

    def _decision(self, event: Decision, *, follow_up: bool) -> None:
        state = self._sessions.get(event.session_id) or _Session()
        call = state.call
        if call is not None and follow_up and _caused_by(event, call):
            target: Span | None = call.span
        else:
            self._close_call(state)
            target = state.agent
        name = n.SPAN_EVENT_OF_KIND[event_kind(event)]
        attributes = decision_attributes(event)
        if target is not None:
            target.add_event(name, attributes, timestamp=self._ns(event.at))
            self._remember(event.session_id, target)
            return
        span = self._start(
            n.OUTSIDE_TURN_SPANS[event_kind(event)],
            event,
            SpanKind.INTERNAL,
            {n.GEN_AI_CONVERSATION_ID: event.session_id},
            parent=None,
        )
        span.add_event(name, attributes, timestamp=self._ns(event.at))
        span.end(end_time=self._ns(event.at))

    # --- helpers ------------------------------------------------------------------------

    def _state(self, session_id: str) -> _Session:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = _Session()
        return state

    def _start(
        self,
        name: str,
        event: Event,
        kind: SpanKind,
        attributes: Attributes,
        *,
        parent: Span | None,
    ) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        span = self._tracer.start_span(
            name, context=context, kind=kind, attributes=attributes, start_time=self._ns(event.at)
        )
        self._remember(event.session_id, span)
        return span

    def _close_call(self, state: _Session) -> None:
        call, state.call = state.call, None
        if call is not None:
            if call.end_ns is None:  # superseded before it finished: record that honestly
                call.span.set_attribute(n.ATTR_INCOMPLETE, True)
            call.span.end(end_time=call.end_ns)

    def _remember(self, session_id: str, span: Span) -> None:
        trace_id = span.get_span_context().trace_id
        if not trace_id:
            return
        self._last_trace[session_id] = trace.format_trace_id(trace_id)
        self._last_trace.move_to_end(session_id)
        while len(self._last_trace) > self._max_sessions:
            self._last_trace.popitem(last=False)

    def _ns(self, at: float) -> int | None:
        return self._clock_to_ns(at) if self._clock_to_ns is not None else None


def _caused_by(event: Decision, call: _Call) -> bool:
    """Whether a follow-up event belongs to the open call (overflows name their call)."""
    if isinstance(event, OverflowDetected | RecoveryAttempted):
        return event.call_id == call.call_id
    return call.end_ns is not None


def event_clock_ns(at: float) -> int:
    """``clock_to_ns`` for an epoch-seconds clock (or a fake clock in tests)."""
    return round(at * 1_000_000_000)
