"""The OpenTelemetry observer: GenAI spans and trimscope span events, per the conventions."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from harness.events import (
    Event,
    HistoryTrimmed,
    ProviderCallFinished,
    TrimTrigger,
    TurnFinished,
    TurnStarted,
)
from harness.telemetry import OtelObserver, event_clock_ns
from harness.telemetry import names as n
from tests.telemetry.conftest import Harness
from tests.telemetry.scripted import (
    AGENT,
    MODEL,
    OVERFLOW_CODE,
    PROVIDER,
    Script,
    every_kind_session,
    full_turn,
    refused_turn,
    scripted_session,
    seeding_trim,
    unrecovered_turn,
)

CHAT = f"chat {MODEL}"


def _calls(harness: Harness) -> dict[str, ReadableSpan]:
    return {
        str((span.attributes or {})[n.ATTR_CALL_ID]): span for span in harness.spans_named(CHAT)
    }


def _event_names(span: ReadableSpan) -> list[str]:
    return [event.name for event in span.events]


def _one_turn(harness: Harness) -> Script:
    script = Script()
    full_turn(script)
    harness.publish(script.events)
    return script


def test_agent_span_per_turn_is_invoke_agent_internal(harness: Harness) -> None:
    harness.publish(scripted_session())
    agents = harness.spans_named(f"invoke_agent {AGENT}")
    assert len(agents) == 3
    first = agents[0]
    assert first.kind is SpanKind.INTERNAL
    assert first.parent is None
    assert first.attributes is not None
    assert first.attributes[n.GEN_AI_OPERATION_NAME] == "invoke_agent"
    assert first.attributes[n.GEN_AI_AGENT_NAME] == AGENT
    assert first.attributes[n.GEN_AI_PROVIDER_NAME] == "openai"  # the kind's, not the route's
    assert first.attributes[n.ATTR_PROVIDER] == PROVIDER
    assert first.attributes[n.GEN_AI_REQUEST_MODEL] == MODEL
    assert first.attributes[n.GEN_AI_CONVERSATION_ID] == "s1"


def test_inference_span_is_named_operation_then_model(harness: Harness) -> None:
    _one_turn(harness)
    (agent,) = harness.spans_named(f"invoke_agent {AGENT}")
    calls = _calls(harness)
    assert set(calls) == {"s1-c1", "s1-c2", "s1-c3"}
    for span in calls.values():
        assert span.kind is SpanKind.CLIENT
        assert span.parent is not None
        assert span.parent.span_id == agent.context.span_id
        assert span.attributes is not None
        assert span.attributes[n.GEN_AI_OPERATION_NAME] == "chat"
        assert span.attributes[n.GEN_AI_PROVIDER_NAME] == "openai"
        assert span.attributes[n.ATTR_PROVIDER] == PROVIDER
        assert span.attributes[n.GEN_AI_REQUEST_MODEL] == MODEL


def test_compacted_is_true_only_on_calls_that_used_a_trimmed_history(harness: Harness) -> None:
    _one_turn(harness)
    calls = _calls(harness)
    assert calls["s1-c1"].attributes is not None
    assert calls["s1-c1"].attributes[n.GEN_AI_CONVERSATION_COMPACTED] is True
    assert calls["s1-c3"].attributes is not None
    assert calls["s1-c3"].attributes[n.GEN_AI_CONVERSATION_COMPACTED] is True
    assert calls["s1-c2"].attributes is not None
    assert n.GEN_AI_CONVERSATION_COMPACTED not in calls["s1-c2"].attributes  # never ``false``


def test_usage_and_finish_reasons_are_recorded(harness: Harness) -> None:
    _one_turn(harness)
    first = _calls(harness)["s1-c1"].attributes
    assert first is not None
    assert first[n.GEN_AI_USAGE_INPUT_TOKENS] == 6400
    assert first[n.GEN_AI_USAGE_OUTPUT_TOKENS] == 50
    assert tuple(first[n.GEN_AI_RESPONSE_FINISH_REASONS]) == ("tool_calls",)  # type: ignore[arg-type]
    assert n.ERROR_TYPE not in first


def test_error_type_is_the_providers_code(harness: Harness) -> None:
    _one_turn(harness)
    failed = _calls(harness)["s1-c2"]
    assert failed.attributes is not None
    assert failed.attributes[n.ERROR_TYPE] == OVERFLOW_CODE
    assert failed.attributes[n.HTTP_RESPONSE_STATUS_CODE] == 400
    assert failed.status.status_code is StatusCode.ERROR
    assert n.GEN_AI_USAGE_INPUT_TOKENS not in failed.attributes


def test_error_type_falls_back_to_other(harness: Harness) -> None:
    script = Script()
    script.turn()
    script.call(100, outcome="server_error")
    finished = script.events[-1]
    assert isinstance(finished, ProviderCallFinished)
    script.events[-1] = dataclasses.replace(finished, error_type=None)  # no code given
    script.end_turn("error", "ProviderServerError")
    harness.publish(script.events)
    (span,) = harness.spans_named(CHAT)
    assert span.attributes is not None
    assert span.attributes[n.ERROR_TYPE] == n.ERROR_TYPE_OTHER == "_OTHER"


def test_tool_calls_are_execute_tool_spans(harness: Harness) -> None:
    _one_turn(harness)
    (tool,) = harness.spans_named("execute_tool read_file")
    assert tool.kind is SpanKind.INTERNAL
    assert tool.attributes is not None
    assert tool.attributes[n.GEN_AI_TOOL_NAME] == "read_file"
    assert tool.attributes[n.GEN_AI_OPERATION_NAME] == "execute_tool"
    assert tool.attributes[n.GEN_AI_TOOL_TYPE] == "function"
    assert tool.attributes[n.ATTR_TOOL_TRUNCATED] is True


def test_every_decision_is_a_span_event_with_trimscope_attributes(harness: Harness) -> None:
    _one_turn(harness)
    recorded = {
        event.name: dict(event.attributes or {}) for span in harness.spans for event in span.events
    }
    assert recorded[n.EVENT_BUDGET_RESOLVED][n.ATTR_BUDGET_RULE] == "ratio"
    assert recorded[n.EVENT_BUDGET_RESOLVED][n.ATTR_WINDOW_TOKENS] == 8000
    assert recorded[n.EVENT_BUDGET_RESOLVED][n.ATTR_WINDOW_SOURCE] == "configured"
    assert recorded[n.EVENT_BUDGET_RESOLVED][n.ATTR_BUDGET_TOKENS] == 6000
    assert recorded[n.EVENT_CAPACITY_CHECKED][n.ATTR_CAPACITY_FITS] is True
    assert recorded[n.EVENT_CAPACITY_CHECKED][n.ATTR_ESTIMATE_TOKENS] == 5000
    trim = recorded[n.EVENT_HISTORY_TRIMMED]
    assert trim[n.ATTR_TRIM_TRIGGER] == "turn_limit"
    assert trim[n.ATTR_TRIM_REASON] == "history turn limit exceeded"
    assert (trim[n.ATTR_TOKENS_BEFORE], trim[n.ATTR_TOKENS_AFTER]) == (7000, 5000)
    assert (trim[n.ATTR_DROPPED_MESSAGES], trim[n.ATTR_DROPPED_TURNS]) == (3, 1)
    assert trim[n.ATTR_KEPT_TURNS] == 4
    assert recorded[n.EVENT_OVERFLOW_DETECTED][n.ERROR_TYPE] == OVERFLOW_CODE
    assert recorded[n.EVENT_OVERFLOW_DETECTED][n.ATTR_REFERENCE_VERDICT] is True
    assert recorded[n.EVENT_RECOVERY_ATTEMPTED][n.ATTR_RECOVERY_OUTCOME] == "retrying"


def test_follow_ups_go_on_the_call_that_caused_them(harness: Harness) -> None:
    _one_turn(harness)
    calls = _calls(harness)
    assert _event_names(calls["s1-c1"]) == [n.EVENT_HISTORY_TRIMMED]  # reported usage
    assert _event_names(calls["s1-c2"]) == [
        n.EVENT_OVERFLOW_DETECTED,
        n.EVENT_RECOVERY_ATTEMPTED,
        n.EVENT_HISTORY_TRIMMED,  # reactive
    ]
    assert _event_names(calls["s1-c3"]) == [  # what the provider reported it edited
        n.EVENT_PROVIDER_CONTEXT_EDITED,
        n.EVENT_PROVIDER_CONTEXT_EDITED,
    ]
    (agent,) = harness.spans_named(f"invoke_agent {AGENT}")
    triggers = [
        event.attributes[n.ATTR_TRIM_TRIGGER]
        for event in agent.events
        if event.name == n.EVENT_HISTORY_TRIMMED and event.attributes is not None
    ]
    assert triggers == ["proactive", "turn_limit"]
    assert _event_names(agent).count(n.EVENT_BUDGET_RESOLVED) == 3


def test_inference_span_ends_when_the_call_finished(harness: Harness) -> None:
    script = _one_turn(harness)
    finished_at = {e.call_id: e.at for e in script.events if isinstance(e, ProviderCallFinished)}
    for call_id, span in _calls(harness).items():
        assert span.end_time == round(finished_at[call_id] * 1e9)


def test_seeding_trim_outside_a_turn_gets_a_short_trim_span(harness: Harness) -> None:
    script = Script()
    seeding_trim(script)
    harness.publish(script.events)
    (span,) = harness.spans_named(n.SPAN_TRIM)
    assert span.name == "trimscope.trim"
    assert span.parent is None
    assert _event_names(span) == [n.EVENT_HISTORY_TRIMMED]


def test_refused_call_has_no_inference_span_and_fails_the_turn(harness: Harness) -> None:
    script = Script()
    refused_turn(script)
    harness.publish(script.events)
    assert harness.spans_named(CHAT) == []
    (agent,) = harness.spans_named(f"invoke_agent {AGENT}")
    assert agent.attributes is not None
    assert agent.attributes[n.ERROR_TYPE] == "ContextCapacityExceeded"
    assert agent.status.status_code is StatusCode.ERROR
    capacity = [e for e in agent.events if e.name == n.EVENT_CAPACITY_CHECKED]
    assert capacity[0].attributes is not None
    assert capacity[0].attributes[n.ATTR_CAPACITY_FITS] is False


def test_unrecovered_overflow_stays_on_its_call(harness: Harness) -> None:
    script = Script()
    unrecovered_turn(script)
    harness.publish(script.events)
    (call,) = harness.spans_named(CHAT)
    recovery = [e for e in call.events if e.name == n.EVENT_RECOVERY_ATTEMPTED]
    assert recovery[0].attributes is not None
    assert recovery[0].attributes[n.ATTR_RECOVERY_OUTCOME] == "only_one_turn_left"


def test_an_overflow_naming_an_earlier_call_is_not_put_on_the_open_call(
    harness: Harness,
) -> None:
    """Overflows and recoveries name their call: one that arrives while a later call is
    open goes on the agent span, where a trim after that call's finish would go on it."""
    script = Script()
    script.turn()
    first = script.call(5000)
    second = script.call(5000)
    script.overflow(first)
    script.end_turn()
    harness.publish(script.events)
    (agent,) = harness.spans_named(f"invoke_agent {AGENT}")
    later = [s for s in harness.spans_named(CHAT) if (s.attributes or {})[n.ATTR_CALL_ID] == second]
    assert [e.name for e in later[0].events] == []
    named = [e.name for e in agent.events]
    assert n.EVENT_OVERFLOW_DETECTED in named
    assert n.EVENT_RECOVERY_ATTEMPTED in named


