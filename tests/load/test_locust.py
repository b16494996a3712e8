"""``trimscope load --locust``: Locust headless, a master and two workers, for a few seconds.

Locust runs in its own processes (it monkey-patches the standard library with gevent on
import), so this test runs the command as a subprocess and never imports Locust itself.

Its cache and cost sections are checked against an asyncio run of the same sessions. The
workers number their sessions across the run (worker ``k`` of a share of 3 runs indices
``3k`` to ``3k + 2`` of the built-in workload), and session ``i``'s conversation depends
only on ``i`` (the fake answers per session), so two workers run exactly what one asyncio
run of 6 sessions runs: every token count, the cache loss and every per-session figure of
the Locust summary equal the asyncio one's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRIMSCOPE = Path(sys.executable).with_name("trimscope")
PRICES = ("--prices", str(ROOT / "docs" / "prices.example.yaml"), "--price-as", "gpt-4o-mini")
WORKERS, SHARE, TURNS = 2, 3, 4
TOKEN_COUNTS = (
    "input_tokens", "cache_read_tokens", "cache_write_tokens", "uncached_tokens", "output_tokens"
)  # fmt: skip
PER_SESSION = ("hit_ratio", "cache_loss_per_session", "input_tokens_per_session")


def _load(tmp_path: Path, name: str, *args: str) -> tuple[dict[str, Any], str]:
    """Run ``trimscope load ARGS --json``; the summary and the terminal output."""
    out = tmp_path / f"{name}.json"
    command = [str(TRIMSCOPE), "load", *args, *PRICES, "--json", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=90, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return summary, done.stdout


@pytest.mark.integration
def test_locust_mode_runs_the_sessions_and_aggregates_their_metrics(tmp_path: Path) -> None:
    summary, stdout = _load(
        tmp_path,
        "locust",
        *("--locust", "--workers", str(WORKERS), "--sessions", str(WORKERS * SHARE)),
        *("--concurrency", "3", "--turns", str(TURNS), "--duration", "15"),
    )
    assert summary["mode"] == "locust"
    assert summary["sessions_completed"] == WORKERS * SHARE
    assert summary["stopped_by"] == "count"  # every worker ran its share, then quit
    assert summary["elapsed_s"] < 15 + 10
    (server,) = summary["servers"]
    # Aggregated from the worker's PROMETHEUS_MULTIPROC_DIR files = the fake's own count.
    assert summary["provider_calls"] == server["generation_requests"] > 0
    assert summary["overhead"]["samples"] == summary["provider_calls"]
    assert summary["overhead"]["approximate"] is True
    turns = WORKERS * SHARE * TURNS
    assert summary["turns_by_outcome"] == {"ok": turns}
    requests = {(r["type"], r["name"]): r for r in summary["locust_requests"]}
    assert requests["agent", "turn"]["requests"] == turns
    assert requests["provider", "openai.load"]["requests"] == summary["provider_calls"]
    assert "Locust requests" in stdout
    assert "cache loss" in stdout
    assert "cache saved" in stdout  # the cost row
    asyncio_run, _ = _load(
        tmp_path, "asyncio", *("--sessions", str(WORKERS * SHARE), "--concurrency", "3"),
        *("--turns", str(TURNS), "--quiet"),
    )  # fmt: skip
    _same_cache_and_cost(summary, asyncio_run)


def _same_cache_and_cost(locust: dict[str, Any], asyncio_run: dict[str, Any]) -> None:
    """``locust`` ran the sessions ``asyncio_run`` ran, split over workers (docstring)."""
    cache, alone = locust["cache"], asyncio_run["cache"]
    assert alone["cache_read_tokens"] > 0  # the workload reads the cache and loses some
    assert sum(alone["cache_loss_tokens"].values()) > 0
    assert {k: cache[k] for k in TOKEN_COUNTS} == {k: alone[k] for k in TOKEN_COUNTS}
    assert cache["cache_loss_tokens"] == alone["cache_loss_tokens"]
    assert {k: cache[k] for k in PER_SESSION} == {k: alone[k] for k in PER_SESSION}
    # not exported per call: null (with a note), never a number that looks measured
    assert cache["request_tokens_p50"] is None is cache["request_tokens_p95"]
    assert alone["request_tokens_p50"] is not None
    cost, priced = locust["cost"], asyncio_run["cost"]
    assert cost["priced_as"] == priced["priced_as"] == {"load-model": "gpt-4o-mini"}
    assert cost["per_session"] == priced["per_session"]
    # each figure is rounded to 1e-6 after summing, the same tokens summed in another order
    for key in ("total", "cache_saved", "cache_lost"):
        assert cost[key] == pytest.approx(priced[key], abs=2e-6), key


def test_the_test_process_never_imported_locust() -> None:
    assert "locust" not in sys.modules
    assert "gevent" not in sys.modules


THROTTLED = """\
id: throttled
title: One call in two throttled (429, Retry-After 0)
rules: ["10"]
providers:
  openai.main:
    kind: openai
    model: gpt-test
    context_window: 100000
    fake:
      script:
        - {fault: {kind: rate_limit, retry_after: 0}}
        - {text: "ok"}
system_prompt: "sys"
conversation:
  - user: "Which planets have rings around them?"
expect: {}
"""


@pytest.mark.integration
def test_locust_mode_times_the_waits_the_provider_asked_for(tmp_path: Path) -> None:
    """Issue 28: each 429's Retry-After wait is in the Locust summary's ``provider_waits``
    (aggregated from the workers' histograms), one per throttled call, as in asyncio mode."""
    scenario = tmp_path / "throttled.yaml"
    scenario.write_text(THROTTLED, encoding="utf-8")
    summary, stdout = _load(
        tmp_path,
        "locust",
        *("--locust", "--workers", str(WORKERS), "--sessions", str(WORKERS * SHARE)),
        *("--scenario", str(scenario), "--concurrency", "3", "--duration", "15"),
        "--max-failed-calls", "1",
    )  # fmt: skip
    calls = summary["calls_by_outcome"]
    assert calls["rate_limited"] == WORKERS * SHARE  # each session's first call
    assert summary["provider_waits"]["samples"] == calls["rate_limited"]
    assert summary["provider_waits"]["approximate"] is True
    assert "provider-asked waits" in stdout
