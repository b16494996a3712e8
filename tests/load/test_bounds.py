"""A load run is bounded in count and in time, and stops by itself."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest

from fakes import FakeScript, fail
from fakes.pytest_plugin import FakeServerFactory
from harness.load import LoadPlan, RunOptions, build_load_fake, default_template, run_sessions
from harness.load import runner as load_runner


@pytest.mark.integration
def test_duration_stops_a_run_that_count_would_not(fake_server: FakeServerFactory) -> None:
    template = default_template(context_window=100_000, latency_ms=50)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(template, 10_000, 4, 5, 1.0, {template.providers[0].ref: running.base_url})
    began = time.monotonic()
    summary = asyncio.run(run_sessions(plan))
    took = time.monotonic() - began
    assert took < 1.0 + 2.0  # the cap, plus at most one turn in flight per worker
    assert summary.stopped_by == "duration"
    assert summary.sessions_started < 10_000
    assert summary.sessions_completed + summary.sessions_interrupted == summary.sessions_started
    assert summary.sessions_interrupted >= 1  # sessions running at the deadline stop early


@pytest.mark.integration
def test_turns_that_hang_past_the_deadline_are_cancelled(
    fake_server: FakeServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load_runner, "STOP_GRACE_S", 0.5)
    template = default_template(context_window=100_000)
    hanging = dataclasses.replace(
        template.providers[0], script=FakeScript(steps=(fail("hang", seconds=30),)), cycle=True
    )
    template = dataclasses.replace(template, providers=(hanging,))
    running = fake_server.serve(build_load_fake(hanging, counting=False))
    plan = LoadPlan(template, 5, 2, 3, 1.0, {hanging.ref: running.base_url})
    began = time.monotonic()
    summary = asyncio.run(run_sessions(plan))
    # Cancelled at the deadline, not after the 30 s hang (a margin a loaded machine keeps).
    assert time.monotonic() - began < 15
    assert summary.stopped_by == "duration"
    assert summary.sessions_completed == 0
    assert summary.sessions_interrupted == summary.sessions_started == 2


@pytest.mark.integration
def test_count_stops_a_run_well_inside_its_duration(fake_server: FakeServerFactory) -> None:
    template = default_template(context_window=100_000)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(template, 6, 3, 2, 60.0, {template.providers[0].ref: running.base_url})
    summary = asyncio.run(run_sessions(plan))
    assert summary.stopped_by == "count"
    assert summary.sessions_completed == summary.sessions_started == 6
    assert summary.elapsed_s < 30


def test_a_plan_refuses_unbounded_or_empty_runs() -> None:
    template = default_template()
    for sessions, concurrency, turns, duration in [(0, 1, 1, 1.0), (1, 0, 1, 1.0), (1, 1, 0, 1.0)]:
        with pytest.raises(ValueError, match="at least 1"):
            LoadPlan(template, sessions, concurrency, turns, duration)
    with pytest.raises(ValueError, match="duration"):
        LoadPlan(template, 1, 1, 1, 0.0)


@pytest.mark.integration
def test_the_sessions_stopwatch_reads_the_clock_the_options_give(
    fake_server: FakeServerFactory,
) -> None:
    """``bench load`` times the agent's stretches by the thread's CPU clock; a clock that
    never moves must give zero overhead for every call (the default clock never does)."""
    template = default_template(context_window=100_000)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(template, 2, 2, 2, 30.0, {template.providers[0].ref: running.base_url})
    frozen = asyncio.run(run_sessions(plan, RunOptions(overhead_clock=lambda: 0.0)))
    assert frozen.provider_calls > 0
    assert frozen.overhead.samples == frozen.provider_calls
    assert (frozen.overhead.p95_ms, frozen.overhead.mean_ms) == (0.0, 0.0)
    moving = asyncio.run(run_sessions(plan, RunOptions(session_prefix="again-")))
    assert (moving.overhead.mean_ms or 0.0) > 0.0
