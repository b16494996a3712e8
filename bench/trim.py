"""``python -m bench`` (``make bench``): trimming speed on generated 1k/10k/100k-row histories.

(a) ``trim_to_recent_turns`` against langchain-core's ``trim_messages``; (b) against the
reference's naive probe-per-turn loop; (c) re-trimming after one appended turn, pure
function against ``HistoryWindow``. Every ratio compares runs of this one invocation.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time
from collections.abc import Sequence
from functools import partial

from bench.histories import NON_ASCII_SHARE, HistoryGenerator
from bench.timing import measure
from bench.trim_common import MAX_SECONDS_A, SEED, SIZES, Report, budget_for, repeats
from bench.trim_goals import goals
from bench.trim_langchain import Medians, bench_langchain
from bench.trim_naive import bench_naive
from bench.trim_retrim import RetrimRow, bench_retrim
from harness.progress import Tracker, tracker
from harness.runtime import ChatMessage, trim_to_recent_turns

LANGCHAIN_MODULE = "langchain_core"
EXIT_MISSING_EXTRA = 2
MISSING_EXTRA = (
    "python -m bench: langchain-core is not installed (the bench extra, which `make bench`"
    " installs): run `make bench`, or `pip install -e '.[bench]'`, or add --skip-langchain"
)
STAGES = ("trim vs LangChain", "naive trim", "re-trim")
"""The measured stages, in order (the progress counts them)."""


def _arguments(given: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in SIZES),
        help="comma-separated history lengths (default: %(default)s)",
    )
    parser.add_argument("--skip-langchain", action="store_true", help="skip (a)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or status")
    return parser.parse_args(given)


def _histories(report: Report, sizes: list[int]) -> dict[int, list[ChatMessage]]:
    """The machine said, then the seeded histories made and described (the largest one's
    mean row size)."""
    report.say(
        f"trimscope bench: Python {platform.python_version()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} CPUs"
    )
    histories = {size: HistoryGenerator(SEED).history(size) for size in sizes}
    sample = histories[sizes[-1]]
    mean_bytes = sum(len(row.content.encode()) for row in sample) / len(sample)
    report.say(
        "histories: seeded; a system prompt, then turns of a user row (5% with an image),"
        " 0-3 tool rounds"
    )
    report.say(
        f"(60% native, 40% prompt-mode; 3% declare an image) and a reply; {mean_bytes:,.0f}"
        f" bytes/row on average; {NON_ASCII_SHARE:.0%} of the texts non-ASCII"
    )
    report.say(
        "times: CPU time (time.process_time_ns), median of the runs shown, garbage collector paused"
    )
    report.say()
    return histories


def main(argv: Sequence[str] | None = None) -> int:
    """The trimming-speed bench; exit 2 with one line when langchain-core is missing."""
    args = _arguments(list(sys.argv[1:] if argv is None else argv))
    if not args.skip_langchain and importlib.util.find_spec(LANGCHAIN_MODULE) is None:
        print(MISSING_EXTRA, file=sys.stderr)
        return EXIT_MISSING_EXTRA
    sizes = sorted(int(s) for s in args.sizes.split(","))

    began = time.perf_counter()
    report = Report([])
    histories = _histories(report, sizes)
    with tracker("bench stages", len(STAGES), quiet=args.quiet) as shown:
        medians, retrim = _stages(report, histories, sizes, args.skip_langchain, shown)
    goals(report, medians, retrim)
    report.say()
    report.say(f"total bench time {time.perf_counter() - began:.0f} s")
    return 0


def _warm_trims_only(histories: dict[int, list[ChatMessage]]) -> Medians:
    """``--skip-langchain``: only our warm trim, measured as (a) measures it."""
    medians: Medians = {}
    for size, history in histories.items():
        samples = measure(
            {"ours": partial(trim_to_recent_turns, history, budget_for(history))},
            repeats(size),
            MAX_SECONDS_A,
        )
        medians["ours", size] = samples["ours"][0].median_ns
    return medians


def _stages(
    report: Report,
    histories: dict[int, list[ChatMessage]],
    sizes: list[int],
    skip_langchain: bool,
    shown: Tracker,
) -> tuple[Medians, list[RetrimRow]]:
    shown.advance(0, detail=STAGES[0])
    medians = _warm_trims_only(histories) if skip_langchain else bench_langchain(report, histories)
    shown.advance(detail=STAGES[1])
    pure = {size: medians["ours", size] for size in sizes}
    bench_naive(report, histories, pure)
    histories.clear()
    shown.advance(detail=STAGES[2])
    retrim = bench_retrim(report, sizes)
    shown.advance()
    return medians, retrim
