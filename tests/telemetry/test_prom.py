"""The Prometheus observer, read back the way a scraper reads it."""

from __future__ import annotations

import dataclasses
import random
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import (
    Decision,
    ParentBased,
    Sampler,
    SamplingResult,
)
from opentelemetry.trace import Link, SpanKind, TraceState
from opentelemetry.util.types import Attributes
from prometheus_client import CollectorRegistry
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics_latest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_fd_to_metric_families

from harness.events import (
    BudgetResolved,
    CallOutcome,
    Event,
    HistoryTrimmed,
    ProviderCallFinished,
    ProviderCallStarted,
    RecoveryAttempted,
    ToolCallStarted,
    TrimTrigger,
    TurnFinished,
    TurnStarted,
)
from harness.runtime.budget import BudgetRule, WindowSource
from harness.telemetry import (
    OtelObserver,
    PrometheusObserver,
    event_clock_ns,
    serve_metrics,
    write_metrics,
)
from harness.telemetry import names as n
from tests.telemetry.conftest import Harness
from tests.telemetry.metrics_text import label_sets, value
from tests.telemetry.scripted import (
    CACHE_LOSS,
    CACHE_READ,
    MODEL,
    OVERFLOW_CODE,
    PROVIDER,
    Script,
    full_turn,
    refused_turn,
    scripted_session,
    unrecovered_turn,
)


def _fed(harness: Harness) -> CollectorRegistry:
    harness.publish(scripted_session())
    return harness.registry


def test_trims_are_counted_by_reason_trigger_and_provider(harness: Harness) -> None:
    registry = _fed(harness)
    trims = n.TRIMS.name
    assert value(registry, trims) == 5
    assert value(registry, trims, reason="token_budget", trigger="proactive") == 1
    assert value(registry, trims, reason="token_budget", trigger="reported_usage") == 1
    assert value(registry, trims, reason="token_budget", trigger="reactive") == 1
    assert value(registry, trims, reason="turn_limit", trigger="turn_limit") == 2
    assert {s[n.LABEL_PROVIDER] for s in label_sets(registry, trims)} == {PROVIDER}


def test_an_unknown_reason_is_labelled_other(harness: Harness) -> None:
    trim = Script().trim(TrimTrigger.PROACTIVE)
    harness.publish([dataclasses.replace(trim, reason="something new")])
    assert value(harness.registry, n.TRIMS.name, reason="other") == 1


def test_dropped_messages_and_turns_are_histograms(harness: Harness) -> None:
    registry = _fed(harness)
    turns = n.DROPPED_TURNS.name
    assert value(registry, f"{turns}_count") == 5
    assert value(registry, f"{turns}_sum") == 5 + 2 + 1 + 3 + 1
    assert value(registry, f"{turns}_bucket", trigger="reactive", le="4.0") == 1
    assert value(registry, f"{turns}_bucket", trigger="reactive", le="2.0") == 0
    assert value(registry, f"{n.DROPPED_MESSAGES.name}_sum", trigger="proactive") == 6


def test_budget_and_window_are_gauges_per_route(harness: Harness) -> None:
    registry = _fed(harness)
    route = {"provider": PROVIDER, "model": MODEL}
    assert value(registry, n.BUDGET_TOKENS.name, **route) == 6000
    assert value(registry, n.WINDOW_TOKENS.name, **route) == 8000


def test_budget_decisions_are_counted_by_rule(harness: Harness) -> None:
    registry = _fed(harness)
    assert value(registry, n.BUDGET_DECISIONS.name, rule="ratio", window_source="configured") == 5


def test_utilisation_is_the_peak_of_each_call_not_a_sum(harness: Harness) -> None:
    registry = _fed(harness)
    name = n.UTILIZATION.name
    # four dispatched calls and one refusal: one observation each
    assert value(registry, f"{name}_count") == 5
    # call 1 estimated 5200 but the provider reported 6400: the peak is 6400
    peaks = [6400, 7900, 5000, 9000, 7990]
    assert value(registry, f"{name}_sum") == pytest.approx(sum(peaks) / 8000)
    assert value(registry, f"{name}_bucket", le="1.0") == 4  # the refused 9000 is above


