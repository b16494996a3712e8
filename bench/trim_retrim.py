"""(c) of ``python -m bench``: append one turn to a history sitting at its budget, then
re-trim: the pure function against ``HistoryWindow`` (trim + apply, and trim in place)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.histories import HistoryGenerator
from bench.history_window import HistoryWindow, TrimStats
from bench.timing import CLOCK, fmt_ratio, fmt_time, gc_paused, table
from bench.trim_common import SEED, Report
from harness.runtime import (
    ChatMessage,
    estimate_history_tokens,
    insert_breadcrumb_deduped,
    trim_to_recent_turns,
)

RETRIM_STEPS = {1_000: 40, 10_000: 25, 100_000: 15}
HEADERS = (
    "messages",
    "pure function",
    "window: trim + apply",
    "window: trim_in_place",
    "pure ÷ window",
    "pure ÷ in place",
    "steps",
    "identical",
)


@dataclass
class RetrimRow:
    size: int
    pure: float
    window: float
    in_place: float
    identical: bool
    steps: int
    trimmed_steps: int


@dataclass
class _Lockstep:
    """The three re-trimmers of one history, stepped together: the pure function's rows
    and flag, a window trimmed then applied, a window trimmed in place; each one's CPU
    nanoseconds per step."""

    pure_rows: list[ChatMessage]
    budget: int
    full: HistoryWindow
    in_place: HistoryWindow
    flag: bool = False
    identical: bool = True
    trimmed_steps: int = 0
    times: tuple[list[int], list[int], list[int]] = field(default_factory=lambda: ([], [], []))

    def step(self, turn: list[ChatMessage]) -> None:
        # attributes read before the clocks start: the timed regions are the trims only
        pure_rows, budget, flag, full, in_place = (
            self.pure_rows,
            self.budget,
            self.flag,
            self.full,
            self.in_place,
        )
        pure_ns, full_ns, in_place_ns = self.times
        start = CLOCK()
        pure_rows.extend(turn)
        expected = trim_to_recent_turns(pure_rows, budget, flag)
        pure_ns.append(CLOCK() - start)

        start = CLOCK()
        full.extend(turn)
        result = full.trim_to_recent_turns(budget)
        full.apply(result)
        full_ns.append(CLOCK() - start)

        start = CLOCK()
        in_place.extend(turn)
        stats = in_place.trim_in_place(budget)
        in_place_ns.append(CLOCK() - start)

        self.identical &= result == expected and stats == TrimStats.of(expected)
        self.pure_rows = expected.history
        if expected.trimmed:
            self.trimmed_steps += 1
            self.pure_rows = insert_breadcrumb_deduped(self.pure_rows, flag)
            self.flag = True
            full.insert_breadcrumb()
            in_place.insert_breadcrumb()


def _retrim_size(size: int) -> RetrimRow:
    generator = HistoryGenerator(SEED + size)
    history = generator.history(size)
    budget = estimate_history_tokens(history)
    lockstep = _Lockstep(list(history), budget, HistoryWindow(history), HistoryWindow(history))
    steps = RETRIM_STEPS.get(size, 10)
    with gc_paused():
        for _ in range(steps):
            lockstep.step(generator.turn())
    identical = lockstep.identical and (
        lockstep.full.history() == lockstep.pure_rows == lockstep.in_place.history()
    )
    pure_ns, full_ns, in_place_ns = lockstep.times
    return RetrimRow(
        size,
        _median(pure_ns),
        _median(full_ns),
        _median(in_place_ns),
        identical,
        steps,
        lockstep.trimmed_steps,
    )


def bench_retrim(report: Report, sizes: Sequence[int]) -> list[RetrimRow]:
    report.say()
    report.say("(c) append one turn to a history sitting at its budget, then re-trim")
    report.say(
        "    budget = the history's own estimate; each step appends a fresh turn, trims,"
        " follows the"
    )
    report.say("    result and inserts the breadcrumb once (untimed); steps run in lockstep")
    results = [_retrim_size(size) for size in sizes]
    rows = [
        [
            f"{r.size:,}",
            fmt_time(r.pure),
            fmt_time(r.window),
            fmt_time(r.in_place),
            fmt_ratio(r.pure / r.window),
            fmt_ratio(r.pure / r.in_place),
            f"{r.steps} ({r.trimmed_steps} trimmed)",
            "yes" if r.identical else "NO",
        ]
        for r in results
    ]
    report.say()
    report.say(table(HEADERS, rows))
    report.say("    window: trim + apply returns the full TrimResult, whose history is a new list:")
    report.say("    that C-level copy of the kept rows is the part that grows with the history;")
    report.say("    trim_in_place returns the counters only (the window follows the trim).")
    return results


def _median(values: list[int]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2
