"""Properties of the loader: whatever the text, only ``ScenarioError`` escapes, and each
problem is ``file:line: ...``; a renamed key is reported at its own line and path."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.scenarios.loader import LoadedScenario, ScenarioError, load_scenario
from harness.scenarios.problems import dotted
from tests.scenarios.strategies import format_key_paths, rename, valid_scenarios, yamlish_text

RENAMED = "zz_renamed_key"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("property")


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(text=yamlish_text())
def test_only_scenario_errors_escape(folder: Path, text: str) -> None:
    path = folder / "any.yaml"
    path.write_text(text, encoding="utf-8")
    outcome: LoadedScenario | ScenarioError
    try:
        outcome = load_scenario(path)
    except ScenarioError as error:
        outcome = error
    if isinstance(outcome, ScenarioError):
        assert outcome.problems
        for problem in outcome.problems:
            assert re.match(rf"{re.escape(str(path))}:\d+: \S", problem), problem


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(data=valid_scenarios(), choice=st.data())
def test_renamed_key_is_reported_at_its_line_and_path(
    folder: Path, data: dict[str, Any], choice: st.DataObject
) -> None:
    path = folder / "renamed.yaml"
    path.write_text(_dump(data), encoding="utf-8")
    load_scenario(path)  # the generated scenario is valid as it stands
    target = choice.draw(st.sampled_from(format_key_paths(data)))
    text = _dump(rename(data, target, RENAMED))
    path.write_text(text, encoding="utf-8")
    line = next(
        n for n, row in enumerate(text.splitlines(), 1) if re.match(rf"^\s*(- )*{RENAMED}:", row)
    )
    key_path = dotted((*target[:-1], RENAMED))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    prefix = f"{path}:{line}: {key_path}: expected one of the keys: "
    assert any(p.startswith(prefix) for p in caught.value.problems), caught.value.problems
