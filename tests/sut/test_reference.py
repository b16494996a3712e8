"""The protocol's self-check: ``trimscope sut reference``, a real child process talking
to real fake servers, passes every invariant on every portable scenario of the library,
and each of its requests equals the in-process reference's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.interrupt import StopRequest
from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import load_all
from harness.sut.portable import not_portable
from harness.sut.suite import SutSuite, run_sut_suite

TRIMSCOPE = Path(sys.executable).with_name("trimscope")


@pytest.mark.integration
def test_the_reference_runtime_passes_every_portable_scenario_with_the_same_requests() -> None:
    portable = [i for i in load_all([scenario_library()]) if not_portable(i.scenario) is None]
    assert len(portable) >= 20  # the library keeps a real share of portable scenarios
    suite = SutSuite([str(TRIMSCOPE), "sut", "reference"])
    outcomes = run_sut_suite(suite, portable, lambda _: None, StopRequest())
    assert suite.hello is not None
    assert suite.hello.name == "trimscope-reference"
    verdicts = {o.scenario_id: (o.verdict, o.violations, o.detail) for o in outcomes}
    assert verdicts == {i.scenario.id: ("PASS", (), "") for i in portable}
    for outcome in outcomes:
        assert outcome.requests > 0, outcome.scenario_id
        same = (outcome.identical, outcome.reference_requests)
        assert same == (outcome.requests, outcome.requests), outcome.scenario_id
