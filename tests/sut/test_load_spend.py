"""``trimscope load --sut``'s cost, cache and compactions per runtime: in the ``--json``
summary, the side-by-side table and the ``--html`` page, read off what the fake received
and answered, priced by ``harness.pricing``.

The figures are the library scenario's own (``scenarios/cache-openai-prefix-collapses-at-
each-trim.yaml`` works them out by hand in its description and holds the in-process
reference to them): per session, 4 calls reporting 1400, 1705, 1722 and 1722 input tokens
of which 0, 1280, 1024 and 1024 were cache reads, and 2 trims each losing 605 cached
tokens. Here they come through ``trimscope sut reference`` in a real subprocess, from a
real fake over HTTP.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.scenarios.support import cli
from tests.sut.runtimes import command, library, script

TRIMSCOPE = Path(sys.executable).with_name("trimscope")
REFERENCE = f"{TRIMSCOPE} sut reference"
CACHE_SCENARIO = (
    Path(__file__).parents[2] / "scenarios/cache-openai-prefix-collapses-at-each-trim.yaml"
)
INPUT = (1400, 1705, 1722, 1722)
READ = (0, 1280, 1024, 1024)
OUTPUT = 4  # "ok" once per call, as the fake counts it
LOSS = 2 * 605
PRICES = """\
date: 2026-12-05
currency: USD
models:
  gpt-test: {input: 2.0, cached_input: 0.5, output: 8.0}
  other: {input: 1.0, cached_input: 1.0, output: 1.0}
"""
COMPACTS = (
    'out({"op": "event", "session": s, "kind": "compaction"}); '
    'out({"op": "answer", "session": s, "text": "ok"})'
)


def _per_session_cost() -> float:
    uncached, read = sum(INPUT) - sum(READ), sum(READ)
    return (uncached * 2.0 + read * 0.5 + OUTPUT * 8.0) / 1_000_000


@pytest.mark.integration
def test_cost_and_cache_per_runtime_in_json_table_and_page(tmp_path: Path) -> None:
    prices, out, page = tmp_path / "prices.yaml", tmp_path / "load.json", tmp_path / "load.html"
    prices.write_text(PRICES, encoding="utf-8")
    result = cli("load", "-q", "--sut", REFERENCE, "--scenario", CACHE_SCENARIO,
                 "--sessions", "2", "--concurrency", "2", "--prices", prices,
                 "--json", out, "--html", page)  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    (only,) = json.loads(out.read_text())["runtimes"]
    assert (only["finished"], only["trims"], only["compactions"]) == (2, 4, 0)
    cache = only["cache"]
    assert cache["input_tokens"] == 2 * sum(INPUT)
    assert cache["cache_read_tokens"] == 2 * sum(READ)
    assert (cache["cache_write_tokens"], cache["output_tokens"]) == (0, 2 * OUTPUT)
    assert cache["hit_ratio"] == round(sum(READ) / sum(INPUT), 4)
    assert cache["cache_loss_tokens"] == {"trim": 2 * LOSS}
    assert cache["cache_loss_per_session"] == LOSS
    cost = only["cost"]
    assert cost["per_session"] == round(_per_session_cost(), 6)
    assert cost["cache_lost"] == round(2 * LOSS * (2.0 - 0.5) / 1_000_000, 6)
    assert (cost["currency"], only["cost_note"]) == ("USD", None)
    assert "cost/session (USD)" in result.stdout
    assert f"{_per_session_cost():.6f}" in result.stdout
    assert f"{sum(READ) / sum(INPUT):.3f}" in result.stdout  # the hit ratio, 0.508
    html = page.read_text()
    assert "trimscope-reference 0.1.0" in html
    assert "cost per session (USD) against runtime" in html
    assert "cache hit ratio against runtime" in html
    assert f"{round(_per_session_cost(), 6):,.6f}".rstrip("0") in html


@pytest.mark.integration
def test_a_model_without_a_price_leaves_cost_out_with_a_note(tmp_path: Path) -> None:
    prices, out = tmp_path / "prices.yaml", tmp_path / "load.json"
    prices.write_text(PRICES.replace("gpt-test", "gpt-else"), encoding="utf-8")
    result = cli("load", "-q", "--sut", REFERENCE, "--scenario", CACHE_SCENARIO,
                 "--sessions", "1", "--prices", prices, "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    (only,) = json.loads(out.read_text())["runtimes"]
    assert only["cost"] is None
    assert only["cost_note"] == "no cost: the price table has no model 'gpt-test' (see --price-as)"
    assert only["cache"]["input_tokens"] == sum(INPUT)  # the cache does not need prices
    assert "no cost: the price table has no model 'gpt-test'" in result.stdout
    priced_as = cli("load", "-q", "--sut", REFERENCE, "--scenario", CACHE_SCENARIO,
                    "--sessions", "1", "--prices", prices, "--price-as", "other",
                    "--json", out)  # fmt: skip
    assert priced_as.exit_code == 0, priced_as.stderr
    (only,) = json.loads(out.read_text())["runtimes"]
    assert only["cost"]["priced_as"] == {"gpt-test": "other"}
    assert only["cost"]["per_session"] == round((sum(INPUT) + OUTPUT) / 1_000_000, 6)


def test_a_bad_price_table_exits_2_naming_its_line(tmp_path: Path) -> None:
    (scenario,) = library(tmp_path / "lib")
    prices = tmp_path / "prices.yaml"
    prices.write_text("date: 2026-12-05\nmodels:\n  m: {input: -1, cached_input: 0, output: 0}\n")
    result = cli("load", "--sut", "true", "--scenario", scenario, "--prices", prices)
    assert result.exit_code == 2, result.stderr
    assert f"{prices}:3: models.m.input" in result.stderr
    missing = cli("load", "--sut", "true", "--scenario", scenario, "--price-as", "m")
    assert missing.exit_code == 2
    assert "--price-as needs --prices" in missing.stderr


@pytest.mark.integration
def test_compactions_are_counted_per_runtime_side_by_side(tmp_path: Path) -> None:
    (scenario,) = library(tmp_path / "lib")
    compacting = command(script(COMPACTS), tmp_path)
    out, page = tmp_path / "load.json", tmp_path / "load.html"
    result = cli("load", "-q", "--sut", REFERENCE, "--sut", compacting, "--scenario", scenario,
                 "--sessions", "3", "--json", out, "--html", page)  # fmt: skip
    reference, other = json.loads(out.read_text())["runtimes"]
    # one reported per turn, two turns a session (the wire shows none: max of the two)
    assert (reference["compactions"], other["compactions"]) == (0, 6), result.stdout
    assert reference["cache"]["input_tokens"] > 0
    assert other["cache"] is None  # it never called the fake: no usage to read
    assert "compactions/session" in result.stdout
    html = page.read_text()
    assert "trimscope-reference 0.1.0" in html
    assert "fault 0" in html
    assert "compactions/session" in html