def test_capacity_refusals_are_counted(harness: Harness) -> None:
    script = Script()
    refused_turn(script)
    harness.publish(script.events)
    registry = harness.registry
    assert value(registry, n.CAPACITY_REFUSALS.name, purpose="tool_loop") == 1
    assert value(registry, n.CAPACITY_CHECKS.name, fits="false") == 1
    assert value(registry, n.TURNS.name, outcome="error") == 1


def test_overflows_are_counted_with_whether_recovery_worked(harness: Harness) -> None:
    registry = _fed(harness)
    overflows = n.OVERFLOWS.name
    assert value(registry, overflows, error_type=OVERFLOW_CODE, recovered="true") == 1
    assert value(registry, overflows, error_type=OVERFLOW_CODE, recovered="false") == 1
    assert value(registry, n.RECOVERIES.name, outcome="retrying") == 1
    assert value(registry, n.RECOVERIES.name, outcome="only_one_turn_left") == 1
    verdicts = n.OVERFLOW_VERDICTS.name
    assert value(registry, verdicts, reference_verdict="false", extended_verdict="true") == 1


def test_an_overflow_whose_retry_is_refused_did_not_recover(harness: Harness) -> None:
    script = Script()
    script.turn()
    script.overflow(script.call(7900, outcome="overflow"))
    script.budget()
    script.capacity(9000, fits=False)
    script.end_turn("error", "ContextCapacityExceeded")
    harness.publish(script.events)
    assert value(harness.registry, n.OVERFLOWS.name, recovered="false") == 1
    assert value(harness.registry, n.OVERFLOWS.name, recovered="true") == 0


def test_an_overflow_still_pending_is_settled_when_the_turn_ends(harness: Harness) -> None:
    script = Script()
    unrecovered_turn(script)
    events = [e for e in script.events if not isinstance(e, RecoveryAttempted)]
    harness.publish(events)
    assert value(harness.registry, n.OVERFLOWS.name, recovered="false") == 1


def _without_turn_events(script: Script) -> list[Event]:
    """What the legacy and channel drivers emit: no TurnStarted / TurnFinished."""
    return [e for e in script.events if not isinstance(e, TurnStarted | TurnFinished)]


def test_an_overflow_is_settled_by_the_next_turn_when_the_driver_emits_no_turn_events(
    harness: Harness,
) -> None:
    """Detected, never acted upon (the reference classifier missed it): no recovery, no
    TurnFinished. The next turn's first event settles it, though that turn's call works."""
    script = Script()
    script.turn()
    script.overflow(script.call(7900, outcome="overflow"))
    script.end_turn("error", "ContextWindowExceeded")
    events = [e for e in _without_turn_events(script) if not isinstance(e, RecoveryAttempted)]
    harness.publish(events)
    assert value(harness.registry, n.OVERFLOWS.name) == 0  # still pending
    script.turn()
    script.call(100)
    script.end_turn()
    harness.publish(_without_turn_events(script)[len(events) :])
    assert value(harness.registry, n.OVERFLOWS.name, recovered="false") == 1
    assert value(harness.registry, n.OVERFLOWS.name, recovered="true") == 0


def test_a_rate_limited_attempt_does_not_settle_an_overflow(harness: Harness) -> None:
    """Overflow, recovery, then the retry is throttled once and succeeds on its second
    attempt: recovered."""
    script = Script()
    script.turn()
    script.overflow(script.call(7900, outcome="overflow"))
    script.retried_call(5000, ("rate_limited", "ok"))
    script.end_turn()
    harness.publish(script.events)
    registry = harness.registry
    assert value(registry, n.OVERFLOWS.name, recovered="true") == 1
    assert value(registry, n.OVERFLOWS.name, recovered="false") == 0
    assert value(registry, n.PROVIDER_CALLS.name, outcome="rate_limited") == 1
    assert value(registry, n.PROVIDER_CALLS.name, outcome="ok") == 1


def test_close_counts_the_overflows_still_pending_once(harness: Harness) -> None:
    script = Script()
    script.turn()
    script.overflow(script.call(7900, outcome="overflow"))
    harness.publish(e for e in script.events if not isinstance(e, RecoveryAttempted))
    assert value(harness.registry, n.OVERFLOWS.name) == 0
    harness.prom.close()
    harness.prom.close()
    assert value(harness.registry, n.OVERFLOWS.name, recovered="false") == 1
    assert value(harness.registry, n.OVERFLOWS.name) == 1


