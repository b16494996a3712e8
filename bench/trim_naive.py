"""(b) of ``python -m bench``: the reference's naive probe-per-turn loop (``bench/naive.py``)
against ``trim_to_recent_turns``, and how each one's time grows with the history."""

from __future__ import annotations

from functools import partial
from itertools import pairwise

from bench.naive import naive_trim_to_recent_turns
from bench.timing import fmt_ratio, fmt_time, measure, table
from bench.trim_common import Report, budget_for, repeats
from harness.runtime import ChatMessage, trim_to_recent_turns

MAX_SECONDS_B = 10.0
NAIVE_MAX_ROWS = 10_000  # the naive loop is not run above this (it would take minutes)
HEADERS = ("messages", "naive", "ours", "naive ÷ ours", "probes (turns dropped)", "identical")


def _not_run(size: int, pure: dict[int, float], naive_medians: dict[int, float]) -> list[str]:
    """The row of a size too large for the naive loop: its time extrapolated (quadratic)
    from the largest size it ran at."""
    last = max(naive_medians) if naive_medians else None
    guess = (
        f"≈ {fmt_time(naive_medians[last] * (size / last) ** 2)} (extrapolated)"
        if last
        else "not run"
    )
    return [f"{size:,}", f"not run: {guess}", fmt_time(pure[size]), "-", "-", "-"]


def _naive_row(
    size: int, history: list[ChatMessage], pure: dict[int, float], naive_medians: dict[int, float]
) -> list[str]:
    """Both trimmers measured at one size; ``pure`` and ``naive_medians`` get their medians."""
    budget = budget_for(history)
    expected = trim_to_recent_turns(history, budget)
    samples = measure(
        {
            "naive": partial(naive_trim_to_recent_turns, history, budget),
            "ours": partial(trim_to_recent_turns, history, budget),
        },
        3 if size >= NAIVE_MAX_ROWS else repeats(size),
        MAX_SECONDS_B,
        warmup=False,
    )
    sample, result = samples["naive"]
    ours = samples["ours"][0].median_ns
    pure[size] = ours
    naive_medians[size] = sample.median_ns
    return [
        f"{size:,}",
        f"{fmt_time(sample.median_ns)} ({sample.runs})",
        fmt_time(ours),
        fmt_ratio(sample.median_ns / ours),
        f"{expected.dropped_turns:,}",
        "yes" if result == expected else "NO",
    ]


def bench_naive(
    report: Report, histories: dict[int, list[ChatMessage]], pure: dict[int, float]
) -> None:
    report.say()
    report.say("(b) naive probe-per-turn port of spec 3.1 (bench/naive.py) vs trim_to_recent_turns")
    report.say("    same histories and budgets as (a)")
    naive_medians: dict[int, float] = {}
    rows = [
        _not_run(size, pure, naive_medians)
        if size > NAIVE_MAX_ROWS
        else _naive_row(size, history, pure, naive_medians)
        for size, history in histories.items()
    ]
    report.say()
    report.say(table(HEADERS, rows))
    sizes = sorted(pure)
    steps = [
        f"{a:,}→{b:,}: ours ×{pure[b] / pure[a]:.1f}"
        + (f", naive ×{naive_medians[b] / naive_medians[a]:.0f}" if b in naive_medians else "")
        for a, b in pairwise(sizes)
    ]
    report.say("    time growth between sizes (linear: the size ratio; quadratic: its square):")
    report.say("    " + "; ".join(steps))
    report.say(f"    the naive loop is not run above {NAIVE_MAX_ROWS:,} rows (minutes per call)")
