"""``load``'s controls (issue 28): ``--request-timeout``, ``--metrics-out`` (written also
when a signal stops the run, marked), span files emptied unless ``--append``, and the
``failed`` session outcome in both modes, with Locust's turn errors by type."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.load import LoadPlan, LoadSummary, nothing_ran
from harness.load.runner import RunOptions
from harness.telemetry.exporters import read_span_lines

FAILING = """\
id: every-call-fails
title: Every call is answered with a 500
rules: ["13"]
providers:
  openai.main:
    kind: openai
    model: gpt-test
    fake:
      default: {fault: {kind: server_error, status: 500}}
conversation:
  - user: "one"
  - user: "two"
expect: {}
"""

HANGING = """\
id: every-call-hangs
title: Every call hangs for 20 s
rules: ["13"]
providers:
  openai.main:
    kind: openai
    model: gpt-test
    fake:
      default: {fault: {kind: hang, seconds: 20}}
conversation:
  - user: "one"
expect: {}
"""


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", "--quiet", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def _scenario(tmp_path: Path, text: str) -> str:
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_session_whose_every_turn_failed_is_failed_not_completed(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    code, output = _invoke(
        "--scenario", _scenario(tmp_path, FAILING), "--sessions", "3", "--json", str(out)
    )
    assert code == 1, output  # no session completed
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["sessions_completed"] == 0
    assert summary["sessions_failed"] == 3
    assert summary["stopped_by"] == "count"
    assert sum(summary["turn_errors"].values()) == 3 * 2
    assert "0 completed, 3 failed, 0 interrupted" in output


def test_the_request_timeout_bounds_each_call(tmp_path: Path) -> None:
    """A fake that hangs 20 s: the 0.3 s timeout ends each call (30 s fixed, before)."""
    out = tmp_path / "summary.json"
    code, output = _invoke(
        "--scenario", _scenario(tmp_path, HANGING), "--sessions", "1", "--duration", "8",
        "--request-timeout", "0.3", "--json", str(out),
    )  # fmt: skip
    assert code == 1, output
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["calls_by_outcome"] == {"timeout": summary["provider_calls"]}
    assert summary["sessions_failed"] == 1


@pytest.mark.parametrize("value", ["0", "-1", "3601", "nan"])
def test_a_request_timeout_out_of_bounds_exits_2(value: str) -> None:
    code, output = _invoke("--request-timeout", value)
    assert code == 2, output
    assert "--request-timeout" in output


def test_span_files_are_emptied_unless_appended_to(tmp_path: Path) -> None:
    spans = tmp_path / "spans.jsonl"
    run = ("--sessions", "2", "--turns", "1", "--otel-jsonl", str(spans))

    def agents() -> int:
        return sum(s["name"].startswith("invoke_agent") for s in read_span_lines(spans))

    assert _invoke(*run)[0] == 0
    assert agents() == 2
    assert _invoke(*run)[0] == 0
    assert agents() == 2  # emptied first: appended silently before
    assert _invoke(*run, "--append")[0] == 0
    assert agents() == 4
    code, output = _invoke("--append")
    assert code == 2
    assert "--append appends spans to the --otel-jsonl file: it needs one" in output


def test_metrics_out_is_written_at_the_end(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.prom"
    code, output = _invoke("--sessions", "2", "--turns", "1", "--metrics-out", str(metrics))
    assert code == 0, output
    text = metrics.read_text(encoding="utf-8")
    assert 'trimscope_load_sessions_total{outcome="completed"} 2.0' in text
    assert "trimscope_provider_calls_total" in text
    assert "trimscope_run_interrupted" not in text


def test_metrics_out_of_a_stopped_run_is_written_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stopped_run(plan: LoadPlan, options: RunOptions) -> LoadSummary:
        assert options.stop is not None
        options.stop.request(signal.SIGTERM)  # as the handler does, mid-run
        return nothing_ran(plan, [], "SIGTERM")

    monkeypatch.setattr("harness.cli.load.run_load", stopped_run)
    metrics = tmp_path / "metrics.prom"
    code, _ = _invoke("--metrics-out", str(metrics))
    assert code == 128 + signal.SIGTERM
    assert 'trimscope_run_interrupted{signal="SIGTERM"} 1.0' in metrics.read_text(encoding="utf-8")


def test_metrics_out_refuses_a_sweep() -> None:
    code, output = _invoke("--sweep", "budget=0,1000", "--metrics-out", "m.prom")
    assert code == 2
    assert "--metrics-out writes one run's metrics; --sweep makes several runs" in output


@pytest.mark.integration
def test_locust_summaries_carry_turn_errors_and_failed_sessions(tmp_path: Path) -> None:
    """Before: "turn errors: none" with every turn errored, and the sessions completed."""
    out, metrics = tmp_path / "summary.json", tmp_path / "metrics.prom"
    code, output = _invoke(
        "--locust", "--workers", "1", "--scenario", _scenario(tmp_path, FAILING),
        "--sessions", "4", "--concurrency", "2", "--json", str(out),
        "--metrics-out", str(metrics),
    )  # fmt: skip
    assert code == 1, output
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["sessions_failed"] == 4
    assert summary["sessions_completed"] == 0
    assert sum(summary["turn_errors"].values()) == 4 * 2
    assert 'trimscope_load_sessions_total{outcome="failed"} 4.0' in metrics.read_text(
        encoding="utf-8"
    )
