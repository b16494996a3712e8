"""A mistyped option gets the option it was meant to be, not three near ones."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from harness.cli import app


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["run", "--junit", "j.xml"], "--junit-xml"),
        (["run", "--junt", "j.xml"], "--junit-xml"),
        (["run", "--qiet"], "--quiet"),
        (["run", "--metrics", "m.prom"], "--metrics-out"),
        (["report", "--outpt", "r.html"], "--output"),
    ],
)
def test_a_typo_suggests_the_option_meant(args: list[str], meant: str) -> None:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 2
    line = next(line for line in result.output.splitlines() if "No such option" in line)
    assert f"(Possible options: {meant})" in line


def test_a_word_like_no_option_gets_no_suggestion() -> None:
    result = CliRunner().invoke(app, ["run", "--promo"], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert "Possible options" not in result.output
