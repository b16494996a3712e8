"""A stop requested before or while a load run starts: it unwinds in order, in process."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from fakes.pytest_plugin import FakeServerFactory
from harness.interrupt import Interrupted, StopRequest
from harness.load import (
    LoadPlan,
    LoadSummary,
    RunOptions,
    build_load_fake,
    default_template,
    nothing_ran,
    run_load,
    run_sessions,
)
from tests.interrupting import survivors


def test_a_stop_while_the_fake_server_starts_stops_it_and_removes_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    stop = StopRequest()
    stop.request(signal.SIGTERM)  # as if the user had pressed it during the start
    plan = LoadPlan(default_template(), 10, 2, 1, 30.0)
    with pytest.raises(Interrupted):
        run_load(plan, RunOptions(stop=stop))
    assert list(tmp_path.iterdir()) == []
    assert survivors(tmp_path) == []


@pytest.mark.integration
def test_a_stop_during_the_sessions_cancels_them_and_marks_nothing_else(
    fake_server: FakeServerFactory,
) -> None:
    template = default_template(context_window=100_000, latency_ms=20)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(template, 100_000, 4, 5, 60.0, {template.providers[0].ref: running.base_url})
    stop = StopRequest()

    async def main() -> LoadSummary:
        asyncio.get_running_loop().call_later(1.0, stop.request, signal.SIGINT)
        return await run_sessions(plan, RunOptions(stop=stop))

    summary = asyncio.run(main())
    assert summary.sessions_completed > 0
    assert summary.sessions_interrupted == 4  # the one in flight on each worker
    assert summary.elapsed_s < 60


def test_an_empty_summary_says_who_stopped_the_run() -> None:
    summary = nothing_ran(LoadPlan(default_template(), 10, 2, 1, 30.0), ["a note"], "SIGINT")
    assert (summary.interrupted, summary.interrupted_by, summary.stopped_by) == (
        True,
        "SIGINT",
        "signal",
    )
    assert summary.sessions_started == summary.provider_calls == 0
    assert summary.notes == ["a note"]
