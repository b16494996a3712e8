"""``trimscope load --scenario FILE --limit NAME=N``: the scenario is read within the loader's
limits as ``trimscope run`` reads it, and what a load session runs stays bounded by
``--turns`` whatever a raised limit lets the file ask for. (``--write-plan`` shows the
plan the options make without starting a server.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.cli.load_options import MAX_TURNS
from harness.load import read_plan
from harness.load.scenario_template import template_from_scenario
from harness.scenarios.limits import DEFAULT_LIMITS
from harness.scenarios.schema import Scenario
from tests.scenarios.support import TINY

# More user turns than the loader allows by default, and than a load session runs (a
# repeat's own ``times`` is at most 5000, so three turns a round).
ROUNDS = 4000
MANY = 3 * ROUNDS
LONG = TINY.replace(
    '  - user: "hello"',
    f"  - repeat:\n      times: {ROUNDS}\n      steps:\n"
    + "".join(f'        - user: "{name} {{i}}"\n' for name in "qrs"),
)
assert DEFAULT_LIMITS.turns < MANY


def _invoke(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", *map(str, args)])
    return result.exit_code, " ".join(result.output.split())


def _long(tmp_path: Path) -> Path:
    path = tmp_path / "long.yaml"
    path.write_text(LONG, encoding="utf-8")
    return path


def test_a_scenario_beyond_a_default_limit_is_refused_naming_the_limit(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    code, output = _invoke("--scenario", _long(tmp_path), "--turns", "2", "--write-plan", plan)
    assert code == 2
    assert "long.yaml:" in output
    assert "--limit turns=N" in output  # the loader's own hint, as for run
    assert not plan.exists()


def test_limit_raises_it_and_turns_bounds_what_runs(tmp_path: Path) -> None:
    plan_path = tmp_path / "plan.json"
    code, output = _invoke(
        "--scenario", _long(tmp_path), "--limit", f"turns={MANY}",
        "--turns", "3", "--write-plan", plan_path,
    )  # fmt: skip
    assert code == 0, output
    plan = read_plan(plan_path)
    assert plan.turns == 3
    assert [plan.template.user_text(0, t) for t in range(3)] == ["q 0", "r 0", "s 0"]
    # only what a session could run was expanded, not the MANY turns the file asks for
    assert len(plan.template.user_texts) == MAX_TURNS + 1


def test_too_many_user_turns_for_a_session_need_turns(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    code, output = _invoke(
        "--scenario", _long(tmp_path), "--limit", f"turns={MANY}", "--write-plan", plan
    )
    assert code == 2
    assert f"--turns: {tmp_path / 'long.yaml'} has more than {MAX_TURNS} user turns" in output
    assert not plan.exists()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("turns", "--limit: expected NAME=N with NAME one of"),
        ("turns=0", "--limit: turns: expected a number > 0"),
        ("sessions=5", "--limit: expected NAME=N with NAME one of"),
    ],
)
def test_a_bad_limit_exits_2_naming_it(tmp_path: Path, option: str, message: str) -> None:
    plan = tmp_path / "plan.json"
    code, output = _invoke("--scenario", _long(tmp_path), "--limit", option, "--write-plan", plan)
    assert (code, message in output) == (2, True), output
    assert not plan.exists()


def test_limit_without_a_scenario_exits_2(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    code, output = _invoke("--limit", "turns=5", "--write-plan", plan)
    assert code == 2
    assert "--limit raises the scenario loader's limits: it needs --scenario" in output
    assert not plan.exists()


def _conversation(shape: list[int]) -> list[dict[str, object]]:
    """Nested repeats: ``[a, b]`` is ``a`` x (a user turn, then ``b`` x (a user turn))."""
    steps: list[dict[str, object]] = [{"user": f"leaf {len(shape)} {{i}}"}]
    for depth, times in enumerate(reversed(shape)):
        steps = [{"user": f"level {depth} {{i}}"}, {"repeat": {"times": times, "steps": steps}}]
    return steps


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 6), max_size=3), cap=st.integers(1, 60))
def test_the_expansion_is_the_first_texts_of_the_whole(shape: list[int], cap: int) -> None:
    """Capped, the user turns are exactly the first ``cap`` of the uncapped expansion."""
    raw = yaml.safe_load(TINY)
    raw["conversation"] = _conversation(shape)
    scenario = Scenario.model_validate(raw)
    whole, _ = template_from_scenario(scenario, max_texts=10**6)
    capped, _ = template_from_scenario(scenario, max_texts=cap)
    assert capped.user_texts == whole.user_texts[:cap]
