"""``trimscope load`` (asyncio) stopped by a real signal, and a fake server that dies: what
finished is summarised and marked, and nothing is left behind."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from harness.load import metrics as m
from harness.telemetry import multiprocess_registry
from harness.telemetry import names as n
from tests.interrupting import (
    EXIT_FOR,
    assert_nothing_left,
    finish,
    start,
    survivors,
    wait_for_process,
)

SERVER = "harness.load.server"
# More sessions than can run in the test's time: only a signal or a death stops it early.
ENDLESS = ["load", "--sessions", "100000", "--concurrency", "4", "--turns", "3"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_load_run_is_summarised_and_marked(
    tmp_path: Path, signum: signal.Signals
) -> None:
    out = tmp_path / "out" / "load.json"
    running = start([*ENDLESS, "--latency-ms", "10", "--json", out], tmp_path)
    wait_for_process(running, SERVER, timeout=60)
    time.sleep(2.0)  # sessions are running against it
    assert survivors(running.tmpdir)  # the check below can see a child: there is one now
    running.process.send_signal(signum)
    code, stdout, stderr = finish(running)
    assert code == EXIT_FOR[signum], stderr
    assert f"{signum.name} after" in stdout
    assert "(interrupted)" in stdout
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["interrupted"] is True
    assert summary["interrupted_by"] == signum.name
    assert summary["stopped_by"] == "signal"
    assert summary["sessions_completed"] > 0
    assert summary["sessions_started"] == (
        summary["sessions_completed"] + summary["sessions_interrupted"]
    )
    (server,) = summary["servers"]  # stopped in order: it reported its own counts
    # Calls cancelled in flight reached the server but never finished in the harness.
    in_flight = server["generation_requests"] - summary["provider_calls"]
    assert 0 <= in_flight <= 4
    assert summary["failed_calls"] == 0
    assert_nothing_left(running)
    assert [p.name for p in out.parent.iterdir()] == ["load.json"]


def test_a_fake_server_that_dies_is_named_and_the_failures_fail_the_run(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    running = start([*ENDLESS, "--duration", "6", "--json", out], tmp_path)
    server = wait_for_process(running, SERVER, timeout=60)
    time.sleep(1.5)
    os.kill(server, signal.SIGKILL)
    code, stdout, stderr = finish(running)
    assert code == 1, stdout + stderr
    assert "more than --max-failed-calls 5.0%" in " ".join(stderr.split())
    summary = json.loads(out.read_text(encoding="utf-8"))
    (death,) = summary["server_deaths"]
    assert death["ref"] == "openai.load"
    assert death["exit_code"] == -signal.SIGKILL
    assert 0 < death["after_s"] < 6
    assert 0 < death["failed_calls_after"] <= summary["failed_calls"]
    assert summary["failed_calls"] > 0.05 * summary["provider_calls"]
    assert "fake openai.load DIED" in stdout
    assert summary["interrupted"] is False
    assert_nothing_left(running)


def test_the_failure_threshold_is_an_option(tmp_path: Path) -> None:
    """The same death under ``--max-failed-calls 1``: reported, and not a failed run."""
    out = tmp_path / "load.json"
    running = start(
        [*ENDLESS, "--duration", "4", "--max-failed-calls", "1", "--json", out], tmp_path
    )
    server = wait_for_process(running, SERVER, timeout=60)
    time.sleep(1.5)  # it serves by now (it announces its URL within about a second)
    os.kill(server, signal.SIGKILL)
    code, stdout, stderr = finish(running)
    assert code == 0, stdout + stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert [d["ref"] for d in summary["server_deaths"]] == ["openai.load"]
    assert_nothing_left(running)


def test_a_fake_server_outlives_no_harness_killed_without_warning(tmp_path: Path) -> None:
    """SIGKILL leaves the harness no chance to stop its server: the server stops itself."""
    running = start(ENDLESS, tmp_path)
    server = wait_for_process(running, SERVER, timeout=60)
    time.sleep(3.0)  # serving: its URL is read (a server killed before it prints dies of EPIPE)
    running.process.kill()
    finish(running)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{server}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert survivors(running.tmpdir) == []


@pytest.mark.integration
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_locust_run_is_summarised_and_leaves_nothing(
    tmp_path: Path, signum: signal.Signals
) -> None:
    out = tmp_path / "load.json"
    args = ["load", "--locust", "--workers", "1", "--sessions", "100000", "--concurrency", "3"]
    running = start([*args, "--turns", "2", "--duration", "120", "--json", out], tmp_path)
    wait_for_process(running, "--worker", timeout=60)
    _wait_for_completed_sessions(running.tmpdir, timeout=60)
    running.process.send_signal(signum)
    code, stdout, stderr = finish(running, timeout=90)
    assert code == EXIT_FOR[signum], stdout + stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["mode"] == "locust"
    assert summary["interrupted"] is True
    assert summary["interrupted_by"] == signum.name
    assert summary["sessions_completed"] > 0  # aggregated from the worker's metrics files
    assert summary["elapsed_s"] < 60  # stopped, not run to its duration
    assert_nothing_left(running)


def _wait_for_completed_sessions(tmpdir: Path, timeout: float) -> None:
    """Until the workers' metrics (the run's multiprocess folder) count a completed session:
    Locust's processes take seconds to start on a busy machine."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for folder in tmpdir.glob("trimscope-locust-*/prometheus"):
            counts = m.by_labels(multiprocess_registry(folder), m.SESSIONS, n.LABEL_OUTCOME)
            if counts.get(("completed",), 0) > 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"no session completed within {timeout}s")
