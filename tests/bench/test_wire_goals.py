"""The verdicts ``python -m bench.wire`` prints (``bench.wire.goal_rows``), on given numbers:
memory per idle session against 4 KiB at each size, its flatness from the smallest to the
largest size against 1.1×, and the observer's CPU per request row at turn 1,000 against
turn 20 against 1.2× (per request and per KiB are information only)."""

from __future__ import annotations

from bench.wire import goal_rows
from bench.wire_runs import CHAT, TOOLS, CostRun, MemoryRun


def _memory(*per_session: float) -> list[MemoryRun]:
    sizes = (1_000, 10_000, 100_000)
    return [MemoryRun(CHAT.name, n, b, 1.0) for n, b in zip(sizes, per_session, strict=False)]


def _costs(short_ns: float, long_ns: float) -> list[CostRun]:
    # 40 rows at turn 20, 2,000 at turn 1,000; decoded at 3/4 of observe, floor 1/20
    return [
        CostRun(20, 40, 10_000, short_ns, short_ns * 0.75, short_ns / 20),
        CostRun(1_000, 2_000, 500_000, long_ns, long_ns * 0.75, long_ns / 20),
    ]


def _row(rows: list[list[str]], start: str) -> list[str]:
    [row] = [row for row in rows if row[0].startswith(start)]
    return row


def test_memory_under_4_kib_and_flat_is_met() -> None:
    rows = goal_rows(_memory(1_400, 1_390, 1_420), [])
    judged = [row for row in rows if row[0].startswith("memory per idle session")]
    assert [row[2] for row in judged] == ["≤ 4,096 B: met"] * 3
    assert _row(rows, "flat:") == [
        "flat: bytes per session at 100,000 ÷ at 1,000",
        "1.014×",
        "≤ 1.10×: met",
    ]


def test_memory_over_4_kib_or_growing_is_not_met() -> None:
    rows = goal_rows(_memory(3_000, 3_500, 4_200), [])
    assert _row(rows, "memory per idle session, 1,000")[2] == "≤ 4,096 B: met"
    assert _row(rows, "memory per idle session, 100,000")[2] == "≤ 4,096 B: NOT MET"
    assert _row(rows, "flat:")[1:] == ["1.400×", "≤ 1.10×: NOT MET"]
    # exactly at the bounds is met
    rows = goal_rows(_memory(3_724, 4_000, 4_096), [])
    assert _row(rows, "memory per idle session, 100,000")[2] == "≤ 4,096 B: met"
    assert _row(rows, "flat:")[2] == "≤ 1.10×: met"


def test_another_shape_is_information_only() -> None:
    rows = goal_rows([MemoryRun(TOOLS.name, 1_000, 9_999, 1.0)], [])
    assert rows == [
        [
            "memory per idle session, 1,000 sessions (tool round every turn)",
            "9,999 B",
            "(information)",
        ]
    ]


def test_cost_is_judged_per_row_and_the_growing_request_is_information() -> None:
    # 400 µs for 40 rows (10 µs a row), 22 ms for 2,000 (11 µs a row): 1.1×
    rows = goal_rows([], _costs(400_000, 22_000_000))
    judged = _row(rows, "observe CPU per request row")
    assert judged[1:] == ["1.10×", "≤ 1.20×: met"]
    assert "(11.0 µs / 10.0 µs)" in judged[0]
    whole = _row(rows, "observe CPU per request,")
    assert whole[1] == "55.0×"
    assert whole[2].startswith("(information")
    assert _row(rows, "observe_decoded")[2] == "(information)"


def test_cost_per_row_growing_past_1_2x_is_not_met() -> None:
    rows = goal_rows([], _costs(400_000, 26_000_000))  # 13 µs a row against 10: 1.3×
    assert _row(rows, "observe CPU per request row")[1:] == ["1.30×", "≤ 1.20×: NOT MET"]