def test_gen_ai_metrics_use_the_conventions_buckets(harness: Harness) -> None:
    registry = _fed(harness)
    usage = {float(s["le"]) for s in label_sets(registry, f"{n.GEN_AI_TOKEN_USAGE.name}_bucket")}
    duration = {float(s["le"]) for s in label_sets(registry, f"{n.GEN_AI_DURATION.name}_bucket")}
    assert usage == {4.0**k for k in range(14)} | {float("inf")}  # 1, 4, 16 ... 4**13
    assert duration == {0.01 * 2**k for k in range(14)} | {float("inf")}  # 0.01 ... 81.92
    tokens = f"{n.GEN_AI_TOKEN_USAGE.name}_sum"
    assert value(registry, tokens, gen_ai_token_type="input") == 6400 + 5000
    assert value(registry, tokens, gen_ai_token_type="output") == 100
    errors = f"{n.GEN_AI_DURATION.name}_count"
    assert value(registry, errors, error_type=OVERFLOW_CODE) == 2
    assert value(registry, errors, error_type="") == 2
    assert value(registry, errors, gen_ai_operation_name="chat", gen_ai_provider_name="openai") == 4
    # the route alias in a label of our own, not in the conventions' one
    assert value(registry, errors, trimscope_provider=PROVIDER) == 4
    assert value(registry, errors, gen_ai_provider_name=PROVIDER) == 0


def test_estimate_accuracy_is_reported_over_estimated(harness: Harness) -> None:
    registry = _fed(harness)
    name = n.ESTIMATE_ACCURACY.name
    assert value(registry, f"{name}_count") == 2  # the two successful calls reported usage
    assert value(registry, f"{name}_sum") == pytest.approx(6400 / 5200 + 1.0)


def test_tools_are_counted(harness: Harness) -> None:
    registry = _fed(harness)
    assert value(registry, n.TOOL_CALLS.name, tool="read_file", outcome="ok") == 1
    assert value(registry, n.TOOL_RESULTS_TRUNCATED.name, tool="read_file") == 1


def test_exemplars_carry_the_trace_id_in_openmetrics_output(harness: Harness) -> None:
    registry = _fed(harness)
    trace_ids = {trace.format_trace_id(span.context.trace_id) for span in harness.spans}
    families = {f.name: f for f in openmetrics_families(openmetrics_latest(registry).decode())}
    for family in ("trimscope_history_trims", n.DROPPED_TURNS.name, n.UTILIZATION.name):
        exemplars = [s.exemplar for s in families[family].samples if s.exemplar is not None]
        assert exemplars, family
        assert all(e.labels[n.EXEMPLAR_TRACE_ID] in trace_ids for e in exemplars)


def test_the_seeding_trim_exemplar_points_at_its_own_trim_span(harness: Harness) -> None:
    script = Script()
    script.trim(TrimTrigger.PROACTIVE)
    harness.publish(script.events)
    (span,) = harness.spans_named(n.SPAN_TRIM)
    text = openmetrics_latest(harness.registry).decode()
    assert f'trace_id="{trace.format_trace_id(span.context.trace_id)}"' in text


def test_no_exemplars_in_multiprocess_mode() -> None:
    registry = CollectorRegistry()
    observer = PrometheusObserver(
        registry, exemplars=lambda session: {"trace_id": "ab" * 16}, multiprocess=True
    )
    for event in scripted_session():
        observer.on_event(event)
    assert "trace_id" not in openmetrics_latest(registry).decode()


def test_a_missing_model_is_labelled_unknown() -> None:
    registry = CollectorRegistry()
    observer = PrometheusObserver(registry)
    script = Script(model="")
    full_turn(script)
    for event in script.events:
        observer.on_event(event)
    assert {s["model"] for s in label_sets(registry, n.BUDGET_TOKENS.name)} == {n.UNKNOWN}


def test_every_metric_family_of_names_is_registered() -> None:
    registry = CollectorRegistry()
    PrometheusObserver(registry)
    registered = {family.name for family in registry.collect()}
    expected = {spec.name.removesuffix("_total") for spec in n.METRICS}
    assert registered == expected


