"""``python -m bench.wire``: the wire observer's memory per idle session and its CPU per request.

(a) Memory: ``--sizes`` sessions (1,000, 10,000, 100,000) each observed once with the last
call of a typical session (a system prompt and 10 chat turns: 20 request rows, the answer
one more), then left idle; ``tracemalloc`` counts the bytes still held, after ``gc``, the
decoded rows released. A 25-turn session with a tool round in every turn (101 rows) is
measured too, for information. A line checks that a session fed turn by turn holds what
one fed only its last call holds (the observer keeps only its last call's prints).

(b) CPU per request: ``observe`` on real ``openai_chat`` bytes (bodies built beforehand)
of a session at turn 20 and at turn 1,000, its previous turn observed first, untimed.
The whole history is sent on every request, so the cost of a request grows with it; the
goal is judged per row of the request (the work per unit of what the wire makes the
observer read). Beside it: per request, per KiB, ``observe_decoded`` (decoding skipped)
and ``json.loads`` of the request body (the floor: the least any observer of this wire
does).

Every ratio compares figures of this one run.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Sequence
from typing import Final

from bench.timing import fmt_time, table
from bench.wire_runs import (
    CHAT,
    COST_ROUNDS,
    COST_TURNS,
    HEADER,
    SIZES,
    TOOL_SIZES,
    TOOLS,
    CostRun,
    MemoryRun,
    cost,
    idle_memory,
    profile,
)

GOAL_BYTES: Final = 4096
GOAL_FLAT: Final = 1.1
GOAL_COST: Final = 1.2


# ---------------------------------------------------------------------------------- goals


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def _memory_rows(memory: Sequence[MemoryRun]) -> list[list[str]]:
    """Memory per idle session: the chat shape judged at each size and flat across sizes;
    any other shape for information."""
    rows: list[list[str]] = []
    judged = sorted((run for run in memory if run.shape == CHAT.name), key=lambda r: r.sessions)
    for run in judged:
        rows.append(
            [
                f"memory per idle session, {run.sessions:,} sessions ({CHAT.describe()})",
                f"{run.per_session:,.0f} B",
                f"≤ {GOAL_BYTES:,} B: {verdict(run.per_session <= GOAL_BYTES)}",
            ]
        )
    if len(judged) > 1:
        first, last = judged[0], judged[-1]
        flat = last.per_session / first.per_session
        rows.append(
            [
                f"flat: bytes per session at {last.sessions:,} ÷ at {first.sessions:,}",
                f"{flat:.3f}×",
                f"≤ {GOAL_FLAT:.2f}×: {verdict(flat <= GOAL_FLAT)}",
            ]
        )
    for run in memory:
        if run.shape != CHAT.name:
            rows.append(
                [
                    f"memory per idle session, {run.sessions:,} sessions ({run.shape})",
                    f"{run.per_session:,.0f} B",
                    "(information)",
                ]
            )
    return rows


def _cost_rows(short: CostRun, long: CostRun) -> list[list[str]]:
    """CPU per request at the longest turn against the shortest: judged per row of the
    request, for information per request, per KiB and with decoding skipped."""
    per_row = long.per_row / short.per_row
    versus = f"turn {long.turns:,} ÷ turn {short.turns}"
    decoded = (long.decoded_ns / long.rows) / (short.decoded_ns / short.rows)
    return [
        [
            f"observe CPU per request row, {versus}"
            f" ({fmt_time(long.per_row)} / {fmt_time(short.per_row)})",
            f"{per_row:.2f}×",
            f"≤ {GOAL_COST:.2f}×: {verdict(per_row <= GOAL_COST)}",
        ],
        [
            f"observe CPU per request, {versus}"
            f" ({fmt_time(long.observe_ns)} / {fmt_time(short.observe_ns)};"
            f" {long.rows:,} / {short.rows} rows)",
            f"{long.observe_ns / short.observe_ns:.1f}×",
            "(information: the whole history is sent every time)",
        ],
        [
            f"observe CPU per KiB of request, {versus}",
            f"{long.per_kib / short.per_kib:.2f}×",
            "(information)",
        ],
        [f"observe_decoded CPU per request row, {versus}", f"{decoded:.2f}×", "(information)"],
    ]


def goal_rows(memory: Sequence[MemoryRun], costs: Sequence[CostRun]) -> list[list[str]]:
    """The goals table's rows: measure, value, goal and verdict (the chat shape is judged,
    any other shape is information)."""
    rows = _memory_rows(memory)
    if len(costs) > 1:
        short, long = min(costs, key=lambda c: c.turns), max(costs, key=lambda c: c.turns)
        rows += _cost_rows(short, long)
    return rows


# ----------------------------------------------------------------------------------- main


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.wire", description=__doc__)
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in SIZES),
        help="comma-separated session counts (default: %(default)s)",
    )
    parser.add_argument("--rounds", type=int, default=COST_ROUNDS)
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile the long requests' observe"
    )
    return parser.parse_args(argv)


def say(text: str = "") -> None:
    print(text, flush=True)


def _memory(sizes: list[int]) -> list[MemoryRun]:
    """(a): every size of the chat shape, the tool shape at its sizes, then the check that
    a session fed every call holds what one fed its last call holds."""
    say(f"(a) memory per idle session: tracemalloc after gc, decoded rows released; {HEADER}")
    say(f"    names each session; {CHAT.describe()}; {TOOLS.describe()}")
    memory = [idle_memory(CHAT, size) for size in sizes]
    memory += [idle_memory(TOOLS, size) for size in sizes if size in TOOL_SIZES]
    say(
        table(
            ["session", "sessions", "bytes per session", "run (CPU)"],
            [
                [r.shape, f"{r.sessions:,}", f"{r.per_session:,.0f}", f"{r.seconds:.1f} s"]
                for r in memory
            ],
        )
    )
    check = idle_memory(CHAT, sizes[0], every_turn=True)
    say(
        f"    {CHAT.name}, fed every call of its conversation instead of its last only"
        f" ({sizes[0]:,} sessions): {check.per_session:,.0f} B"
    )
    return memory


COST_HEADERS = (
    "turn",
    "rows",
    "request",
    "observe",
    "per row",
    "per KiB",
    "observe_decoded",
    "floor",
    "observe ÷ floor",
)


def _costs(rounds: int) -> list[CostRun]:
    """(b): the CPU per request at each of ``COST_TURNS``."""
    say("(b) CPU per request (time.process_time_ns, median, gc paused), openai_chat bytes of a")
    say("    chat session, its previous turn observed first; floor: json.loads of the request")
    costs = cost(COST_TURNS, rounds)
    rows = [
        [
            f"{c.turns:,}",
            f"{c.rows:,}",
            f"{c.body_bytes / 1024:,.1f} KiB",
            fmt_time(c.observe_ns),
            fmt_time(c.per_row),
            fmt_time(c.per_kib),
            fmt_time(c.decoded_ns),
            fmt_time(c.floor_ns),
            f"{c.observe_ns / c.floor_ns:.1f}×",
        ]
        for c in costs
    ]
    say(table(COST_HEADERS, rows))
    return costs


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    began = time.perf_counter()
    say(
        f"trimscope bench.wire: Python {platform.python_version()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} CPUs"
    )
    memory = _memory(sizes)
    say()
    costs = _costs(args.rounds)
    if args.profile:
        say()
        say(f"cProfile of observe at turn {COST_TURNS[-1]:,} (own time):")
        say(profile(COST_TURNS[-1], 5))
    say()
    say("Goals (the request's cost is judged per row: every request carries the whole history,")
    say("so the observer must read more at turn 1,000; what must not grow is the work per row)")
    say(table(["measure", "value", "goal"], goal_rows(memory, costs)))
    say()
    say(f"total bench time {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
