"""``trimscope load --prices --serve-metrics``: the run's registry gets the cost series,
priced like the summary's cost section (same events, same formula)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from typer.testing import CliRunner

import harness.cli.load as load_cli
from harness.cli import app
from harness.telemetry import names as n
from harness.telemetry.setup import Telemetry, TelemetryOptions, build_telemetry

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "prices.example.yaml"


def test_a_priced_load_run_counts_the_summarys_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = CollectorRegistry()

    def built(options: TelemetryOptions) -> Telemetry:  # the CLI's, on a registry we read
        return build_telemetry(replace(options, registry=registry))

    monkeypatch.setattr(load_cli, "build_telemetry", built)
    out = tmp_path / "summary.json"
    args = ["load", "--sessions", "3", "--turns", "6", "--quiet", "--serve-metrics", "0"]
    args += ["--prices", str(EXAMPLE), "--price-as", "gpt-4o-mini", "--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    cost = json.loads(out.read_text())["cost"]
    totals = {
        spec.name: sum(
            s.value for f in registry.collect() for s in f.samples if s.name == spec.name
        )
        for spec in n.COST_METRICS
    }
    assert cost["total"] > 0
    assert totals[n.COST.name] == pytest.approx(cost["total"], abs=1e-6)
    net = totals[n.CACHE_SAVED.name] - totals[n.CACHE_WRITE_PREMIUM.name]
    assert net == pytest.approx(cost["cache_saved"], abs=1e-6)
    assert totals[n.CACHE_LOSS_COST.name] == pytest.approx(cost["cache_lost"], abs=1e-6)
