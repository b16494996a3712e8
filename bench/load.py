"""``python -m bench load``: what the harness costs under load, against a baseline of this run.

Everything runs against one fake-server process (uvicorn on 127.0.0.1, the built-in load
workload: a 3000-token window where every trim trigger fires), with the same concurrency,
each run timed from building its HTTP client to closing it:

- **baseline**: a bare httpx loop (the same client, pool and transport) that replays, per
  session and in order, the exact request bodies a harness run sent (recorded once, first);
- **harness**: the same sessions run by ``harness.load`` (Agent, trims, estimates, checks,
  events), no observers;
- **harness + observers**: the same, with the OTel observer (every trace recorded; spans
  to an exporter that drops them) and the Prometheus observer on a fresh registry;
- for information, beside the goal: **the same, sampled** (one turn's trace in
  ``SAMPLE_ONE_IN`` recorded, parent-based ratio sampler, every metric still counted), and
  each observer **alone** (OTel with every trace; Prometheus, without exemplars since
  there are no traces), to show which costs what;
- **caching off**: the harness sessions against a second fake server that does not cache
  (``caching: none``), with the agent's cache-loss bookkeeping switched off: caching (the
  fakes' prefix store and the cache-loss accounting) may cost at most ``GOAL_CACHING``.

Each round runs them all in turn; the medians of ``ROUNDS`` rounds are compared. Every run
uses fresh session ids, so the fake answers each run's call ``n`` of a session exactly as it
answered the recording. Ratios: throughput (provider calls per second) and the bench
process's CPU time per call (``resource.getrusage``). Last, the memory an idle session
holds after 50 turns (``tracemalloc``: allocations still live once the sessions are done),
with the process-wide row caches (bounded, shared by every session) counted apart.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from opentelemetry.sdk.trace.sampling import ALWAYS_ON, Sampler
from prometheus_client import CollectorRegistry

from bench import load_limits
from bench.load_probes import Memory, SessionLength, idle_memory, observer_floor, session_length
from bench.load_report import INFO, Ratios, fake_cpu_rows, goal_cells, measure_rows, median_of
from bench.load_runs import DiscardSpans, Measured, RunClocks, baseline, record
from bench.load_settings import (
    CONCURRENCY,
    MEMORY_SESSIONS,
    MEMORY_TURNS,
    MEMORY_WINDOW,
    ROUNDS,
    RUN_LIMIT_S,
    SAMPLE_ONE_IN,
    SAMPLED,
    SESSIONS,
    TURNS,
)
from bench.observer_floor import Floor
from bench.timing import table
from harness.agent import MEASURE_CACHE_LOSS, NoCacheLossBookkeeping
from harness.load import FakeServers, LoadPlan, RunOptions, default_template, run_sessions
from harness.load.template import write_plan
from harness.progress import Tracker, tracker
from harness.telemetry.setup import TelemetryOptions, build_telemetry


@dataclass(frozen=True, slots=True)
class Observed:
    """Which observers a harness run has (OTel spans, Prometheus metrics) and the sampler."""

    label: str
    spans: bool = False
    metrics: bool = False
    sampler: Sampler = ALWAYS_ON
    caching: bool = True


HARNESS_RUNS: dict[str, Observed] = {
    "harness": Observed("harness sessions"),
    "observers": Observed("harness + OTel + Prometheus", spans=True, metrics=True),
    "sampled": Observed(f"the same, 1 trace in {SAMPLE_ONE_IN} recorded", True, True, SAMPLED),
    "otel": Observed("harness + OTel only", spans=True),
    "prometheus": Observed("harness + Prometheus only (no exemplars)", metrics=True),
    "nocache": Observed("harness, caching off (fake and cache loss)", caching=False),
}
"""Every harness run of a round; the first two make the goal, the others are information."""


async def harness(
    plan: LoadPlan, prefix: str, observed: Observed, fake_pid: int | None = None
) -> Measured:
    telemetry = build_telemetry(  # no spans and no metrics asked: nothing built
        TelemetryOptions(
            span_exporters=(DiscardSpans(),) if observed.spans else (),
            registry=CollectorRegistry() if observed.metrics else None,
            sampler=observed.sampler,
        )
    )
    # caching off: the agent's cache-loss bookkeeping too (the fake's is off by its plan)
    bookkeeping = MEASURE_CACHE_LOSS if observed.caching else NoCacheLossBookkeeping
    options = RunOptions(
        observers=telemetry.observers, session_prefix=prefix, cache_loss=bookkeeping
    )
    try:
        clocks = RunClocks(fake_pid)
        summary = await run_sessions(plan, options)
        return clocks.measured(summary.provider_calls, summary.overhead.p50_ms or 0.0)
    finally:
        telemetry.shutdown()


async def measure(
    plan: LoadPlan,
    uncached: LoadPlan,
    say: Callable[[str], None],
    shown: Tracker,
    fake_pids: tuple[int | None, int | None] = (None, None),
) -> dict[str, list[Measured]]:
    """Every run of ``ROUNDS`` rounds; ``fake_pids``: the cached and the uncached fake
    server's processes, whose CPU each run also reads."""
    say(f"recording the request bodies of {plan.sessions} sessions (also the warm-up) ...")
    recorded = await record(plan)
    await run_sessions(uncached, RunOptions(session_prefix="warm-"))
    runs: dict[str, list[Measured]] = {"baseline": [], **{key: [] for key in HARNESS_RUNS}}
    for r in range(ROUNDS):
        runs["baseline"].append(await baseline(plan, recorded, f"b{r}-", fake_pids[0]))
        shown.advance(detail=f"round {r + 1}/{ROUNDS}")
        for key, observed in HARNESS_RUNS.items():
            against, pid = (plan, fake_pids[0]) if observed.caching else (uncached, fake_pids[1])
            runs[key].append(await harness(against, f"{key}{r}-", observed, pid))
            shown.advance()
        line = ", ".join(f"{k} {v[-1].rate:,.0f} calls/s" for k, v in runs.items())
        say(f"round {r + 1}/{ROUNDS}: {line}")
    return runs