def test_the_global_tracer_provider_is_never_touched(harness: Harness) -> None:
    before = trace.get_tracer_provider()
    harness.publish(scripted_session())
    assert trace.get_tracer_provider() is before
    assert harness.spans  # everything went to the injected provider


def test_trace_id_of_names_the_span_that_recorded_the_event(harness: Harness) -> None:
    script = Script()
    full_turn(script)
    trim = next(e for e in script.events if isinstance(e, HistoryTrimmed))
    for event in script.events:
        harness.publish([event])
        if event is trim:
            recorded = harness.otel.trace_id_of(event)
    (agent,) = harness.spans_named(f"invoke_agent {AGENT}")
    assert recorded == trace.format_trace_id(agent.context.trace_id)


def test_interleaved_sessions_are_kept_apart(harness: Harness) -> None:
    first, second = Script(session_id="a"), Script(session_id="b")
    full_turn(first)
    full_turn(second)
    for pair in zip(first.events, second.events, strict=True):
        harness.publish(pair)
    agents = harness.spans_named(f"invoke_agent {AGENT}")
    assert len(agents) == 2
    for agent in agents:
        children = [
            s for s in harness.spans if s.parent and s.parent.span_id == agent.context.span_id
        ]
        conversation = agent.attributes[n.GEN_AI_CONVERSATION_ID] if agent.attributes else None
        assert len(children) == 4  # three calls and a tool
        assert all(
            c.attributes is not None and c.attributes[n.GEN_AI_CONVERSATION_ID] == conversation
            for c in children
        )


