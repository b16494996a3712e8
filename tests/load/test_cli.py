"""``trimscope load``: the command end to end (fake-server process, summary, ``--json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.load import read_plan

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "budget-proactive-drops-oldest-turns.yaml"


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", *args])
    return result.exit_code, result.output


@pytest.mark.integration
def test_json_summary_is_written_and_matches_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out" / "summary.json"
    code, output = _invoke(
        "--sessions", "3", "--concurrency", "2", "--turns", "2", "--quiet", "--json", str(out)
    )
    assert code == 0, output
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert [p.name for p in out.parent.iterdir()] == ["summary.json"]  # no temporary left
    assert summary["mode"] == "asyncio"
    assert summary["sessions_completed"] == 3
    assert summary["stopped_by"] == "count"
    assert summary["overhead"]["samples"] == summary["provider_calls"]
    (server,) = summary["servers"]
    assert server["generation_requests"] == summary["provider_calls"]  # the fake's own count
    assert sum(server["outcomes"].values()) == summary["provider_calls"]
    assert "sessions/s" in output
    assert "trims by reason and trigger" in output


@pytest.mark.integration
def test_a_scenario_is_the_session_template(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    code, output = _invoke(
        "--scenario", str(SCENARIO), "--sessions", "3", "--quiet", "--json", str(out)
    )
    assert code == 0, output
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["template"] == "scenario:budget-proactive-drops-oldest-turns"
    assert summary["turns"] == 2  # the scenario's user turns
    # The scenario expects 2 provider calls and one proactive trim: per session, here.
    assert summary["provider_calls"] == 3 * 2
    assert [(t["trigger"], t["per_session"]) for t in summary["trims"]] == [("proactive", 1.0)]


@pytest.mark.integration
def test_serve_metrics_attaches_the_telemetry_observers() -> None:
    code, output = _invoke("--sessions", "2", "--turns", "1", "--quiet", "--serve-metrics", "0")
    assert code == 0, output
    assert "metrics: http://127.0.0.1:" in output


def test_invalid_options_exit_2_and_run_nothing() -> None:
    code, output = _invoke("--provider", "nonsense")
    assert code == 2
    assert "unknown --provider" in output
    code, output = _invoke("--scenario", str(SCENARIO), "--provider", "openai")
    assert code == 2
    code, _ = _invoke("--sessions", "0")
    assert code == 2


def test_write_plan_shares_sessions_between_workers(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    code, output = _invoke(
        "--sessions", "10", "--workers", "3", "--turns", "4", "--write-plan", str(path)
    )
    assert code == 0, output
    plan = read_plan(path)
    assert plan.sessions_per_process == 4
    assert plan.turns == 4
    assert plan.base_urls == {}  # remote workers start their own loopback fakes
