"""The examples of scenarios/README.md are real: the annotated scenario passes, the
fixture example is a passing test."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

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
