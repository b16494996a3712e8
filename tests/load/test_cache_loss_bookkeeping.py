"""A load run's sessions keep the cache-loss bookkeeping ``RunOptions.cache_loss`` makes
(``bench load``'s caching-off run gives ``NoCacheLossBookkeeping``): the same trims,
none carrying a cache loss, where the default measures some."""

from __future__ import annotations

import asyncio

import pytest

from fakes.pytest_plugin import FakeServerFactory
from harness.agent import MEASURE_CACHE_LOSS, BookkeepingFactory, NoCacheLossBookkeeping
from harness.events import Event, HistoryTrimmed, TrimTrigger
from harness.load import LoadPlan, RunOptions, build_load_fake, default_template, run_sessions


class _Trims:
    def __init__(self) -> None:
        self.seen: list[HistoryTrimmed] = []

    def on_event(self, event: Event) -> None:
        if isinstance(event, HistoryTrimmed):
            self.seen.append(event)


def _trims(
    base_url: str, ref: str, cache_loss: BookkeepingFactory, prefix: str
) -> list[HistoryTrimmed]:
    """The run's trims; ``prefix``: fresh session ids, so the fake's scripts start over."""
    template = default_template(context_window=2000, turn_limit=2)
    plan = LoadPlan(template, 2, 1, 3, 30.0, {ref: base_url})  # one worker: a stable order
    trims = _Trims()
    options = RunOptions(observers=(trims,), session_prefix=prefix, cache_loss=cache_loss)
    asyncio.run(run_sessions(plan, options))
    return trims.seen


@pytest.mark.integration
def test_a_run_without_cache_loss_bookkeeping_trims_alike_and_measures_no_loss(
    fake_server: FakeServerFactory,
) -> None:
    provider = default_template(context_window=2000).providers[0]
    running = fake_server.serve(build_load_fake(provider, counting=False))
    measured = _trims(running.base_url, provider.ref, MEASURE_CACHE_LOSS, "measured-")
    unmeasured = _trims(running.base_url, provider.ref, NoCacheLossBookkeeping, "not-")
    budget = [t for t in measured if t.trigger is not TrimTrigger.TURN_LIMIT]
    assert any(t.cache_loss_tokens for t in budget), "the window is small enough to trim"
    assert [(t.session_id.removeprefix("not-"), t.trigger) for t in unmeasured] == [
        (t.session_id.removeprefix("measured-"), t.trigger) for t in measured
    ]
    assert {t.cache_loss_tokens for t in unmeasured} == {None}
