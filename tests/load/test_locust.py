"""``trimscope load --locust``: Locust headless, master and one worker, for a few seconds.

Locust runs in its own processes (it monkey-patches the standard library with gevent on
import), so this test runs the command as a subprocess and never imports Locust itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRIMSCOPE = Path(sys.executable).with_name("trimscope")


@pytest.mark.integration
def test_locust_mode_runs_the_sessions_and_aggregates_their_metrics(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    command = [str(TRIMSCOPE), "load", "--locust", "--workers", "1", "--sessions", "6"]
    command += ["--concurrency", "3", "--turns", "2", "--duration", "15", "--json", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=90, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["mode"] == "locust"
    assert summary["sessions_completed"] == 6
    assert summary["stopped_by"] == "count"  # every worker ran its share, then quit
    assert summary["elapsed_s"] < 15 + 10
    (server,) = summary["servers"]
    # Aggregated from the worker's PROMETHEUS_MULTIPROC_DIR files = the fake's own count.
    assert summary["provider_calls"] == server["generation_requests"] > 0
    assert summary["overhead"]["samples"] == summary["provider_calls"]
    assert summary["overhead"]["approximate"] is True
    assert summary["turns_by_outcome"] == {"ok": 12}
    requests = {(r["type"], r["name"]): r for r in summary["locust_requests"]}
    assert requests["agent", "turn"]["requests"] == 12
    assert requests["provider", "openai.load"]["requests"] == summary["provider_calls"]
    assert "Locust requests" in done.stdout


def test_the_test_process_never_imported_locust() -> None:
    assert "locust" not in sys.modules
    assert "gevent" not in sys.modules
