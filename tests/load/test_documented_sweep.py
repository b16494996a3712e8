"""docs/load.md's budget sweep (issue 27: "budgets that give different rows"): the command
the page shows, run as written apart from its output paths, gives a different column for
every budget, and two budgets inside one band of whole turns give the same column, as the
page explains."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.test_readme import DOCS, shell_blocks

PAGE = DOCS / "load.md"
SECTION = "Budget sweeps"


def documented_sweep() -> list[str]:
    """The section's ``trimscope load --sweep`` command, as arguments after ``trimscope``."""
    blocks = shell_blocks(PAGE.read_text(encoding="utf-8"), "docs/load.md")
    (command,) = [c for b in blocks if b.section == SECTION for c in b.commands if "--sweep" in c]
    program, *args = shlex.split(command)
    assert program == "trimscope"
    return args


def _outputs_to(args: list[str], folder: Path) -> list[str]:
    """The same arguments with each ``out/...`` path moved into ``folder``."""
    return [str(folder / a.removeprefix("out/")) if a.startswith("out/") else a for a in args]


def _rows(args: list[str], folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    monkeypatch.chdir(DOCS.parent)  # the page's paths are relative to the repository's root
    result = CliRunner().invoke(app, [*_outputs_to(args, folder), "--quiet"])
    assert result.exit_code in (0, 1), result.output  # budget=0: failed turns, exit 1
    rows: list[dict[str, Any]] = json.loads((folder / "sweep.json").read_text())["rows"]
    return rows


def _column(row: dict[str, Any]) -> str:
    """Every figure of a column (not its value or label), comparable."""
    return json.dumps({k: v for k, v in row.items() if k not in ("value", "label")}, sort_keys=True)


@pytest.mark.integration
def test_every_budget_of_the_documented_sweep_gives_its_own_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = documented_sweep()
    assert any(a.startswith("budget=") for a in args)
    rows = _rows(args, tmp_path, monkeypatch)
    assert len(rows) == 4
    columns = [_column(row) for row in rows]
    assert len(set(columns)) == len(columns), [row["value"] for row in rows]
    trims = {tuple(row["trims_per_session"].values()) for row in rows}
    assert len(trims) == len(rows)  # the trims themselves differ, not only costs


@pytest.mark.integration
def test_two_budgets_within_one_band_of_turns_give_the_same_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["load", "--sessions", "2", "--turns", "12", "--sweep", "budget=1200,1600"]
    rows = _rows([*args, "--json", "out/sweep.json"], tmp_path, monkeypatch)
    assert _column(rows[0]) == _column(rows[1])
