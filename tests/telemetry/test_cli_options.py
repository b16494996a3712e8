"""``trimscope run``'s telemetry options, end to end through the CLI (in process)."""

from __future__ import annotations

import time
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from harness.cli import app
from harness.telemetry import names as n

SCENARIO = """\
id: cli-telemetry-options
title: one proactive trim
rules: ["3.1"]
runtime: {max_context_tokens: 30}
providers:
  openai.main:
    kind: openai
    model: gpt-test
    context_window: 8000
    fake: {default: {text: "ok"}}
system_prompt: "sys"
conversation:
  - user: "first question, long enough to matter for the budget"
  - user: "second"
expect:
  counts: {trims: {proactive: 1}}
"""


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "one.yaml"
    path.write_text(SCENARIO)
    return path


def test_hold_metrics_needs_serve_metrics(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", str(_scenario(tmp_path)), "--hold-metrics", "5"])
    assert result.exit_code == 2
    assert "--hold-metrics needs --serve-metrics" in result.output


def test_hold_metrics_is_bounded(tmp_path: Path) -> None:
    args = ["run", str(_scenario(tmp_path)), "--serve-metrics", "0", "--hold-metrics", "3601"]
    assert CliRunner().invoke(app, args).exit_code == 2


def test_run_serves_holds_and_writes_metrics(tmp_path: Path) -> None:
    out = tmp_path / "metrics.prom"
    args = [
        "run",
        str(_scenario(tmp_path)),
        "--serve-metrics",
        "0",
        "--hold-metrics",
        "0.5",
        "--metrics-out",
        str(out),
        "--otel-jsonl",
        str(tmp_path / "spans.jsonl"),
    ]
    started = time.monotonic()
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started >= 0.5
    assert "metrics: served for 0.5s after the run" in result.output
    samples = {
        (s.name, s.labels.get(n.LABEL_TRIGGER)): s.value
        for family in text_string_to_metric_families(out.read_text())
        for s in family.samples
    }
    assert samples[(n.TRIMS.name, "proactive")] == 1
    assert (tmp_path / "spans.jsonl").stat().st_size > 0