def report(
    runs: dict[str, list[Measured]],
    memory: Memory,
    floor: Floor,
    length: SessionLength,
    say: Callable[[str], None],
    *,
    latency_ms: int = 0,
) -> None:
    """The runs' medians, the observers' floor, then the ratios and goals table."""
    _say_runs(runs, say)
    found = Ratios.of(runs)
    rows = measure_rows(found, memory, floor, length) + fake_cpu_rows(runs)
    goals = goal_cells(found, memory, floor, length, latency_ms=latency_ms)
    goals += [INFO] * (len(rows) - len(goals))
    say("")
    say(floor.summary())
    say("  floor calls: " + ", ".join(f"{v:,} {k}" for k, v in floor.calls.items() if v))
    say("")
    say("Ratios and goals")
    say(table(["measure", "value", "goal"], [[*r, g] for r, g in zip(rows, goals, strict=True)]))


def _say_runs(runs: dict[str, list[Measured]], say: Callable[[str], None]) -> None:
    """Per run, the median of its rounds: calls per run, calls/s and the bench's CPU."""
    rate = {k: median_of(v, lambda m: m.rate) for k, v in runs.items()}
    cpu = {k: median_of(v, lambda m: m.cpu_ms_per_call) for k, v in runs.items()}
    calls = {k: v[0].calls for k, v in runs.items()}
    labels = {"baseline": "bare httpx loop, same bodies"}
    labels |= {key: observed.label for key, observed in HARNESS_RUNS.items()}
    say("")
    say(
        table(
            ["run (median of rounds)", "calls/run", "calls/s", "bench CPU/call"],
            [[labels[k], f"{calls[k]:,}", f"{rate[k]:,.0f}", f"{cpu[k]:.3f} ms"] for k in runs],
        )
    )


