"""Price tables, and the cache and cost sections of a load summary, hand-worked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.events import TrimTrigger
from harness.load.tally import LoadTally
from harness.pricing.reading import PricesError, load_prices
from harness.pricing.spend import Spend, cache_summary, cost_summary
from tests.load.spend_events import call, trim

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "prices.example.yaml"
TABLE = """\
date: 2026-12-01
models:
  m:
    input: 2.0
    cached_input: 0.5
    cache_write: 2.5
    output: 10.0
"""


def _table(tmp_path: Path, text: str = TABLE) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_example_is_dated_and_every_price_names_its_source() -> None:
    table = load_prices(EXAMPLE)
    assert table.date.isoformat() == "2026-12-01"
    assert table.models
    assert all(price.source for price in table.models.values())


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (TABLE.replace("2.0", "-1"), "4: models.m.input: "),
        (TABLE.replace("output", "outptu"), "7: models.m.outptu: "),
        (TABLE.replace("date: 2026-12-01\n", ""), "1: date: "),
        (TABLE + "  m:\n    input: 1\n", "8: models.m: duplicate key"),
        ("date: [", "1: (yaml): "),
    ],
)
def test_a_bad_table_names_file_line_and_key(tmp_path: Path, text: str, problem: str) -> None:
    path = _table(tmp_path, text)
    with pytest.raises(PricesError) as caught:
        load_prices(path)
    assert any(p.startswith(f"{path}:{problem}") for p in caught.value.problems)


def _spend() -> Spend:
    tally = LoadTally()
    for event in (
        call("m", 1_000_000, 600_000, 100_000, 50_000),
        call("m", 500_000, 0, 0, 10_000),
        trim(200_000),
        trim(100_000, TrimTrigger.REACTIVE),
        trim(None, TrimTrigger.TURN_LIMIT),
    ):
        tally.on_event(event)
    return Spend.of(tally)


def test_cache_section_hand_worked() -> None:
    cache = cache_summary(_spend(), sessions=2)
    assert (cache.input_tokens, cache.cache_read_tokens, cache.cache_write_tokens) == (
        1_500_000,
        600_000,
        100_000,
    )
    assert cache.uncached_tokens == 300_000 + 500_000
    assert cache.hit_ratio == 0.4
    assert cache.cache_loss_tokens == {"proactive": 200_000, "reactive": 100_000}
    assert cache.cache_loss_per_session == 150_000
    assert (cache.request_tokens_p50, cache.request_tokens_p95) == (750_000, 975_000)


def test_cost_section_hand_worked(tmp_path: Path) -> None:
    cost, note = cost_summary(_spend(), 2, load_prices(_table(tmp_path)))
    assert note is None
    assert cost is not None
    # uncached 0.8 M x 2 + read 0.6 M x 0.5 + write 0.1 M x 2.5 + output 0.06 M x 10
    assert cost.total == pytest.approx(1.6 + 0.3 + 0.25 + 0.6)
    assert cost.per_session == pytest.approx(2.75 / 2)
    # read 0.6 M x (2 - 0.5) - write 0.1 M x (2.5 - 2)
    assert cost.cache_saved == pytest.approx(0.9 - 0.05)
    # lost 0.3 M x (2 - 0.5)
    assert cost.cache_lost == pytest.approx(0.45)


def test_an_unpriced_model_gives_no_cost_and_says_why(tmp_path: Path) -> None:
    cost, note = cost_summary(_spend(), 2, load_prices(_table(tmp_path)), price_as="other")
    assert cost is None
    assert note is not None
    assert "'other'" in note


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("mode", [(), ("--locust",)], ids=["asyncio", "locust"])
def test_price_options_are_checked_before_anything_runs(
    tmp_path: Path, mode: tuple[str, ...]
) -> None:
    code, output = _invoke(*mode, "--price-as", "m")
    assert (code, "--price-as needs --prices" in output) == (2, True)
    bad = _table(tmp_path, TABLE.replace("2.0", "-1"))
    code, output = _invoke(*mode, "--prices", str(bad))
    assert (code, f"{bad}:4: models.m.input" in output) == (2, True)
    code, output = _invoke(*mode, "--prices", str(EXAMPLE), "--price-as", "nope")
    assert (code, "'nope' is not in" in output) == (2, True)


@pytest.mark.integration
def test_a_priced_run_reports_cache_and_cost_in_its_json(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    code, output = _invoke(
        *("--sessions", "3", "--concurrency", "2", "--turns", "4", "--quiet"),
        *("--prices", str(EXAMPLE), "--price-as", "gpt-4o-mini", "--json", str(out)),
    )
    assert code == 0, output
    summary = json.loads(out.read_text(encoding="utf-8"))
    cache, cost = summary["cache"], summary["cost"]
    assert cache["input_tokens"] == (
        cache["cache_read_tokens"] + cache["cache_write_tokens"] + cache["uncached_tokens"]
    )
    assert cost["priced_as"] == {"load-model": "gpt-4o-mini"}
    assert cost["per_session"] == pytest.approx(cost["total"] / 3, abs=1e-6)
    assert "cache loss" in output
