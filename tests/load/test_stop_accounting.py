"""Issue 28: a load run stopped by a real signal at a random moment, or by its fake server's
death, counts every call it made, and the summary, the metrics, the spans and the fake
server agree to the call."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from harness.load import LoadPlan, default_template, run_sessions
from harness.load.launcher import free_port
from harness.telemetry import multiprocess_registry, read_span_lines
from harness.telemetry import names as n
from tests.interrupting import (
    EXIT_FOR,
    Running,
    assert_nothing_left,
    finish,
    start,
    wait_for_process,
)
from tests.load.test_interrupted_load import SERVER, _wait_for_sessions

# ``trimscope`` with PROMETHEUS_MULTIPROC_DIR set before prometheus-client is imported: the
# metrics' values then live in files that outlast the process (``start`` clears the
# variable for the child, so it is set from the first argument here).
WITH_METRICS_FILES = (
    "import os, sys; os.environ['PROMETHEUS_MULTIPROC_DIR'] = sys.argv.pop(1);"
    " from harness.cli import main; sys.argv[0] = 'trimscope'; sys.exit(main())"
)
SEEDS = (1, 2, 3)


def _run(tmp_path: Path, *extra: str) -> tuple[Running, int, Path, Path, Path]:
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    out, spans, port = tmp_path / "load.json", tmp_path / "spans.jsonl", free_port()
    args = ["load", "--sessions", "100000", "--concurrency", "6", "--turns", "3"]
    args += ["--serve-metrics", str(port), "--json", str(out), "--otel-jsonl", str(spans)]
    command = [sys.executable, "-c", WITH_METRICS_FILES, str(metrics), *args, *extra]
    running = start([], tmp_path, command=command)
    return running, port, out, spans, metrics


def _counts(out: Path, spans: Path, metrics: Path) -> dict[str, Counter[str]]:
    """Calls by outcome as the summary, the fake server, the spans and the metrics say."""
    summary = json.loads(out.read_text(encoding="utf-8"))
    (server,) = summary["servers"]
    traced = Counter(  # an inference span's outcome: its error.type, if any
        _span_outcome(span["attributes"].get(n.ERROR_TYPE))
        for span in read_span_lines(spans)
        if span.get("kind") == "SpanKind.CLIENT"
    )
    registry = multiprocess_registry(metrics)
    counted: Counter[str] = Counter()
    for family in registry.collect():
        for sample in family.samples:
            if sample.name == n.PROVIDER_CALLS.name:
                counted[sample.labels[n.LABEL_OUTCOME]] += int(sample.value)
    return {
        "summary": Counter(summary["calls_by_outcome"]),
        "fake": Counter({"all": server["generation_requests"]}),
        "spans": traced,
        "metrics": counted,
    }


def _span_outcome(error_type: str | None) -> str:
    return "ok" if error_type is None else error_type


@pytest.mark.parametrize("seed", SEEDS)
def test_calls_in_flight_at_a_signal_are_counted_everywhere(tmp_path: Path, seed: int) -> None:
    """A real SIGINT or SIGTERM at a random moment of a run whose calls take 20 ms (so
    sessions are mostly inside one): summary = metrics = spans, by outcome, and their
    total = the fake server's own count; the calls in flight are ``cancelled``."""
    chance = random.Random(seed)
    running, port, out, spans, metrics = _run(tmp_path, "--latency-ms", "20")
    _wait_for_sessions(running, port)
    time.sleep(chance.uniform(0.0, 1.0))
    signum = chance.choice([signal.SIGINT, signal.SIGTERM])
    running.process.send_signal(signum)
    code, stdout, stderr = finish(running)
    assert code == EXIT_FOR[signum], stdout + stderr
    counts = _counts(out, spans, metrics)
    assert counts["summary"] == counts["metrics"], counts
    assert counts["summary"].total() == counts["spans"].total(), counts
    assert counts["summary"]["cancelled"] == counts["spans"]["cancelled"], counts
    assert counts["summary"].total() == counts["fake"]["all"], counts
    assert counts["summary"]["cancelled"] <= 6  # at most one call in flight per session
    assert_nothing_left(running)


def test_a_dead_fake_server_stops_the_run_at_once(tmp_path: Path) -> None:
    """SIGKILL to the fake server: the sessions stop within a moment (not at the 60 s
    cap), the refused calls are ``connect_error``, the summary says how the run ended,
    and the run fails (exit 1)."""
    running, port, out, _, _ = _run(tmp_path, "--duration", "60")
    server = wait_for_process(running, SERVER, timeout=60)
    _wait_for_sessions(running, port)
    killed = time.monotonic()
    os.kill(server, signal.SIGKILL)
    code, stdout, stderr = finish(running)
    took = time.monotonic() - killed
    assert code == 1, stdout + stderr
    assert "fake server died" in stdout
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["stopped_by"] == "server_died"
    assert summary["interrupted"] is False
    assert took < 20, took
    calls = summary["calls_by_outcome"]
    assert "server_error" not in calls
    assert calls.get("connect_error", 0) <= summary["failed_calls"]
    (death,) = summary["server_deaths"]
    assert death["exit_code"] == -signal.SIGKILL
    assert_nothing_left(running)


THROTTLED = """\
id: failing-and-throttled
title: One call in three fails (500), one in three is throttled (429, Retry-After 1 s)
rules: ["10"]
providers:
  openai.main:
    kind: openai
    model: gpt-test
    context_window: 100000
    fake:
      script:
        - {text: "ok"}
        - {fault: {kind: server_error}}
        - {fault: {kind: rate_limit, retry_after: 1}}
system_prompt: "sys"
conversation:
  - user: "Which planets have rings around them?"
  - user: "How many moons does Saturn have today?"
expect: {}
"""


@pytest.mark.parametrize(("threshold", "code"), [(None, 1), ("1", 0)])
def test_the_failure_threshold_is_an_option_and_waits_are_apart(
    tmp_path: Path, threshold: str | None, code: int
) -> None:
    """One call in three fails: more than the default 5% fails the run, not under
    ``--max-failed-calls 1``. Each 429's Retry-After wait is timed apart (one per
    throttled call), not as the harness's overhead."""
    out, scenario = tmp_path / "load.json", tmp_path / "failing-and-throttled.yaml"
    scenario.write_text(THROTTLED, encoding="utf-8")
    args = ["load", "--scenario", str(scenario), "--sessions", "4", "--concurrency", "2"]
    args += ["--turns", "3", "--json", str(out)]
    if threshold is not None:
        args += ["--max-failed-calls", threshold]
    running = start(args, tmp_path)
    got, stdout, stderr = finish(running)
    assert got == code, stdout + stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    calls = summary["calls_by_outcome"]
    assert calls["server_error"] == calls["rate_limited"] > 0
    assert summary["provider_waits"]["samples"] == calls["rate_limited"]
    assert summary["overhead"]["samples"] == summary["provider_calls"]


def test_a_refused_connection_is_an_outcome_of_its_own() -> None:
    """Nothing listens at the URL: every call is ``connect_error`` (a failed call), not
    ``server_error``; with no server process to watch, the sessions go on to the end."""
    template = default_template(context_window=100_000)
    with socket.socket() as unused:  # a port bound, never listened on: connections refused
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}"
        plan = LoadPlan(template, 2, 2, 2, 30.0, {template.providers[0].ref: url})
        summary = asyncio.run(run_sessions(plan))
    assert set(summary.calls_by_outcome) == {"connect_error"}
    assert summary.failed_calls == summary.provider_calls > 0
    assert summary.stopped_by == "count"
