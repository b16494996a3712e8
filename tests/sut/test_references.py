"""``harness.sut.inprocess.References``: the in-process reference's requests, computed in
a forked process, equal those computed in the run's own loop; a scenario whose reference
fails gets that failure alone; ``stop`` leaves no process behind."""

from __future__ import annotations

import asyncio
import multiprocessing

import pytest

from fakes.rows import Row
from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import LoadedScenario, load_all
from harness.scenarios.schema import Scenario
from harness.sut import inprocess
from harness.sut.inprocess import References, reference_requests

SCENARIOS = (
    "tools-gemini-parallel-calls-dropped-whole",
    "recovery-openai-failed-turn-then-good-turns",
    "legacy-count-trim-logs-only",  # not portable: no reference for it
)


def loaded_scenarios() -> list[LoadedScenario]:
    """``SCENARIOS`` in their order."""
    found = [i for i in load_all([scenario_library()]) if i.scenario.id in SCENARIOS]
    return sorted(found, key=lambda i: SCENARIOS.index(i.scenario.id))


async def expected_of(loaded: list[LoadedScenario]) -> list[list[tuple[Row, ...]] | str]:
    references = References()
    references.start(loaded)
    try:
        results: list[list[tuple[Row, ...]] | str] = []
        for item in loaded[:2]:
            try:
                results.append(await asyncio.wait_for(references.expected(item), 60))
            except RuntimeError as error:
                results.append(str(error))
        return results
    finally:
        await references.stop()


@pytest.mark.integration
@pytest.mark.parametrize("methods", [["fork", "spawn"], ["spawn"]], ids=["forked", "in-loop"])
def test_the_references_are_the_reference_agents_requests(
    methods: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: methods)
    loaded = loaded_scenarios()
    assert len(loaded) == 3
    direct = [asyncio.run(reference_requests(item.scenario)) for item in loaded[:2]]
    assert all(direct)
    assert asyncio.run(expected_of(loaded)) == direct


@pytest.mark.integration
def test_a_failing_reference_fails_its_scenario_only(monkeypatch: pytest.MonkeyPatch) -> None:
    real = inprocess.reference_requests

    async def failing_on_recovery(scenario: Scenario) -> list[tuple[Row, ...]]:
        if scenario.id.startswith("recovery-"):
            raise ValueError("broken on purpose")
        return await real(scenario)

    monkeypatch.setattr(inprocess, "reference_requests", failing_on_recovery)  # forked with it
    loaded = loaded_scenarios()
    first, second = asyncio.run(expected_of(loaded))
    assert isinstance(first, list)
    assert first
    assert second == "ValueError: broken on purpose"


@pytest.mark.integration
def test_stop_ends_the_reference_process_and_cancels_what_is_left() -> None:
    loaded = loaded_scenarios()

    async def started_then_stopped() -> tuple[bool, bool, bool]:
        references = References()
        references.start(loaded * 20)  # more than it computes before the stop
        forked = references._forked
        assert forked is not None
        alive_before = forked._process.is_alive()
        await references.stop()
        left = references.expected(loaded[0])
        return alive_before, forked._process.is_alive(), left.cancelled() or left.done()

    assert asyncio.run(started_then_stopped()) == (True, False, True)
