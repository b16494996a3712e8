"""The goals ``python -m bench load`` judges: at an instantly answering fake, the issue 15
and 16 goals; with ``--latency-ms`` (50 in ``make bench``), only the observers' two rows,
within 1% (the rest is judged in the run without latency, so it is not judged twice)."""

from __future__ import annotations

from bench.load import HARNESS_RUNS, Measured, Memory, SessionLength, report
from bench.observer_floor import Floor


def _lines(observers_rate: float, *, latency_ms: int) -> list[str]:
    rates = {"baseline": 100.0, "harness": 100.0} | dict.fromkeys(HARNESS_RUNS, 100.0)
    rates["observers"] = observers_rate
    runs = {key: [Measured(1000, 1000 / rate, 1.0)] for key, rate in rates.items()}
    floor = Floor((110,), (100,), 10, {})
    said: list[str] = []
    report(
        runs, Memory(120.0, 10, 100, 0), floor, SessionLength(1.0, 2.0), said.append,
        latency_ms=latency_ms,
    )  # fmt: skip
    return "\n".join(said).splitlines()


def _row(lines: list[str], start: str) -> str:
    [line] = [line for line in lines if line.startswith(start)]
    return line


def test_with_latency_the_observers_are_judged_within_one_percent() -> None:
    lines = _lines(100 / 1.02, latency_ms=50)  # observers 2% slower
    assert _row(lines, "observers on vs off").endswith("≤ 1%: NOT MET")
    assert _row(lines, "observers, 1 trace in").endswith("≤ 1%: met")
    # the session-length ratio (2.0×) is judged in the run without latency, not here
    assert _row(lines, "the same in CPU").endswith("(judged at 0 ms latency)")


def test_without_latency_the_usual_goals_are_judged() -> None:
    lines = _lines(100 / 1.02, latency_ms=0)
    assert _row(lines, "observers on vs off").endswith("(information)")
    assert _row(lines, "the same in CPU").endswith("≤ 1.10×: NOT MET")
    assert _row(lines, "observers, 1 trace in").endswith("≤ 10%: met")
