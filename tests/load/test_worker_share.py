"""A Locust worker's share of the sessions (``WorkerState.place`` and ``claim``): numbered
across the run, so N workers run the plan's sessions once each, as the asyncio mode does."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.load import LoadPlan, default_template
from harness.load.worker import WorkerState

URLS = {"openai.load": "http://127.0.0.1:9"}  # never called: claims only


def _worker(sessions: int, workers: int | None, index: int) -> WorkerState:
    plan = LoadPlan(default_template(), sessions, 2, 1, 60.0, URLS)
    state = WorkerState(plan.per_process(workers) if workers else plan)
    state.place(index)
    return state


def _claims(state: WorkerState) -> list[int]:
    claimed = []
    while (index := state.claim()) is not None:
        claimed.append(index)
    return claimed


@pytest.fixture(autouse=True)
def _no_multiprocess(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)


@given(st.integers(1, 40), st.integers(1, 8))
def test_workers_run_every_session_of_the_plan_once(sessions: int, workers: int) -> None:
    claimed = [i for k in range(workers) for i in _claims(_worker(sessions, workers, k))]
    assert sorted(claimed) == list(range(sessions))


def test_the_last_workers_share_is_what_is_left() -> None:
    assert _claims(_worker(5, 2, 1)) == [3, 4]  # a share of 3, capped at the plan's 5
    assert _claims(_worker(5, 4, 3)) == []  # shares of 2: nothing left for the fourth
    assert _worker(5, 4, 3).finished()


def test_a_plan_without_a_share_keeps_every_worker_at_the_first_session() -> None:
    # a plan written without a share: every worker runs all of it, as before
    assert _claims(_worker(3, None, 4)) == [0, 1, 2]


def test_a_worker_is_placed_once_and_never_after_it_has_claimed() -> None:
    state = _worker(6, 2, 1)
    state.place(0)  # a second user starting: ignored
    assert state.claim() == 3
    plan = LoadPlan(default_template(), 6, 2, 1, 60.0, URLS).per_process(2)
    unplaced = WorkerState(plan)
    assert unplaced.claim() == 0
    unplaced.place(1)  # too late: its numbering has begun
    assert _claims(unplaced) == [1, 2]
