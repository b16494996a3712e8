"""``trimscope proxy --prices FILE``: the price table ``run`` and ``load`` read prices a
proxied runtime's calls and the cache its trims lose, in the cost series the telemetry
already has (``source="wire"``); a bad table exits 2 naming ``file:line`` before anything
listens."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
from typer.testing import CliRunner

from fakes.pytest_plugin import FakeServerFactory
from harness.cli import app
from harness.telemetry import names as tn
from tests.interrupting import finish
from tests.proxy.test_cli import _proxy, _sample
from tests.proxy.test_telemetry import _turns

PRICES = """\
date: 2026-12-01
currency: USD
models:
  m:
    input: 2.0
    cached_input: 0.5
    output: 8.0
"""


def test_the_calls_and_the_cache_a_trim_loses_are_priced_under_the_wire_source(
    fake_server: FakeServerFactory, tmp_path: Path
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    running, base = _proxy(
        fake.base_url + "/v1", tmp_path, "--prices", str(prices), "--provider-name", "up"
    )
    for messages in _turns():
        httpx.post(base + "/chat/completions", json={"model": "m", "messages": messages},
                   headers={"x-trimscope-session": "priced"})  # fmt: skip
    running.process.send_signal(signal.SIGTERM)
    code, _, err = finish(running)
    assert code == 143, err
    metrics = (tmp_path / "metrics.prom").read_text()
    loss_tokens = _sample(
        metrics, tn.CACHE_LOSS.name, '{provider="up",source="wire",trigger="wire"}'
    )
    loss_usd = _sample(
        metrics, tn.CACHE_LOSS_COST.name, '{provider="up",source="wire",trigger="wire"}'
    )
    assert loss_tokens > 0
    # what a lost cached token costs: read again at the input price instead of the cached one
    assert loss_usd == loss_tokens * (2.0 - 0.5) / 1e6
    spent = _sample(metrics, tn.COST.name, '{model="m",part="input",provider="up",source="wire"}')
    assert spent > 0


def test_a_bad_price_table_exits_2_naming_its_line(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES.replace("output: 8.0", "output: lots"))
    result = CliRunner().invoke(app, [
        "proxy", "--upstream", "http://127.0.0.1:9/v1", "--wire", "openai_chat",
        "--port", "0", "--metrics-out", str(tmp_path / "m.prom"), "--prices", str(prices),
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"{prices}:7: models.m.output" in result.output
    assert "Traceback" not in result.output


def test_prices_without_a_metrics_output_exit_2(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    result = CliRunner().invoke(app, [
        "proxy", "--upstream", "http://127.0.0.1:9/v1", "--wire", "openai_chat",
        "--port", "0", "--prices", str(prices),
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "--serve-metrics or --metrics-out" in result.output