def test_close_ends_open_spans_marked_incomplete(harness: Harness) -> None:
    script = Script()
    script.turn()
    script.call(100)
    script.tool()
    del script.events[-1]  # the tool never finished: the run was aborted
    harness.publish(script.events)
    harness.otel.close()
    names = {span.name: span for span in harness.spans}
    agent_attributes = names[f"invoke_agent {AGENT}"].attributes
    assert agent_attributes is not None
    assert agent_attributes[n.ATTR_INCOMPLETE] is True
    assert names["execute_tool read_file"].attributes is not None
    assert names["execute_tool read_file"].attributes[n.ATTR_INCOMPLETE] is True
    assert n.ATTR_INCOMPLETE not in (names[CHAT].attributes or {})  # that call had finished


def test_trims_of_every_trigger_are_recorded(harness: Harness) -> None:
    harness.publish(every_kind_session())  # the wire trigger is the proxy's
    triggers = sorted(
        str(e.attributes[n.ATTR_TRIM_TRIGGER])
        for span in harness.spans
        for e in span.events
        if e.name == n.EVENT_HISTORY_TRIMMED and e.attributes is not None
    )
    assert triggers == sorted(
        [t.value for t in TrimTrigger] + [TrimTrigger.TURN_LIMIT.value]  # + the seeding trim
    )


