"""The collector's settings during a load run (``harness.load.collector``)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from fakes.pytest_plugin import FakeServerFactory
from harness.events import Event
from harness.load import LoadPlan, RunOptions, build_load_fake, default_template, run_sessions
from harness.load.collector import RUN_GC_THRESHOLD, run_collector


@pytest.fixture
def default_collector() -> Iterator[tuple[int, int, int]]:
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*saved)


def test_a_run_raises_the_first_threshold_freezes_and_restores_both(
    default_collector: tuple[int, int, int],
) -> None:
    held = [object() for _ in range(10)]
    assert gc.get_freeze_count() == 0
    with run_collector():
        assert gc.get_threshold() == (RUN_GC_THRESHOLD, *default_collector[1:])
        assert gc.get_freeze_count() >= len(held)  # what existed before is not walked
    assert gc.get_threshold() == default_collector
    assert gc.get_freeze_count() == 0


def test_nested_and_concurrent_runs_restore_only_when_the_outermost_ends(
    default_collector: tuple[int, int, int],
) -> None:
    async def run(delay: float) -> tuple[int, int, int]:
        with run_collector():
            await asyncio.sleep(delay)
            return gc.get_threshold()

    async def both() -> list[tuple[int, int, int]]:
        return list(await asyncio.gather(run(0.0), run(0.01)))

    with run_collector():
        assert asyncio.run(both()) == [(RUN_GC_THRESHOLD, 10, 10)] * 2
        assert gc.get_threshold() == (RUN_GC_THRESHOLD, 10, 10)  # the outer run still runs
    assert gc.get_threshold() == default_collector


def test_settings_are_restored_when_the_run_raises(
    default_collector: tuple[int, int, int],
) -> None:
    with pytest.raises(RuntimeError), run_collector():
        raise RuntimeError("a session failed")
    assert gc.get_threshold() == default_collector
    assert gc.get_freeze_count() == 0


@pytest.mark.integration
def test_a_load_run_runs_its_sessions_under_the_run_settings(
    fake_server: FakeServerFactory, default_collector: tuple[int, int, int]
) -> None:
    seen: set[tuple[int, int, int]] = set()

    class Thresholds:
        def on_event(self, event: Event) -> None:
            seen.add(gc.get_threshold())

    template = default_template(context_window=100_000)
    running = fake_server.serve(build_load_fake(template.providers[0], counting=False))
    plan = LoadPlan(template, 2, 2, 2, 60.0, {template.providers[0].ref: running.base_url})
    asyncio.run(run_sessions(plan, RunOptions(observers=(Thresholds(),))))
    assert seen == {(RUN_GC_THRESHOLD, *default_collector[1:])}
    assert gc.get_threshold() == default_collector
