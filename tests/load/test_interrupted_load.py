"""``trimscope load`` (asyncio) stopped by a real signal, and a fake server that dies: what
finished is summarised and marked, and nothing is left behind."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import struct
import time
from pathlib import Path

import httpx
import pytest

from harness.load import metrics as m
from harness.load.launcher import free_port
from harness.telemetry import multiprocess_registry, read_span_lines
from harness.telemetry import names as n
from tests.interrupting import (
    EXIT_FOR,
    Running,
    assert_nothing_left,
    finish,
    start,
    survivors,
    wait_for_process,
)

SERVER = "harness.load.server"
# More sessions than can run in the test's time: only a signal or a death stops it early.
ENDLESS = ["load", "--sessions", "100000", "--concurrency", "4", "--turns", "3"]
COMPLETED = re.compile(r'^trimscope_load_sessions_total\{outcome="completed"\} (\S+)$', re.M)


def _endless(tmp_path: Path, *extra: str | Path) -> tuple[Running, int]:
    """An endless load run serving its metrics on a free port (to watch it from outside)."""
    port = free_port()
    running = start([*ENDLESS, "--serve-metrics", str(port), *extra], tmp_path)
    return running, port


def _wait_for_sessions(running: Running, port: int, timeout: float = 90) -> None:
    """Until the run's own metrics count a completed session: the fake server is up and
    sessions run (a busy machine can take many seconds to get there)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and running.process.poll() is None:
        with contextlib.suppress(httpx.HTTPError):
            text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
            if (found := COMPLETED.search(text)) and float(found[1]) > 0:
                return
        time.sleep(0.2)
    running.process.kill()
    raise AssertionError(f"no session completed within {timeout}s")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_load_run_is_summarised_and_marked(
    tmp_path: Path, signum: signal.Signals
) -> None:
    out = tmp_path / "out" / "load.json"
    out.parent.mkdir()
    spans = tmp_path / "spans.jsonl"
    running, port = _endless(
        tmp_path,
        "--latency-ms",
        "10",
        "--json",
        out,
        "--otel-jsonl",
        spans,
        "--trace-sample",
        "0.01",
    )
    _wait_for_sessions(running, port)
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
    # Calls in flight at the signal are counted (``cancelled``), as the server counted them.
    assert server["generation_requests"] == summary["provider_calls"]
    assert summary["calls_by_outcome"].get("cancelled", 0) <= 4
    assert summary["failed_calls"] == 0
    assert_nothing_left(running)
    assert [p.name for p in out.parent.iterdir()] == ["load.json"]
    *traced, mark = read_span_lines(spans)  # the last line, however few turns were sampled
    assert (mark["name"], mark["attributes"]) == (
        n.SPAN_RUN_INTERRUPTED,
        {n.ATTR_RUN_SIGNAL: signum.name},
    )
    assert n.SPAN_RUN_INTERRUPTED not in {s["name"] for s in traced}


def test_a_fake_server_that_dies_is_named_and_fails_the_run(tmp_path: Path) -> None:
    """Issue 28: the death stops the sessions (``stopped_by``) and fails the run, whatever
    ``--max-failed-calls`` allows (the failed calls after it are few: it stops at once)."""
    out = tmp_path / "load.json"
    running, port = _endless(tmp_path, "--duration", "6", "--max-failed-calls", "1", "--json", out)
    server = wait_for_process(running, SERVER, timeout=60)
    _wait_for_sessions(running, port)
    os.kill(server, signal.SIGKILL)
    code, stdout, stderr = finish(running)
    assert code == 1, stdout + stderr
    assert "fake server openai.load died; the run was stopped" in stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    (death,) = summary["server_deaths"]
    assert death["ref"] == "openai.load"
    assert death["exit_code"] == -signal.SIGKILL
    assert 0 < death["after_s"] < 6
    assert 0 <= death["failed_calls_after"] <= summary["failed_calls"]
    assert summary["stopped_by"] == "server_died"
    assert "fake openai.load DIED" in stdout
    assert summary["interrupted"] is False
    assert_nothing_left(running)


def test_a_fake_server_outlives_no_harness_killed_without_warning(tmp_path: Path) -> None:
    """SIGKILL leaves the harness no chance to stop its server: the server stops itself."""
    running, port = _endless(tmp_path)
    server = wait_for_process(running, SERVER, timeout=60)
    _wait_for_sessions(running, port)  # serving (killed before it prints its URL, it dies of EPIPE)
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
            try:
                counts = m.by_labels(multiprocess_registry(folder), m.SESSIONS, n.LABEL_OUTCOME)
            except (struct.error, ValueError):
                # a worker's file read while the worker still creates it (empty or short):
                # prometheus-client reads the files unlocked; the next poll sees it whole
                continue
            if counts.get(("completed",), 0) > 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"no session completed within {timeout}s")


@pytest.mark.integration
def test_a_fake_server_that_dies_under_locust_is_named_too(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    args = ["load", "--locust", "--workers", "1", "--sessions", "100000", "--concurrency", "3"]
    running = start([*args, "--turns", "2", "--duration", "10", "--json", out], tmp_path)
    server = wait_for_process(running, SERVER, timeout=60)
    wait_for_process(running, "--worker", timeout=60)
    _wait_for_completed_sessions(running.tmpdir, timeout=60)
    os.kill(server, signal.SIGKILL)
    code, stdout, stderr = finish(running, timeout=120)
    assert code == 1, stdout + stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    (death,) = summary["server_deaths"]
    assert (death["ref"], death["exit_code"]) == ("openai.load", -signal.SIGKILL)
    assert death["failed_calls_after"] > 0
    assert summary["failed_calls"] >= death["failed_calls_after"]
    assert_nothing_left(running)


def test_a_signal_while_the_fake_server_starts_still_writes_a_marked_summary(
    tmp_path: Path,
) -> None:
    """Signalled as soon as the server process exists (usually before it serves): the run
    unwinds from wherever it was, and the contract holds either way."""
    out = tmp_path / "load.json"
    running = start([*ENDLESS, "--json", out], tmp_path)
    wait_for_process(running, SERVER, timeout=60)
    running.process.send_signal(signal.SIGTERM)
    code, stdout, stderr = finish(running)
    assert code == EXIT_FOR[signal.SIGTERM], stdout + stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert (summary["interrupted"], summary["interrupted_by"]) == (True, "SIGTERM")
    assert summary["sessions_started"] == (
        summary["sessions_completed"] + summary["sessions_interrupted"]
    )
    assert_nothing_left(running)
