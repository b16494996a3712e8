"""The speed goals ``python -m bench`` judges, each printed met / NOT MET."""

from __future__ import annotations

from itertools import pairwise

from bench.timing import fmt_ratio, fmt_time, table
from bench.trim_common import Report
from bench.trim_langchain import Medians
from bench.trim_retrim import RetrimRow

GOAL_SIZE = 10_000
"""The history size (rows) the speed goals are stated at."""
GOAL_SPEEDUP_OVER_LC = 10
"""Our trim at least this many times faster than langchain's at ``GOAL_SIZE``."""
GOAL_MAX_GROWTH_RATIO = 2
"""Linear: time growth divided by size growth stays under this between sizes."""
GOAL_RETRIM_NS = 1e6
"""A window re-trim after one appended turn under a millisecond."""
WARM_100K_GOAL = 30.0  # issue 15: warm trims at 100k messages against lc chars/4
WARM_GOAL_SIZE = 100_000
"""The history size (rows) the warm-trim goal (``WARM_100K_GOAL``) is stated at."""
LC_COUNTERS = ("chars/4 function", "count_tokens_approximately")
ENGINE_LABELS = (
    ("ours", "trim_to_recent_turns"),
    ("cold", "trim_to_recent_turns, cold rows"),
    ("window", "HistoryWindow"),
)


def _speedup_rows(medians: Medians, name: str) -> list[list[str]]:
    """At ``GOAL_SIZE``, each engine against langchain's ``name`` counter, then the bound
    the cold floor puts on a cold trim."""
    rows = []
    bound = medians[name, GOAL_SIZE] / medians["floor", GOAL_SIZE]
    for engine, label in ENGINE_LABELS:
        ratio = medians[name, GOAL_SIZE] / medians[engine, GOAL_SIZE]
        verdict = "met" if ratio >= GOAL_SPEEDUP_OVER_LC else "NOT MET"
        if engine == "cold" and verdict != "met" and bound < GOAL_SPEEDUP_OVER_LC:
            # The proof on the verdict's own line: even the floor is under 10×.
            cold = medians["cold", GOAL_SIZE] / medians["floor", GOAL_SIZE]
            verdict = (
                f"NOT MET — floor-bound: cold ÷ floor {fmt_ratio(cold)}, lc ÷ floor"
                f" {fmt_ratio(bound)} < {GOAL_SPEEDUP_OVER_LC}×"
            )
        rows.append([f"10k: {label} ≥ 10× faster than lc ({name})", fmt_ratio(ratio), verdict])
    rows.append(
        [
            f"   (information) lc ({name}) ÷ floor: the most a cold trim can reach",
            fmt_ratio(bound),
            "",
        ]
    )
    return rows


def _growth_rows(medians: Medians) -> list[list[str]]:
    """The warm trim at 100k against lc, and the worst time growth over size growth."""
    rows = []
    if ("chars/4 function", WARM_GOAL_SIZE) in medians:
        ratio = medians["chars/4 function", WARM_GOAL_SIZE] / medians["ours", WARM_GOAL_SIZE]
        rows.append(
            [
                "100k: trim_to_recent_turns ≥ 30× faster than lc (chars/4 function)",
                fmt_ratio(ratio),
                "met" if ratio >= WARM_100K_GOAL else "NOT MET",
            ]
        )
    sizes = sorted(size for engine, size in medians if engine == "ours")
    if len(sizes) > 1:
        worst = max((medians["ours", b] / medians["ours", a]) / (b / a) for a, b in pairwise(sizes))
        rows.append(
            [
                "trim_to_recent_turns linear (growth ÷ size growth)",
                f"{worst:.2f}",
                "met" if worst < GOAL_MAX_GROWTH_RATIO else "NOT MET",
            ]
        )
    return rows


def _retrim_rows(retrim: list[RetrimRow]) -> list[list[str]]:
    """The re-trim at the largest size under a millisecond, and every size identical."""
    rows = []
    for row in retrim:
        if row.size == max(r.size for r in retrim):
            for label, value in (("trim + apply", row.window), ("trim_in_place", row.in_place)):
                rows.append(
                    [
                        f"{row.size:,}: window re-trim ({label}) < 1 ms",
                        fmt_time(value),
                        "met" if value < GOAL_RETRIM_NS else "NOT MET",
                    ]
                )
    rows.append(
        [
            "window results identical to the pure function",
            "all sizes" if all(r.identical for r in retrim) else "some differ",
            "met" if all(r.identical for r in retrim) else "NOT MET",
        ]
    )
    return rows


def goals(report: Report, medians: Medians, retrim: list[RetrimRow]) -> None:
    report.say()
    report.say("Goals")
    rows = []
    if GOAL_SIZE in {size for _, size in medians}:
        for name in LC_COUNTERS:
            if (name, GOAL_SIZE) in medians:  # else langchain skipped (--skip-langchain)
                rows += _speedup_rows(medians, name)
    rows += _growth_rows(medians) + _retrim_rows(retrim)
    report.say(table(["goal", "measured", ""], rows))
