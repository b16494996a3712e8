"""``trimscope load --wire-findings FILE``: the wire observer reads the requests the fakes
receive, as ``trimscope proxy`` would, beside the agents' own events. For the library's
budget scenario every trim the agents announced is one the wire shows (the agreement
test holds this scenario's trims observable): the two counts are equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.load.test_cli import SCENARIO

SESSIONS = 4


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", *args])
    return result.exit_code, result.output


@pytest.mark.integration
def test_the_wire_shows_each_trim_the_agents_announced(tmp_path: Path) -> None:
    findings_path, summary_path = tmp_path / "wire.jsonl", tmp_path / "summary.json"
    code, output = _invoke(
        "--scenario", str(SCENARIO), "--sessions", str(SESSIONS), "--concurrency", "2",
        "--quiet", "--json", str(summary_path), "--wire-findings", str(findings_path),
    )  # fmt: skip
    assert code == 0, output
    summary = json.loads(summary_path.read_text())
    findings = [json.loads(line) for line in findings_path.read_text().splitlines()]
    trims = [f for f in findings if f["kind"] == "trim"]
    assert summary["trims_total"] == SESSIONS  # one proactive trim per session
    assert len(trims) == summary["trims_total"]
    assert len({f["session"] for f in trims}) == SESSIONS  # sessions told apart by header
    assert {f["kind"] for f in findings} <= {"trim", "cache_break"}
    assert f"wire findings: {len(findings)} (" in output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json", "wire.jsonl"]


@pytest.mark.parametrize("other", [["--locust"], ["--sweep", "budget=100,200"]])
def test_it_watches_one_asyncio_run_only(tmp_path: Path, other: list[str]) -> None:
    code, output = _invoke(
        "--sessions", "1", "--wire-findings", str(tmp_path / "wire.jsonl"), *other
    )
    assert code == 2, output
    assert "--wire-findings watches one asyncio run" in output
