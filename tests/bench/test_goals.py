"""The verdicts ``python -m bench`` prints for its speed goals (``bench.trim_goals.goals``):
a cold trim that misses 10× while even the floor is under 10× says so on its own line,
with the ratios that prove it; one that misses with room under the floor is plain NOT MET."""

from __future__ import annotations

from bench.trim_common import Report
from bench.trim_goals import GOAL_SIZE, goals

LC = "chars/4 function"


def _cold_line(lc_ms: float, cold_ms: float, floor_ms: float) -> str:
    medians = {
        (LC, GOAL_SIZE): lc_ms * 1e6,
        ("ours", GOAL_SIZE): 1e6,
        ("cold", GOAL_SIZE): cold_ms * 1e6,
        ("window", GOAL_SIZE): 1e6,
        ("floor", GOAL_SIZE): floor_ms * 1e6,
    }
    report = Report([])
    goals(report, medians, [])
    [line] = [line for line in "\n".join(report.lines).splitlines() if "cold rows" in line]
    return line


def test_a_cold_miss_bound_by_the_floor_prints_the_proof_on_its_line() -> None:
    line = _cold_line(lc_ms=18.0, cold_ms=7.2, floor_ms=3.0)  # lc ÷ floor 6.0×
    assert "NOT MET — floor-bound: cold ÷ floor 2.4×, lc ÷ floor 6.0× < 10×" in line


def test_a_cold_miss_with_room_under_the_floor_is_plainly_not_met() -> None:
    line = _cold_line(lc_ms=60.0, cold_ms=7.5, floor_ms=3.0)  # 8×, the floor allows 20×
    assert line.rstrip().endswith("NOT MET")
    assert "floor-bound" not in line


def test_a_cold_trim_at_10x_is_met() -> None:
    assert _cold_line(lc_ms=60.0, cold_ms=5.0, floor_ms=3.0).rstrip().endswith("met")