def test_each_attempt_of_a_retried_call_is_a_span_of_its_own(harness: Harness) -> None:
    """A rate-limited attempt, then a successful one, under one call id: two inference
    spans, the second not carrying the first one's error."""
    script = Script()
    script.turn()
    plain = script.call(1000)
    retried = script.retried_call(5000, ("rate_limited", "rate_limited", "ok"))
    script.end_turn()
    harness.publish(script.events)
    spans = sorted(harness.spans_named(CHAT), key=lambda span: span.start_time or 0)
    assert len(spans) == 4
    assert spans[0].attributes is not None
    assert n.ATTR_ATTEMPT not in spans[0].attributes  # a call that was not retried
    attempts = spans[1:]
    assert [s.attributes[n.ATTR_ATTEMPT] for s in attempts if s.attributes] == [1, 2, 3]
    assert all(s.attributes and s.attributes[n.ATTR_CALL_ID] == retried for s in attempts)
    assert {s.parent.span_id for s in spans if s.parent} == {
        harness.spans_named(f"invoke_agent {AGENT}")[0].context.span_id
    }
    for failed in attempts[:2]:
        assert failed.status.status_code is StatusCode.ERROR
        assert failed.attributes is not None
        assert failed.attributes[n.ERROR_TYPE] == "rate_limit_exceeded"
    last = attempts[2]
    assert last.status.status_code is StatusCode.UNSET
    assert last.attributes is not None
    assert n.ERROR_TYPE not in last.attributes
    assert last.attributes[n.ATTR_CALL_OUTCOME] == "ok"
    assert [a.start_time for a in attempts[1:]] == [a.end_time for a in attempts[:2]]
    assert plain != retried


def _trace_ids_per_event(harness: Harness, events: Sequence[Event]) -> list[str | None]:
    """``trace_id_of`` asked right after each event, as the Prometheus observer does."""
    recorded = []
    for event in events:
        harness.publish([event])
        recorded.append(harness.otel.trace_id_of(event))
    return recorded


def _hex(span: ReadableSpan) -> str:
    return trace.format_trace_id(span.context.trace_id)


def test_trace_id_of_follows_each_turn_of_a_session(harness: Harness) -> None:
    """The trace id is stored only when it changes: every turn (and a seeding trim before
    them) must still be named, up to and including its ``TurnFinished``."""
    script = Script()
    seeding_trim(script)
    full_turn(script)
    first_turn = len(script.events)
    full_turn(script)
    recorded = _trace_ids_per_event(harness, script.events)
    (seeding,) = harness.spans_named(n.SPAN_TRIM)
    first, second = sorted(
        harness.spans_named(f"invoke_agent {AGENT}"), key=lambda span: span.start_time or 0
    )
    assert recorded[0] == _hex(seeding)
    assert set(recorded[1:first_turn]) == {_hex(first)}
    assert set(recorded[first_turn:]) == {_hex(second)}
    assert len({_hex(seeding), _hex(first), _hex(second)}) == 3


