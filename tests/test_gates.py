"""The gates CI relies on: ``make test`` (and so ``.ci/run``) runs the scenario library.

The library catches agent bugs the unit tests miss (issue 14 planted six; the library was
the only gate for one of them), so dropping it from the gate must fail a test.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _make_target(name: str) -> list[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{name}:.*\n((?:\t.*\n)+)", text, re.MULTILINE)
    assert match is not None, f"Makefile has no {name} target"
    return [line.strip() for line in match.group(1).splitlines()]


def test_plain_pytest_collects_the_scenario_library() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    testpaths = config["tool"]["pytest"]["ini_options"]["testpaths"]
    assert "scenarios" in testpaths
    assert any((ROOT / "scenarios").glob("*.yaml"))


def test_make_unit_runs_pytest_on_its_testpaths() -> None:
    # A path argument would override `testpaths` and silently drop the library.
    (command,) = [line for line in _make_target("unit") if "pytest" in line]
    assert command.split()[-1].endswith("pytest"), command


def test_ci_runs_make_test() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^make test$", script, re.MULTILINE)
