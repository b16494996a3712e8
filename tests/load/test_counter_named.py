"""The load summary names the counter behind each fake's token counts, as each fake-server
process used it: the model's public tokenizer, or the labelled estimate (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.fakes.test_exact_counter import needs_quicktok

TWO_FAKES = """\
id: two-counters
title: One fake with a public tokenizer, one without
rules: ["19.6"]
providers:
  openai.main:
    kind: openai
    model: gpt-4o
    context_window: 8000
    fake:
      counter: exact
      default: {text: ok}
  anthropic.side:
    kind: anthropic
    model: claude-sonnet-4-5
    context_window: 8000
    fake:
      default: {text: ok}
system_prompt: sys
conversation:
  - user: hello
expect:
  counts:
    provider_calls: 1
"""
EXACT = "o200k_base (exact)"
HEURISTIC = "heuristic (estimate: bytes/4 + 4 per row, not a real tokenizer)"


@pytest.mark.integration
@needs_quicktok
def test_each_fake_server_names_its_counter(tmp_path: Path) -> None:
    scenario, out = tmp_path / "two.yaml", tmp_path / "summary.json"
    scenario.write_text(TWO_FAKES, encoding="utf-8")
    args = ["load", "--scenario", str(scenario), "--sessions", "2", "--json", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})  # one line per cell
    assert result.exit_code == 0, result.output
    servers = json.loads(out.read_text(encoding="utf-8"))["servers"]
    assert {s["ref"]: s["counter"] for s in servers} == {
        "openai.main": EXACT,  # `exact` resolved by the fake to gpt-4o's tokenizer
        "anthropic.side": HEURISTIC,
    }
    assert f"counter {EXACT}" in result.output
    assert f"counter {HEURISTIC}" in result.output
