"""(a) of ``python -m bench``: ``trim_to_recent_turns`` (warm, cold, as a ``HistoryWindow``,
and the cold floor) against langchain-core's ``trim_messages``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import compress
from operator import attrgetter, methodcaller, not_

from bench.history_window import HistoryWindow
from bench.timing import Sample, fmt_ratio, fmt_time, measure, table
from bench.trim_common import MAX_SECONDS_A, Report, budget_for, repeats
from harness.runtime import ChatMessage, TrimResult, trim_to_recent_turns

Medians = dict[tuple[str, int], float]
"""Median CPU nanoseconds per (engine or langchain counter, history size)."""

TIMING_HEADERS = (
    "messages",
    "trim_to_recent_turns",
    "… cold rows",
    "HistoryWindow(h).trim…",
    "floor (cold)",
    "lc, chars/4 fn",
    "lc, count_tokens_approx.",
    "runs",
)
RATIO_HEADERS = (
    "messages",
    "lc chars/4 ÷ pure",
    "÷ cold",
    "÷ window",
    "÷ floor",
    "lc approx ÷ pure",
    "÷ cold",
    "÷ window",
    "÷ floor",
    "kept: ours",
    "lc chars/4",
    "lc approx",
    "same count",
)
ENGINES = ("ours", "cold", "window", "floor")
"""Our engines, in the tables' column order (``_engine_calls`` builds them)."""


class _ColdTrim:
    """``trim_to_recent_turns`` on rows it has never seen: each call takes a fresh copy of
    the history (made before the clock starts), so no cost remembered on a row helps.
    Real sessions re-trim the same rows every turn (the warm case, "ours"); a restored
    session or a one-off trim is the cold case."""

    def __init__(self, history: list[ChatMessage], budget: int, runs: int) -> None:
        self._budget = budget
        self._copies = [[ChatMessage(r.role, r.content) for r in history] for _ in range(runs)]

    def __call__(self) -> TrimResult:
        return trim_to_recent_turns(self._copies.pop(), self._budget)


class _ColdFloor:
    """The least any exact trimmer must do on rows never seen: read every row's content
    and count its UTF-8 bytes (length for ASCII text, an encode for the rest), in C-level
    passes, on fresh copies like ``_ColdTrim``. No Python loop touches a row. The cold
    trim cannot be faster than this; the ratio lc ÷ floor bounds the cold trim's ratio."""

    def __init__(self, history: list[ChatMessage], runs: int) -> None:
        self._copies = [[ChatMessage(r.role, r.content) for r in history] for _ in range(runs)]

    def __call__(self) -> int:
        contents = list(map(_CONTENT, self._copies.pop()))
        wide = list(compress(contents, map(not_, map(str.isascii, contents))))
        extra = sum(map(len, map(_ENCODE, wide))) - sum(map(len, wide))
        return sum(map(len, contents)) + extra


_CONTENT = attrgetter("content")
_ENCODE = methodcaller("encode", "utf-8", "surrogatepass")


def _fresh_window_trim(history: list[ChatMessage], budget: int) -> TrimResult:
    return HistoryWindow(history).trim_to_recent_turns(budget)


def _engine_calls(
    history: list[ChatMessage], budget: int, size: int
) -> dict[str, Callable[[], object]]:
    return {
        "ours": partial(trim_to_recent_turns, history, budget),
        "cold": _ColdTrim(history, budget, repeats(size) + 1),
        "window": partial(_fresh_window_trim, history, budget),
        "floor": _ColdFloor(history, repeats(size) + 1),
    }


@dataclass(frozen=True, slots=True)
class _SizeRows:
    """One history size measured: its medians and its row of each table."""

    medians: Medians
    timing: list[str]
    ratios: list[str]


def _measure_size(size: int, history: list[ChatMessage]) -> _SizeRows:
    from bench.lc import COUNTERS, lc_trim, to_langchain  # noqa: PLC0415 (the bench extra)

    budget = budget_for(history)
    messages = to_langchain(history)
    calls = _engine_calls(history, budget, size)
    for name, counter in COUNTERS.items():
        calls[name] = partial(lc_trim, messages, budget, counter)
    samples = measure(calls, repeats(size), MAX_SECONDS_A)
    ours_result = samples["ours"][1]
    assert isinstance(ours_result, TrimResult)
    assert samples["window"][1] == ours_result, "HistoryWindow differs from the pure function"
    assert samples["cold"][1] == ours_result, "a cold trim differs from a warm one"
    ours: dict[str, Sample] = {engine: samples[engine][0] for engine in ENGINES}
    medians = {(engine, size): sample.median_ns for engine, sample in ours.items()}
    lc_cells, kept_cells, ratio_cells, same_cells = [], [], [], []
    for name in COUNTERS:
        sample, kept = samples[name]
        assert isinstance(kept, list)
        medians[name, size] = sample.median_ns
        lc_cells.append(fmt_time(sample.median_ns))
        kept_cells.append(f"{len(kept):,}")
        same_cells.append("yes" if len(kept) == len(ours_result.history) else "no")
        ratio_cells += [fmt_ratio(sample.median_ns / ours[e].median_ns) for e in ENGINES]
    timing = [
        f"{size:,}",
        *(fmt_time(ours[engine].median_ns) for engine in ENGINES),
        *lc_cells,
        str(ours["ours"].runs),
    ]
    kept = [f"{len(ours_result.history):,}", *kept_cells, " / ".join(same_cells)]
    return _SizeRows(medians, timing, [f"{size:,}", *ratio_cells, *kept])


def bench_langchain(report: Report, histories: dict[int, list[ChatMessage]]) -> Medians:
    # Imported here so that --skip-langchain runs without the bench extra.
    from bench.lc import LANGCHAIN_CORE_VERSION  # noqa: PLC0415

    report.say(
        f"(a) trim_to_recent_turns vs langchain-core {LANGCHAIN_CORE_VERSION} trim_messages("
        'strategy="last", start_on="human", max_tokens=<same budget>)'
    )
    report.say("    budget: 2/3 of the history's estimate; messages converted once, untimed")
    medians: Medians = {}
    timing_rows, ratio_rows = [], []
    for size, history in histories.items():
        measured = _measure_size(size, history)
        medians |= measured.medians
        timing_rows.append(measured.timing)
        ratio_rows.append(measured.ratios)
    _say_tables(report, timing_rows, ratio_rows)
    return medians


def _say_tables(report: Report, timing_rows: list[list[str]], ratio_rows: list[list[str]]) -> None:
    report.say()
    report.say(table(TIMING_HEADERS, timing_rows))
    report.say("    trim_to_recent_turns = rows trimmed before (costs remembered on each row, the")
    report.say("    steady state of a session); … cold rows = rows never measured before (first")
    report.say(
        "    trim of a restored session); HistoryWindow(h).trim… = build a window, then trim"
    )
    report.say("    floor (cold) = only count every cold row's UTF-8 bytes, in C-level passes: no")
    report.say("    exact trimmer of cold rows can beat it (lc ÷ floor bounds lc ÷ cold)")
    report.say()
    report.say(table(RATIO_HEADERS, ratio_rows))
    report.say(
        "    ratio > 1: ours is faster. Kept counts differ by design: langchain starts at any"
    )
    report.say("    human message (carriers too), prices characters, and its counters frame rows")
    report.say("    differently; ours counts UTF-8 bytes and image rules (spec 5).")