def _uncached(plan: LoadPlan) -> LoadPlan:
    providers = tuple(replace(p, caching="none") for p in plan.template.providers)
    return replace(plan, template=replace(plan.template, providers=providers))


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench load", description=__doc__)
    parser.add_argument("--sessions", type=int, default=SESSIONS)
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    parser.add_argument("--turns", type=int, default=TURNS)
    parser.add_argument("--latency-ms", type=int, default=0, help="the fake's answer delay")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or status")
    parser.add_argument(
        "--limits",
        action="store_true",
        help="only issue 28's goals (bench/load_limits.py): memory at 2,000 and 20,000"
        " sessions, overhead with Retry-After waits, the fakes' prefix chain",
    )
    parser.add_argument(
        "--limits-sessions",
        default=f"{load_limits.SMALL},{load_limits.LARGE}",
        help="the two session counts of --limits (SMALL,LARGE)",
    )
    return parser.parse_args(argv)


def _plan_file(plan: LoadPlan, folder: Path) -> Path:
    """``plan`` written as ``folder/plan.json`` (the fake server reads its workload there)."""
    folder.mkdir(exist_ok=True)
    write_plan(plan, folder / "plan.json")
    return folder / "plan.json"


@dataclass(frozen=True, slots=True)
class Figures:
    """What a bench load run measured, in ``report``'s order of arguments."""

    runs: dict[str, list[Measured]]
    memory: Memory
    floor: Floor
    length: SessionLength


def _run_all(plan: LoadPlan, quiet: bool, say: Callable[[str], None]) -> Figures:
    """Three fake servers (caching, not caching, the memory workload), then every run."""
    memory_template = default_template(context_window=MEMORY_WINDOW, turn_limit=MEMORY_TURNS)
    memory_plan = LoadPlan(memory_template, 1, 1, 1, RUN_LIMIT_S)
    ref = plan.template.providers[0].ref
    uncached = _uncached(plan)
    with tempfile.TemporaryDirectory(prefix="trimscope-bench-load-") as scratch:
        folder = Path(scratch)
        with (
            FakeServers(_plan_file(plan, folder), [ref], folder) as servers,
            FakeServers(
                _plan_file(uncached, folder / "uncached"), [ref], folder / "uncached"
            ) as off,
            FakeServers(
                _plan_file(memory_plan, folder / "memory"), [ref], folder / "memory"
            ) as big,
        ):
            plan = plan.with_base_urls(servers.start())
            uncached = uncached.with_base_urls(off.start())
            measured = ROUNDS * (1 + len(HARNESS_RUNS))  # runs, each of every session
            with tracker("bench load runs", measured, quiet=quiet) as shown:
                pids = (servers.processes[0].pid, off.processes[0].pid)
                runs = asyncio.run(measure(plan, uncached, say, shown, pids))
            floor = asyncio.run(observer_floor(plan, say))
            length = asyncio.run(session_length(plan, say))
            say(f"memory: {MEMORY_SESSIONS} sessions × {MEMORY_TURNS} turns, tracemalloc ...")
            memory = asyncio.run(idle_memory(big.start()[ref], ref))
    return Figures(runs, memory, floor, length)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)

    def say(text: str) -> None:
        print(text, flush=True)

    if args.limits:
        small, large = (int(n) for n in args.limits_sessions.split(","))
        load_limits.run(say, (small, large))
        return 0

    began = time.perf_counter()
    say(
        f"trimscope bench load: Python {platform.python_version()}, {platform.system()} "
        f"{platform.machine()}, {os.cpu_count()} CPUs; {args.sessions} sessions × {args.turns}"
        f" turns, concurrency {args.concurrency}, fake latency {args.latency_ms} ms"
    )
    template = default_template(latency_ms=args.latency_ms)
    plan = LoadPlan(template, args.sessions, args.concurrency, args.turns, RUN_LIMIT_S)
    found = _run_all(plan, args.quiet, say)
    report(found.runs, found.memory, found.floor, found.length, say, latency_ms=args.latency_ms)
    say(f"total bench time {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
