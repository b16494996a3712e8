"""The malformed-scenario corpus (``malformed.py``): every file is refused by ``validate``
and ``run`` with exit code 2, one ``file:line: key.path: ...`` message naming exactly what
is wrong, no traceback, and nothing written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.scenarios.loader import ScenarioError, load_scenario
from tests.scenarios.malformed import MALFORMED
from tests.scenarios.support import cli, scenario, write

EXIT_INVALID = 2
# file:line: then a key path, or a bracketed stage such as (text), (file), (yaml); then
# "expected ..." (YAML's own syntax errors keep the parser's words).
PROBLEM = r":\d+: (\(yaml\): \S|(\([a-z ]+\)|[\w.\-\[\]]+): (expected|duplicate|required) )"


def test_the_corpus_is_large_enough() -> None:
    assert len(MALFORMED) >= 60


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_loader_names_line_and_key_path(tmp_path: Path, case: str) -> None:
    data, expected = MALFORMED[case]
    path = tmp_path / f"{case}.yaml"
    path.write_bytes(data)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    problems = caught.value.problems
    assert any(p.startswith(f"{path}:{expected}") for p in problems), problems
    for problem in problems:
        assert re.match(re.escape(str(path)) + PROBLEM, problem), problem
        assert problem.isprintable(), problem  # no control character reaches a terminal


@pytest.mark.parametrize("case", sorted(MALFORMED))
@pytest.mark.parametrize("command", ["validate", "run"])
def test_cli_exits_2_and_writes_nothing(tmp_path: Path, case: str, command: str) -> None:
    data, expected = MALFORMED[case]
    library = tmp_path / "library"
    write(library, "a-valid.yaml", scenario("valid"))
    bad = library / f"{case}.yaml"
    bad.write_bytes(data)
    out = tmp_path / "out"
    out.mkdir()  # outputs' folders must exist (none is created)
    extra: list[str | Path] = [] if command == "validate" else ["--junit-xml", out / "j.xml"]
    extra += [] if command == "validate" else ["--transcript", out / "t"]
    extra += [] if command == "validate" else ["--metrics-out", out / "m.prom"]
    result = cli(command, library, *extra)
    assert result.exit_code == EXIT_INVALID
    assert any(line.startswith(f"{bad}:{expected}") for line in result.stderr.splitlines())
    assert "Traceback" not in result.stderr + result.stdout
    assert "PASS" not in result.stderr + result.stdout
    assert list(out.iterdir()) == []
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted(
        ["library", "a-valid.yaml", f"{case}.yaml", "out"]
    )
