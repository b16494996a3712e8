"""The examples of scenarios/README.md are real: the annotated scenario passes, the
fixture example is a passing test."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from harness.events import HistoryTrimmed
from harness.scenarios.expect import check
from harness.scenarios.loader import load_scenario
from harness.scenarios.runner import run_scenario
from harness.scenarios.schema import Scenario

README = Path(__file__).resolve().parents[2] / "scenarios" / "README.md"

pytest_plugins = ["pytester"]


def _block(language: str) -> str:
    found = re.search(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert found is not None, f"no {language} block in {README}"
    return found.group(1)


def test_annotated_example_is_a_passing_scenario(tmp_path: Path) -> None:
    path = tmp_path / "readme-example.yaml"
    path.write_text(_block("yaml"), encoding="utf-8")
    loaded = load_scenario(path)
    assert check(asyncio.run(run_scenario(loaded.scenario))) == []


def test_annotated_example_uses_every_top_level_key() -> None:
    text = _block("yaml")
    keys = {m.group(1) for m in re.finditer(r"^([a-z_]+):", text, re.M)}
    assert keys == set(Scenario.model_fields)


def test_fixture_example_is_a_passing_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_readme_example=_block("python"))
    pytester.runpytest().assert_outcomes(passed=1)


WORKED = re.compile(r"Worked example[^`]*`(?P<file>[a-z0-9.-]+\.yaml)`(?P<text>.*?)\n\n", re.S)
FACTS = re.compile(r"`(trigger: [a-z_]+(?:, [a-z_]+: \d+)+)`")


def _worked_examples() -> list[tuple[str, dict[str, str]]]:
    """Each worked example's scenario file and the trim facts its text states."""
    found = []
    for example in WORKED.finditer(README.read_text(encoding="utf-8")):
        for facts in FACTS.findall(example["text"]):
            pairs = dict(pair.split(": ") for pair in facts.split(", "))
            found.append((example["file"], pairs))
    return found


def test_the_worked_examples_include_a_reported_usage_trim() -> None:
    triggers = {facts["trigger"] for _, facts in _worked_examples()}
    assert {"proactive", "reported_usage"} <= triggers


@pytest.mark.parametrize(("name", "facts"), _worked_examples())
def test_a_worked_example_is_what_the_run_does(name: str, facts: dict[str, str]) -> None:
    loaded = load_scenario(README.parent / name)
    run = asyncio.run(run_scenario(loaded.scenario))
    trims = [e for e in run.events if isinstance(e, HistoryTrimmed)]
    first = next(t for t in trims if str(t.trigger) == facts["trigger"])
    stated = {key: int(value) for key, value in facts.items() if key != "trigger"}
    assert {key: getattr(first, key) for key in stated} == stated
