"""``SutSuite(observers=...)``: each judged session is handed to the injected observers,
with the requests the runtime sent; a suite without references counts no comparison."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.interrupt import StopRequest
from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import load_all
from harness.sut import JudgedSession, SutSuite, run_sut_suite

TRIMSCOPE = Path(sys.executable).with_name("trimscope")
SCENARIOS = (
    "tools-gemini-parallel-calls-dropped-whole",
    "recovery-openai-failed-turn-then-good-turns",
    "legacy-count-trim-logs-only",  # not portable: skipped, never observed
)


@pytest.mark.integration
def test_each_judged_session_is_observed_once_with_the_requests_sent() -> None:
    loaded = [i for i in load_all([scenario_library()]) if i.scenario.id in SCENARIOS]
    seen: list[JudgedSession] = []
    suite = SutSuite([str(TRIMSCOPE), "sut", "reference"], observers=[seen.append])
    outcomes = run_sut_suite(suite, loaded, lambda _: None, StopRequest())
    judged = [o for o in outcomes if o.verdict != "SKIP"]
    assert [s.outcome for s in seen] == judged
    assert len(judged) == 2
    for session in seen:
        assert session.opening.session == session.item.scenario.id
        assert len(session.exchanges) == session.outcome.requests > 0
        assert session.outcome.identical == session.outcome.requests  # the reference ran
        assert session.exchanges[0].rows[0].role == "system"


@pytest.mark.integration
def test_without_references_nothing_is_compared_and_the_verdicts_stand() -> None:
    loaded = [i for i in load_all([scenario_library()]) if i.scenario.id == SCENARIOS[0]]
    suite = SutSuite([str(TRIMSCOPE), "sut", "reference"], references=None)
    (outcome,) = run_sut_suite(suite, loaded, lambda _: None, StopRequest())
    assert (outcome.verdict, outcome.identical, outcome.reference_requests) == ("PASS", 0, 0)
    assert outcome.requests > 0
