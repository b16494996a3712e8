"""The goals ``python -m bench.proxy`` judges, from figures given here (no timing): the
added p99 at 50 sessions against 2 ms and the proxy's CPU per request against 1.3× the
bare pass-through's, each ``met`` or ``NOT MET``; other loads are information."""

from __future__ import annotations

import dataclasses

from bench.proxy import Figures, Runs, figures, percentile, report
from bench.proxy_hop import added, hop


def _figures(sessions: int, proxy_p99: float, proxy_cpu: float) -> Figures:
    return Figures(
        sessions,
        p50_ms={"direct": 10.0, "proxy": 11.0, "bare": 10.5},
        p99_ms={"direct": 20.0, "proxy": proxy_p99, "bare": 20.5},
        cpu_ms_per_call={"proxy": proxy_cpu, "bare": 1.0},
    )


def _row(results: list[Figures], start: str) -> str:
    said: list[str] = []
    report(results, said.append)
    [line] = [line for line in "\n".join(said).splitlines() if line.startswith(start)]
    return " ".join(line.split())  # the table's padding aside


def test_the_goals_at_50_sessions_say_met_within_them() -> None:
    results = [_figures(50, proxy_p99=21.5, proxy_cpu=1.3)]
    assert _row(results, "added latency p99, 50").endswith("+1.50 ms ≤ 2 ms: met")
    assert _row(results, "proxy CPU per request").endswith("1.30× ≤ 1.3×: met")
    assert _row(results, "added latency p50, 50").endswith("(information)")


def test_the_goals_at_50_sessions_say_not_met_beyond_them() -> None:
    results = [_figures(50, proxy_p99=22.5, proxy_cpu=1.31)]
    assert _row(results, "added latency p99, 50").endswith("+2.50 ms ≤ 2 ms: NOT MET")
    assert _row(results, "proxy CPU per request").endswith("≤ 1.3×: NOT MET")


def test_other_loads_are_information_and_an_unfinished_one_says_why() -> None:
    unfinished = Figures(500, {}, {}, {}, unfinished="a run took over 120 s")
    results = [_figures(1, proxy_p99=99.0, proxy_cpu=9.0), unfinished]
    assert _row(results, "added latency p99, 1 ").endswith("(information)")
    assert _row(results, "proxy CPU per request").endswith("(information)")
    assert _row(results, "500 sessions").endswith("not run to the end (a run took over 120 s)")


def test_figures_are_percentiles_of_every_request_and_the_median_rounds_cpu() -> None:
    runs = Runs(50, latencies_ms={"direct": [float(i) for i in range(1, 101)]},
                cpu_ms_per_call={"proxy": [2.0, 9.0, 2.2]})  # fmt: skip
    result = figures(runs)
    assert result.p50_ms["direct"] == 50.5
    assert result.p99_ms["direct"] == percentile(runs.latencies_ms["direct"], 0.99) == 100.0
    assert result.cpu_ms_per_call == {"proxy": 2.2}  # the median round


def test_a_proxy_faster_than_the_direct_run_at_p99_is_inconclusive_not_met() -> None:
    """A negative added p99 says the direct run's own tail was longer in that run: noise
    of a shared machine, not a measurement of the proxy."""
    results = [_figures(50, proxy_p99=15.0, proxy_cpu=1.0)]
    row = _row(results, "added latency p99, 50")
    assert row.endswith("-5.00 ms ≤ 2 ms: inconclusive (direct's own p99 larger)")


def _hop_rows(within_2ms: float) -> tuple[str, str]:
    """The time-in-proxy rows for 1,000 requests, ``within_2ms`` of them at most 2 ms."""
    count = 1000.0
    buckets = {0.001: count * 0.6, 0.002: count * within_2ms, 0.005: count,
               float("inf"): count}  # fmt: skip
    result = dataclasses.replace(_figures(50, proxy_p99=21.0, proxy_cpu=1.0), hop=hop(buckets))
    return _row([result], "time in proxy p50, 50"), _row([result], "time in proxy p99, 50")


def test_the_time_in_proxy_is_met_when_99_percent_of_hops_are_within_2_ms() -> None:
    p50, p99 = _hop_rows(0.99)
    assert p50.endswith("≤ 1 ms (information)")
    assert p99.endswith("≤ 2 ms (99.0% of 1000 ≤ 2 ms) ≤ 2 ms: met")
    p50, p99 = _hop_rows(0.989)
    assert p99.endswith("≤ 5 ms (98.9% of 1000 ≤ 2 ms) ≤ 2 ms: NOT MET")


def test_the_hop_of_a_round_is_what_the_histogram_gained_in_it() -> None:
    before = {0.001: 5.0, 0.002: 7.0, float("inf"): 9.0}
    after = {0.001: 105.0, 0.002: 207.0, float("inf"): 209.0}
    assert added(before, after) == {0.001: 100.0, 0.002: 200.0, float("inf"): 200.0}
    assert added({}, before) == before
