"""A load run's summary says what its events and the fake's request log say.

Tiny runs (4 sessions × 3 turns) against a real loopback fake (``fake_server``: uvicorn on
127.0.0.1 in a thread, so the test can read the fake's full request log) on windows small
enough that trims, overflow recovery, capacity refusals and turn-limit trims all happen.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from prometheus_client import CollectorRegistry

from fakes.pytest_plugin import FakeServerFactory
from harness.agent.dispatch import ToolMode, rendered_rows, to_provider_messages
from harness.events import (
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    RecoveryAttempted,
    TurnFinished,
)
from harness.load import (
    LoadMetrics,
    LoadPlan,
    RunOptions,
    build_load_fake,
    default_template,
    run_sessions,
)
from harness.load import metrics as m
from harness.load.template import SESSION_HEADER
from harness.providers.clients.canonical import decoded_row
from harness.runtime import ToolResultMessage, ToolResults
from harness.telemetry import PrometheusObserver
from harness.telemetry import names as n
from harness.telemetry.names import trim_reason_label

SESSIONS, TURNS = 4, 3


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)


def _of(events: list[Event], kind: type[Event]) -> list[Event]:
    return [e for e in events if isinstance(e, kind)]


@pytest.mark.integration
@pytest.mark.parametrize("window", [2000, 1500])
def test_summary_counts_equal_the_events_and_the_fake_log(
    fake_server: FakeServerFactory, window: int
) -> None:
    template = default_template(context_window=window, turn_limit=2)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(
        template, SESSIONS, 2, TURNS, 30.0, base_urls={template.providers[0].ref: running.base_url}
    )
    recorder = Recorder()
    summary = asyncio.run(run_sessions(plan, RunOptions(observers=(recorder,))))
    events = recorder.events

    trims = Counter(
        (trim_reason_label(e.reason), str(e.trigger))
        for e in events
        if isinstance(e, HistoryTrimmed)
    )
    assert trims, "the window is small enough that trims happen"
    assert {(r.reason, r.trigger): r.count for r in summary.trims} == dict(trims)
    for row in summary.trims:
        assert row.per_session == pytest.approx(row.count / SESSIONS)
    assert summary.trims_total == sum(trims.values())
    assert summary.trims_per_session == pytest.approx(sum(trims.values()) / SESSIONS)

    calls = running.log.calls()
    assert summary.provider_calls == len(calls) == len(_of(events, ProviderCallFinished))
    assert summary.overhead.samples == summary.round_trip.samples == len(calls)
    assert summary.recoveries == dict(
        Counter(e.outcome for e in events if isinstance(e, RecoveryAttempted))
    )
    assert summary.overflows_detected == len(_of(events, OverflowDetected))
    assert summary.capacity_refusals == sum(
        1 for e in events if isinstance(e, CapacityChecked) and not e.fits
    )
    assert sum(summary.turns_by_outcome.values()) == len(_of(events, TurnFinished))
    assert sum(summary.turns_by_outcome.values()) == SESSIONS * TURNS
    assert summary.sessions_completed == summary.sessions_started == SESSIONS
    assert summary.stopped_by == "count"
    assert summary.sessions_per_s == pytest.approx(SESSIONS / summary.elapsed_s, rel=0.01)
    sessions = {e.request_headers[SESSION_HEADER] for e in calls}
    assert sessions == {f"load-{i}" for i in range(SESSIONS)}


@pytest.mark.integration
def test_every_trim_trigger_fires_on_the_small_default_window(
    fake_server: FakeServerFactory,
) -> None:
    template = default_template(context_window=2000, turn_limit=2)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(
        template, SESSIONS, 2, TURNS, 30.0, {template.providers[0].ref: running.base_url}
    )
    summary = asyncio.run(run_sessions(plan))
    triggers = {row.trigger for row in summary.trims}
    assert {"proactive", "reactive", "turn_limit"} <= triggers
    assert summary.recoveries.get("retrying", 0) > 0


@pytest.mark.integration
def test_each_session_gets_its_own_script(fake_server: FakeServerFactory) -> None:
    """Call n of every session is step n of the cycle: tool call, then answer."""
    template = default_template(context_window=100_000)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(template, 3, 3, 2, 30.0, {template.providers[0].ref: running.base_url})
    to_provider_messages([ToolResults((ToolResultMessage("c", "x", "t"),))], ToolMode.NATIVE)
    assert rendered_rows.cache_info().currsize > 0
    summary = asyncio.run(run_sessions(plan))
    assert summary.provider_calls == 3 * 2 * 2  # no trims on a large window: 2 calls a turn
    assert summary.tool_calls == 3 * 2
    assert summary.trims == []
    # Rows cached while the run ran (and before it) are forgotten when it ends.
    assert rendered_rows.cache_info().currsize == 0
    assert decoded_row.cache_info().currsize == 0


@pytest.mark.integration
def test_the_prometheus_metrics_say_what_the_summary_says(fake_server: FakeServerFactory) -> None:
    template = default_template(context_window=2000, turn_limit=2)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(
        template, SESSIONS, 2, TURNS, 30.0, {template.providers[0].ref: running.base_url}
    )
    registry = CollectorRegistry()
    options = RunOptions(observers=(PrometheusObserver(registry),), metrics=LoadMetrics(registry))
    summary = asyncio.run(run_sessions(plan, options))
    trims = m.by_labels(registry, n.TRIMS.name, n.LABEL_REASON, n.LABEL_TRIGGER)
    assert {(r.reason, r.trigger): r.count for r in summary.trims} == {
        key: count for key, count in trims.items() if count
    }
    assert m.total(registry, n.PROVIDER_CALLS.name) == summary.provider_calls
    assert m.total(registry, f"{m.OVERHEAD}_count") == summary.overhead.samples
    assert m.by_labels(registry, m.SESSIONS, n.LABEL_OUTCOME) == {("completed",): SESSIONS}