def test_trace_id_of_names_each_root_span_without_turn_events(harness: Harness) -> None:
    """Drivers without turn events: every span is a root with its own trace."""
    script = Script()
    for estimate in (100, 200):
        script.call(estimate)
    events = [e for e in script.events if not isinstance(e, TurnStarted | TurnFinished)]
    recorded = _trace_ids_per_event(harness, events)
    harness.otel.close()
    budget1, budget2 = (_hex(s) for s in harness.spans_named("trimscope.budget"))
    capacity1, capacity2 = (_hex(s) for s in harness.spans_named("trimscope.capacity"))
    calls = {call_id: _hex(span) for call_id, span in _calls(harness).items()}
    call1, call2 = calls["s1-c1"], calls["s1-c2"]
    assert recorded == [budget1, capacity1, call1, call1, budget2, capacity2, call2, call2]
    assert len(set(recorded)) == 6


def _turn_started(session_id: str) -> TurnStarted:
    script = Script(session_id=session_id)
    script.turn()
    event = script.events[0]
    assert isinstance(event, TurnStarted)
    return event


def test_remembered_trace_ids_are_bounded_forgetting_the_least_recently_changed(
    harness: Harness,
) -> None:
    observer = OtelObserver(harness.provider, clock_to_ns=event_clock_ns, max_sessions=2)
    a, b, c = (_turn_started(session) for session in ("a", "b", "c"))
    observer.on_event(a)
    observer.on_event(b)
    trim_a = dataclasses.replace(Script(session_id="a").trim(TrimTrigger.PROACTIVE), turn_id="a-t1")
    observer.on_event(trim_a)  # same trace as a's turn: no change, a stays the oldest
    a_trace = observer.trace_id_of(a)
    assert a_trace is not None
    observer.on_event(c)
    assert observer.trace_id_of(a) is None  # forgotten: two sessions at most
    assert observer.trace_id_of(b) is not None
    assert observer.trace_id_of(c) is not None
    observer.on_event(trim_a)  # a records again: remembered again, b is now the oldest
    assert observer.trace_id_of(trim_a) == a_trace
    assert observer.trace_id_of(b) is None
    assert observer.trace_id_of(c) is not None
    observer.close()


def test_children_hang_off_the_current_turn_after_one_that_never_finished(
    harness: Harness,
) -> None:
    script = Script()
    script.turn()
    script.call(100)
    script.turn()  # the first turn never finished
    script.call(200)
    script.tool()
    script.end_turn()
    harness.publish(script.events)
    first, second = sorted(
        harness.spans_named(f"invoke_agent {AGENT}"), key=lambda span: span.start_time or 0
    )
    assert first.attributes is not None
    assert first.attributes[n.ATTR_INCOMPLETE] is True
    calls = _calls(harness)
    (tool,) = harness.spans_named("execute_tool read_file")
    assert calls["s1-c1"].parent is not None
    assert calls["s1-c1"].parent.span_id == first.context.span_id
    for child in (calls["s1-c2"], tool):
        assert child.parent is not None
        assert child.parent.span_id == second.context.span_id
        assert child.context.trace_id == second.context.trace_id


def test_finish_attributes_and_error_are_set_in_order(harness: Harness) -> None:
    """The finish attributes, then ``error.type``, after the start attributes."""
    script = Script()
    script.turn()
    script.call(100, outcome="overflow")
    script.tool()
    script.end_turn("error", "ContextWindowExceeded")
    harness.publish(script.events)
    (call,) = harness.spans_named(CHAT)
    assert list(call.attributes or {})[-3:] == [
        n.ATTR_CALL_OUTCOME,
        n.HTTP_RESPONSE_STATUS_CODE,
        n.ERROR_TYPE,
    ]
    assert call.status.status_code is StatusCode.ERROR
    (agent,) = harness.spans_named(f"invoke_agent {AGENT}")
    assert list(agent.attributes or {})[-3:] == [
        n.ATTR_TURN_OUTCOME,
        n.ATTR_TURN_ITERATIONS,
        n.ERROR_TYPE,
    ]
    assert agent.status.status_code is StatusCode.ERROR
    (tool,) = harness.spans_named("execute_tool read_file")
    assert list(tool.attributes or {})[-2:] == [n.ATTR_TOOL_RESULT_BYTES, n.ATTR_TOOL_TRUNCATED]
    assert tool.status.status_code is StatusCode.UNSET
