"""JUnit ``classname`` is the scenario's dotted path inside its library and ``file`` a
relative path: CI tools split the class name on dots, and an absolute path differs
between machines."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness.scenarios.junit_names import JunitNames
from tests.scenarios.support import cli, console_script, scenario, write


def _cases(junit: Path) -> dict[str, tuple[str | None, str | None]]:
    return {
        str(case.get("name")): (case.get("classname"), case.get("file"))
        for case in ET.parse(junit).getroot().findall("testcase")
    }


def test_the_bundled_library_run_from_elsewhere(tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    result = console_script(
        ["run", "-q", "-k", "^budget-proactive-drops", "--junit-xml", junit], cwd=tmp_path
    )
    assert result.exit_code == 0, result.stderr
    assert _cases(junit) == {
        "budget-proactive-drops-oldest-turns": (
            "scenarios.budget-proactive-drops-oldest-turns",
            "scenarios/budget-proactive-drops-oldest-turns.yaml",
        )
    }


def test_a_library_of_folders_relative_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = tmp_path / "suite"
    write(library / "budget", "one.yaml", scenario("one"))
    write(library, "v1.2-two.yaml", scenario("two"))
    monkeypatch.chdir(tmp_path)
    result = cli("run", "suite", "--junit-xml", "j.xml")
    assert result.exit_code == 0, result.stdout
    assert _cases(tmp_path / "j.xml") == {
        "one": ("suite.budget.one", "suite/budget/one.yaml"),
        "two": ("suite.v1_2-two", "suite/v1.2-two.yaml"),  # a dot is no package
    }


def test_names_are_never_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = tmp_path / "lib"
    path = write(library / "deep", "x.yaml", scenario("x"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    names = JunitNames([library])
    assert names.classname(path) == "lib.deep.x"
    assert names.file(path) == "lib/deep/x.yaml"
    # a file given alone: its own folder is its library
    assert JunitNames([path]).classname(path) == "deep.x"
    assert not os.path.isabs(JunitNames().file(path))
