"""A scenario's ``fake.fault_rates``: it reaches the fake; rates summing past 1 and a hang
past the ``fault_seconds`` limit are refused at their key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes import FaultRates
from harness.scenarios.environment import build_fake
from harness.scenarios.limits import Limits
from harness.scenarios.loader import ScenarioError, load_scenario
from tests.scenarios.support import TINY, write

AT = '      default: {text: "ok"}\n'


def _with(rates: str) -> str:
    assert AT in TINY
    return TINY.replace(AT, f"{AT}      fault_rates: {{{rates}}}\n")


def test_the_rates_reach_the_fake(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", _with("rate_limit: 0.2, server_error: 0.1, seed: 3"))
    loaded = load_scenario(path)
    fake = build_fake(loaded.scenario.providers["openai.main"])
    assert fake.script.faults == FaultRates(rate_limit=0.2, server_error=0.1, seed=3)


@pytest.mark.parametrize(
    ("rates", "problem"),
    [
        ("hang: 0.6, rate_limit: 0.5", "fault_rates: expected rates that sum to at most 1"),
        ("hang: 1.5", "fault_rates.hang: "),
        ("hang: 0.1, hang_seconds: 31", "fault_rates.hang_seconds: expected at most 30 seconds"),
        ("status: 404", "fault_rates.status: "),
        ("flood: 0.1", "fault_rates.flood"),
    ],
)
def test_bad_rates_are_refused_at_their_key(tmp_path: Path, rates: str, problem: str) -> None:
    path = write(tmp_path, "s.yaml", _with(rates))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path, limits=Limits(fault_seconds=30))
    assert any(
        f"{path}:10: providers.openai.main.fake.{problem}" in p for p in caught.value.problems
    ), caught.value.problems
