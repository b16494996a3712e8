"""Issue 28: a Locust run stopped by a real SIGINT at a random moment counts the calls in
flight then (``cancelled``), so its summary, its ``--metrics-out`` file and the fake server
agree to the call, with one worker or two."""

from __future__ import annotations

import json
import random
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from fakes import FakeProvider
from harness.load.fake import CountingLog, ServerStats
from harness.telemetry import names as n
from tests.interrupting import EXIT_FOR, assert_nothing_left, finish, start, wait_for_process
from tests.load.test_interrupted_load import _wait_for_completed_sessions

SEEDS = ((1, 1), (3, 2))
"""(seed, workers): the seed picks the moment of the signal."""
LATENCY_MS = 1500
"""Each call's latency: a session (3 turns, ~15 calls) outlasts Locust's stop timeout
(``STOP_TIMEOUT_S``, 10 s), so Locust kills the users still in one, inside a call; and
the call outlasts the fake server's graceful stop (1 s), so it may stop first."""


def _metrics_calls(path: Path) -> Counter[str]:
    """Provider calls by outcome in a ``--metrics-out`` file."""
    calls: Counter[str] = Counter()
    for family in text_string_to_metric_families(path.read_text(encoding="utf-8")):
        for sample in family.samples:
            if sample.name == n.PROVIDER_CALLS.name:
                calls[sample.labels[n.LABEL_OUTCOME]] += int(sample.value)
    return calls


@pytest.mark.integration
@pytest.mark.parametrize(("seed", "workers"), SEEDS, ids=[f"seed{s}-w{w}" for s, w in SEEDS])
def test_calls_in_flight_at_a_sigint_are_counted_under_locust(
    tmp_path: Path, seed: int, workers: int
) -> None:
    """At the signal every user is inside a call (see ``LATENCY_MS``): Locust stops them
    (gracefully, then by killing their greenlets) and each call a killed user was in is
    counted ``cancelled``, as the fake server counted it (answered, or ``unanswered``)."""
    chance = random.Random(seed)
    out, metrics = tmp_path / "load.json", tmp_path / "metrics.prom"
    args = ["load", "--locust", "--workers", str(workers), "--sessions", "100000"]
    args += ["--concurrency", "6", "--turns", "3", "--latency-ms", str(LATENCY_MS)]
    args += ["--duration", "120"]
    running = start([*args, "--json", out, "--metrics-out", metrics], tmp_path)
    wait_for_process(running, "--worker", timeout=60)
    _wait_for_completed_sessions(running.tmpdir, timeout=60)
    time.sleep(chance.uniform(0.0, 2.0))
    running.process.send_signal(signal.SIGINT)
    code, stdout, stderr = finish(running, timeout=90)
    assert code == EXIT_FOR[signal.SIGINT], stdout + stderr
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["interrupted_by"] == "SIGINT"
    calls = Counter(summary["calls_by_outcome"])
    (server,) = summary["servers"]
    assert calls.total() == summary["provider_calls"] == server["generation_requests"], calls
    assert calls == _metrics_calls(metrics), calls
    assert calls["cancelled"] <= 6  # at most one call in flight per user
    # a killed user's turn is cancelled too (it had counted as ok): one call in it each
    assert summary["turns_by_outcome"].get("cancelled", 0) == calls["cancelled"], summary
    assert_nothing_left(running)


def test_a_call_the_fake_read_but_never_answered_is_counted_unanswered() -> None:
    """A call held by its latency when the fake server stopped: numbered, never recorded.
    It is one of the fake's generation requests (the harness counts it ``cancelled``)."""
    fake = FakeProvider("openai", "m", context_window=1000)
    fake.log = CountingLog()
    fake.take_call()
    stats = ServerStats.from_fake("openai.load", fake, 0.0, 0.0)
    assert (stats.generation_requests, stats.unanswered, stats.outcomes) == (1, 1, {})
