"""``python -m bench.observer_floor_alone``: the observers against their SDK floor, alone.

The same comparison ``python -m bench load`` makes among its goals (``observer_floor``),
without the load runs around it: one bench load run's events are recorded on its fake
server, then ``observer_floor.compare`` times both sides on them (about 10 s).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.load_runs import DiscardSpans
from bench.load_settings import CONCURRENCY, RUN_LIMIT_S, SESSIONS, TURNS
from bench.observer_floor import FLOOR_ROUNDS, EventRecorder, compare
from harness.load import FakeServers, LoadPlan, RunOptions, default_template, run_sessions
from harness.load.template import write_plan


def main(argv: Sequence[str] | None = None) -> int:
    """Record one bench load run (its plan, on its fake server) and compare on its events."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.observer_floor_alone", description=__doc__
    )
    parser.add_argument("--rounds", type=int, default=FLOOR_ROUNDS)
    args = parser.parse_args(argv)
    template = default_template()
    plan = LoadPlan(template, SESSIONS, CONCURRENCY, TURNS, RUN_LIMIT_S)
    ref = template.providers[0].ref
    recorder = EventRecorder()
    with tempfile.TemporaryDirectory(prefix="trimscope-bench-floor-") as scratch:
        write_plan(plan, Path(scratch) / "plan.json")
        with FakeServers(Path(scratch) / "plan.json", [ref], Path(scratch)) as servers:
            plan = plan.with_base_urls(servers.start())
            options = RunOptions(observers=(recorder,), session_prefix="events-")
            asyncio.run(run_sessions(plan, options))
    floor = compare(recorder.events, args.rounds, DiscardSpans)
    print(floor.summary())
    print(f"observers ÷ SDK floor: {floor.ratio:.3f}× (goal {floor.verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
