"""Issue 28: a soak with faults mixed by rate agrees to the call across every output (the
summary, the metrics file, the span file and the fake server's own count): a small
``python -m bench soak``, with a real ``trimscope load`` process and its fake server."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.soak import Counts, soak

SESSIONS, CONCURRENCY = 200, 20


def test_a_small_soak_with_faults_by_rate_agrees_across_every_output(tmp_path: Path) -> None:
    counts, code, _ = soak(tmp_path, SESSIONS, CONCURRENCY)
    assert code == 0
    assert counts.agree, counts.problems
    assert counts.sessions == SESSIONS
    # every drawn kind was met (a load fake applies its scenario's fault_rates): 5xx, 429,
    # hangs past the request timeout, and dropped or malformed bodies
    for outcome in ("ok", "server_error", "rate_limited", "timeout", "protocol_error"):
        assert counts.summary[outcome] > 0, counts.summary


def test_a_disagreement_is_named() -> None:
    summary = Counter({"ok": 9, "server_error": 1})
    counts = Counts(
        summary,
        Counter({"ok": 9}),
        Counter(summary),
        fake_calls=10,
        fake_statuses={"200": 9, "500": 1},
        orphan_spans=1,
        drawn=Counter(summary),
    )
    assert not counts.agree
    assert counts.problems == [
        "metrics {'ok': 9} != summary {'ok': 9, 'server_error': 1}",
        "1 spans whose parent is not in the file",
    ]
