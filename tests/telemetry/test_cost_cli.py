"""``trimscope run --prices``: cost series in the metrics, and the options' input contract."""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from harness.cli import app
from harness.telemetry import names as n
from tests.telemetry.test_cli_options import _scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "prices.example.yaml"


def _run(tmp_path: Path, *options: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", str(_scenario(tmp_path)), *options])
    return result.exit_code, result.output


def _samples(path: Path) -> dict[str, float]:
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(path.read_text()):
        for sample in family.samples:
            totals[sample.name] = totals.get(sample.name, 0.0) + sample.value
    return totals


def test_run_with_prices_writes_cost_series(tmp_path: Path) -> None:
    out = tmp_path / "metrics.prom"
    code, output = _run(
        tmp_path, "--prices", str(EXAMPLE), "--price-as", "gpt-4o-mini", "--metrics-out", str(out)
    )
    assert code == 0, output
    totals = _samples(out)
    assert totals[n.COST.name] > 0
    assert {spec.name for spec in n.COST_METRICS} <= set(totals)


def test_run_without_prices_writes_no_cost_series(tmp_path: Path) -> None:
    out = tmp_path / "metrics.prom"
    code, output = _run(tmp_path, "--metrics-out", str(out))
    assert code == 0, output
    assert not {spec.name for spec in n.COST_METRICS} & set(_samples(out))


def test_prices_without_metrics_is_refused(tmp_path: Path) -> None:
    code, output = _run(tmp_path, "--prices", str(EXAMPLE))
    assert code == 2
    assert "--prices prices the metrics: it needs --serve-metrics or --metrics-out" in output


def test_price_as_needs_prices_and_a_known_model(tmp_path: Path) -> None:
    out = str(tmp_path / "m.prom")
    code, output = _run(tmp_path, "--price-as", "gpt-4o-mini", "--metrics-out", out)
    assert (code, "--price-as needs --prices" in output) == (2, True)
    code, output = _run(tmp_path, "--prices", str(EXAMPLE), "--price-as", "nope", "-q")
    assert (code, "--price-as 'nope' is not in" in output) == (2, True)


def test_an_invalid_price_file_is_named_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text("date: 2026-12-01\nmodels:\n  m: {input: -1, cached_input: 0, output: 0}\n")
    code, output = _run(tmp_path, "--prices", str(bad), "--metrics-out", str(tmp_path / "x"))
    assert code == 2
    assert f"{bad}:3:" in output
    assert "Traceback" not in output
