"""``trimscope load``: the command end to end (fake-server process, summary, ``--json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.load import read_plan
from harness.telemetry.exporters import read_span_lines

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "budget-proactive-drops-oldest-turns.yaml"


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", *args])
    return result.exit_code, result.output


@pytest.mark.integration
def test_json_summary_is_written_and_matches_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out" / "summary.json"
    out.parent.mkdir()
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


@pytest.mark.integration
@pytest.mark.parametrize(("share", "traced_turns"), [("1", 6), ("0", 0)])
def test_otel_jsonl_traces_the_share_of_turns_asked(
    tmp_path: Path, share: str, traced_turns: int
) -> None:
    """Each turn is one trace, kept or dropped whole; the summary counts every call."""
    spans_path, out = tmp_path / "spans.jsonl", tmp_path / "summary.json"
    code, output = _invoke(
        "--sessions", "3", "--concurrency", "2", "--turns", "2", "--quiet",
        "--otel-jsonl", str(spans_path), "--trace-sample", share, "--json", str(out),
    )  # fmt: skip
    assert code == 0, output
    spans = read_span_lines(spans_path) if spans_path.exists() else []
    agents = [s for s in spans if s["name"].startswith("invoke_agent")]
    assert len(agents) == traced_turns
    assert {s["context"]["trace_id"] for s in spans} == {
        a["context"]["trace_id"] for a in agents
    }  # no span outlives its dropped turn
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["provider_calls"] >= 6
    inference = [s for s in spans if s["kind"].endswith("CLIENT")]
    assert len(inference) == (summary["provider_calls"] if traced_turns else 0)


def test_trace_options_refuse_what_they_cannot_do() -> None:
    code, output = _invoke("--trace-sample", "0.5")
    assert code == 2
    assert "--trace-sample needs --otel-jsonl or --otlp" in output
    code, output = _invoke("--locust", "--otlp")
    assert code == 2
    assert "Locust runs serve metrics" in output
    code, _ = _invoke("--otlp", "--trace-sample", "1.5")
    assert code == 2


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