def test_serve_metrics_binds_loopback_and_negotiates_openmetrics(harness: Harness) -> None:
    registry = _fed(harness)
    server = serve_metrics(registry, 0)
    try:
        assert server.server.server_address[0] == "127.0.0.1"
        request = urllib.request.Request(
            server.url, headers={"Accept": "application/openmetrics-text; version=1.0.0"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            body = response.read().decode()
            assert response.headers["Content-Type"].startswith("application/openmetrics-text")
        assert "trimscope_history_trims_total" in body
        assert "# {trace_id=" in body
    finally:
        server.close()


def test_write_metrics_writes_a_parseable_textfile(harness: Harness, tmp_path: Path) -> None:
    registry = _fed(harness)
    path = tmp_path / "out" / "metrics.prom"
    write_metrics(registry, path)
    with path.open() as stream:
        names = {family.name for family in text_fd_to_metric_families(stream)}
    assert "trimscope_history_trims" in names
    assert not list(path.parent.glob("*.prom.*"))  # the temporary file was renamed away


def test_events_without_a_turn_are_counted_too(harness: Harness) -> None:
    script = Script()
    trim = script.trim(TrimTrigger.PROACTIVE)
    assert isinstance(trim, HistoryTrimmed)
    assert trim.turn_id is None
    harness.publish(script.events)
    assert value(harness.registry, n.TRIMS.name) == 1


def _exemplar_trace_ids(registry: CollectorRegistry, family: str) -> dict[str, str]:
    """Sample (name and labels) → its exemplar's trace id, from OpenMetrics output."""
    families = {f.name: f for f in openmetrics_families(openmetrics_latest(registry).decode())}
    return {
        f"{s.name}{sorted(s.labels.items())}": s.exemplar.labels[n.EXEMPLAR_TRACE_ID]
        for s in families[family].samples
        if s.exemplar is not None
    }


def _agent_trace_ids(harness: Harness) -> dict[str, str]:
    return {
        str((span.attributes or {})[n.GEN_AI_CONVERSATION_ID]): trace.format_trace_id(
            span.context.trace_id
        )
        for span in harness.spans
        if span.name.startswith("invoke_agent")
    }


def test_exemplars_follow_interleaved_sessions(harness: Harness) -> None:
    """One series updated by the turns of two sessions in turn: its exemplar is always the
    trace of the event that updated it last (the exemplar labels are reused while the trace
    id stays the same, never after it changed)."""
    scripts = {"a": Script(session_id="a"), "b": Script(session_id="b")}
    for script in scripts.values():
        script.turn()
        harness.publish(script.events)
    seen = []
    for session in ("a", "b", "a", "a", "b"):
        script = scripts[session]
        script.budget()
        harness.publish(script.events[-1:])
        (got,) = _exemplar_trace_ids(harness.registry, "trimscope_budget_decisions").values()
        seen.append((session, got))
    for script in scripts.values():
        script.end_turn()
        harness.publish(script.events[-1:])
    agents = _agent_trace_ids(harness)
    assert agents["a"] != agents["b"]
    assert seen == [(session, agents[session]) for session, _ in seen]


def test_exemplars_are_asked_once_per_event_that_records_something() -> None:
    asked: list[str] = []

    def exemplars(session_id: str) -> dict[str, str]:
        asked.append(session_id)
        return {"trace_id": "ab" * 16}

    observer = PrometheusObserver(CollectorRegistry(), exemplars=exemplars)
    events = scripted_session()
    for event in events:
        observer.on_event(event)
    silent = (TurnStarted, ToolCallStarted, ProviderCallStarted)  # they update no metric
    assert asked == [e.session_id for e in events if not isinstance(e, silent)]
    assert 'trace_id="' + "ab" * 16 in openmetrics_latest(observer.metrics.registry).decode()


def test_a_turn_starting_over_pending_overflows_settles_them_with_its_trace(
    harness: Harness,
) -> None:
    """No ``TurnFinished`` (and no recovery): the next turn's ``TurnStarted`` settles the
    overflow, not recovered, and the exemplar is that turn's trace."""
    script = Script()
    script.turn()
    script.overflow(script.call(7900, outcome="overflow"))
    script.turn()
    script.end_turn()
    harness.publish(e for e in script.events if not isinstance(e, RecoveryAttempted))
    assert value(harness.registry, n.OVERFLOWS.name, recovered="false") == 1
    (got,) = _exemplar_trace_ids(harness.registry, "trimscope_provider_overflows").values()
    first, second = sorted(
        (s for s in harness.spans if s.name.startswith("invoke_agent")),
        key=lambda span: span.start_time or 0,
    )
    assert got == trace.format_trace_id(second.context.trace_id)
    assert got != trace.format_trace_id(first.context.trace_id)


def test_series_appear_only_once_updated() -> None:
    """Children are made on first use: a route whose calls all failed has no token usage
    series, and checks that fit make no refusal series."""
    registry = CollectorRegistry()
    observer = PrometheusObserver(registry)
    script = Script()
    script.turn()
    script.call(7900, outcome="overflow")
    script.end_turn("error", "ContextWindowExceeded")
    for event in script.events:
        observer.on_event(event)
    assert label_sets(registry, f"{n.GEN_AI_TOKEN_USAGE.name}_count") == []
    assert label_sets(registry, f"{n.ESTIMATE_ACCURACY.name}_count") == []
    assert label_sets(registry, n.CAPACITY_REFUSALS.name) == []
    assert len(label_sets(registry, f"{n.GEN_AI_DURATION.name}_count")) == 1


class _OnlySession(Sampler):
    """Records the turns (root agent spans) of one session; children follow their parent."""

    def __init__(self, session: str) -> None:
        self._session = session

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        recorded = self._records(attributes)
        decision = Decision.RECORD_AND_SAMPLE if recorded else Decision.DROP
        return SamplingResult(decision, attributes if recorded else None)

    def _records(self, attributes: Attributes) -> bool:
        return (attributes or {}).get(n.GEN_AI_CONVERSATION_ID) == self._session

    def get_description(self) -> str:
        return f"only {self._session}"


def test_exemplars_link_only_to_traces_the_sampler_recorded() -> None:
    """A turn the sampler dropped has no trace to link to: its metric updates carry no
    exemplar (never the trace of an earlier, recorded turn), and a dropped span keeps
    nothing, so nothing of it is exported."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ParentBased(_OnlySession("a")))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    registry = CollectorRegistry()
    otel = OtelObserver(provider, clock_to_ns=event_clock_ns)
    prom = PrometheusObserver(registry, exemplars=otel.exemplar_of)
    scripts = {"a": Script(session_id="a"), "b": Script(session_id="b")}
    for session in ("a", "b", "b", "a", "b"):
        script = scripts[session]
        script.turn()
        script.budget()
        script.call(estimate=100)
        script.end_turn()
    for script in scripts.values():
        for event in script.events:
            otel.on_event(event)
            prom.on_event(event)
            if event.session_id == "b":
                assert otel.trace_id_of(event) is None
    exported = {
        trace.format_trace_id(span.context.trace_id) for span in exporter.get_finished_spans()
    }
    conversations = {
        (span.attributes or {}).get(n.GEN_AI_CONVERSATION_ID)
        for span in exporter.get_finished_spans()
    }
    assert conversations == {"a"}
    linked = set()
    for family in ("trimscope_budget_decisions", "trimscope_provider_calls"):
        linked |= set(_exemplar_trace_ids(registry, family).values())
    assert linked
    assert linked <= exported
    provider.shutdown()


def test_cache_loss_is_counted_in_tokens_by_trigger_turn_limit_trims_unmeasured(
    harness: Harness,
) -> None:
    registry = _fed(harness)
    loss = n.CACHE_LOSS.name
    for trigger in ("proactive", "reported_usage", "reactive"):
        assert value(registry, loss, trigger=trigger) == CACHE_LOSS
    assert {s[n.LABEL_TRIGGER] for s in label_sets(registry, loss)} == {
        "proactive",
        "reported_usage",
        "reactive",
    }


def test_reported_input_is_split_into_cache_reads_writes_and_the_rest() -> None:
    registry = CollectorRegistry()
    observer = PrometheusObserver(registry)
    script = Script()
    script.turn()
    script.call(5000, input_tokens=5200)
    for event in script.events:
        observer.on_event(
            dataclasses.replace(event, cache_creation_input_tokens=300)
            if isinstance(event, ProviderCallFinished)
            else event
        )
    split = n.INPUT_TOKENS.name
    assert value(registry, split, cache=n.CACHE_READ) == CACHE_READ
    assert value(registry, split, cache=n.CACHE_WRITE) == 300
    assert value(registry, split, cache=n.CACHE_UNCACHED) == 5200 - CACHE_READ - 300


_COUNTS = st.none() | st.integers(0, 5000)


@st.composite
def _finishes(draw: st.DrawFn) -> list[ProviderCallFinished]:
    """Call finishes on two routes (one without a model), any outcome, each token count
    present or not, in any order."""
    drawn = st.tuples(
        st.sampled_from([("p1", "m1"), ("p2", None)]),
        st.sampled_from(list(CallOutcome)),
        st.sampled_from([None, "ContextWindowExceeded"]),
        _COUNTS,
        _COUNTS,
        _COUNTS,
        _COUNTS,
    )
    return [
        ProviderCallFinished(
            session_id="s",
            turn_id="t",
            at=float(i),
            call_id=f"c{i}",
            provider=provider,
            provider_kind="openai",
            model=model,
            outcome=outcome,
            duration_s=0.5,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_read_input_tokens=read,
            cache_creation_input_tokens=write,
            error_type=error,
        )
        for i, ((provider, model), outcome, error, input_tokens, output_tokens, read, write) in (
            enumerate(draw(st.lists(drawn, max_size=12)))
        )
    ]


_BUDGETS = st.builds(
    BudgetResolved,
    session_id=st.just("s"),
    turn_id=st.just("t"),
    at=st.just(0.0),
    provider=st.sampled_from(["p1", "p2"]),
    model=st.sampled_from(["m1", None]),
    model_context_window=st.integers(1, 10_000),
    window_source=st.sampled_from(list(WindowSource)),
    configured_model_context_window=st.none(),
    budget_tokens=st.integers(1, 10_000),
    rule=st.sampled_from(list(BudgetRule)),
)


@settings(max_examples=80, deadline=None)
@given(_finishes(), st.lists(_BUDGETS, max_size=8), st.randoms(use_true_random=False))
def test_the_updates_kept_per_route_record_what_fresh_ones_would(
    finishes: list[ProviderCallFinished], budgets: list[BudgetResolved], order: random.Random
) -> None:
    # a call's finish keeps its bound updates per route, outcome and which counts it
    # reports, a budget per route, rule and source: forgetting them after every event (each
    # event builds its own) changes nothing
    events: list[Event] = [*finishes, *budgets]
    order.shuffle(events)
    kept, fresh = PrometheusObserver(CollectorRegistry()), PrometheusObserver(CollectorRegistry())
    for event in events:
        kept.on_event(event)
        fresh.on_event(event)
        fresh._finishes.clear()
        fresh._decisions._budgets.clear()
    assert _text(kept) == _text(fresh)


def _text(observer: PrometheusObserver) -> list[str]:
    text = openmetrics_latest(observer.metrics.registry).decode()
    return [line for line in text.splitlines() if "_created" not in line]


class _OddTurns(_OnlySession):
    """Records the first, third, ... turn of every session (children follow their parent)."""

    def _records(self, attributes: Attributes) -> bool:
        turn = str((attributes or {}).get(n.ATTR_TURN_ID, "-t0"))
        return int(turn.rsplit("-t", 1)[1]) % 2 == 1


@pytest.mark.parametrize(("sessions", "max_sessions"), [("a", 10), ("abc", 2)])
def test_the_exemplar_of_a_session_is_its_latest_recorded_trace_or_none(
    sessions: str, max_sessions: int
) -> None:
    """``exemplar_of`` (what the metrics observer reads) agrees with ``trace_id_of`` after
    every event: a recorded turn's trace, then none for a dropped turn (never the older
    one), and none once the session is forgotten (``max_sessions``)."""
    provider = TracerProvider(sampler=ParentBased(_OddTurns("")))
    otel = OtelObserver(provider, clock_to_ns=event_clock_ns, max_sessions=max_sessions)
    scripts = [Script(session_id=session) for session in sessions]
    for _ in range(3):
        for script in scripts:
            script.turn()
            script.call(estimate=100)
            script.end_turn()
    seen = set()
    for event in sorted((e for s in scripts for e in s.events), key=lambda e: e.at):
        otel.on_event(event)
        expected = otel.trace_id_of(event)
        assert otel.exemplar_of(event.session_id) == (
            {n.EXEMPLAR_TRACE_ID: expected} if expected else None
        )
        seen.add(expected is None)
    assert seen == {True, False}  # both recorded and dropped turns were seen
