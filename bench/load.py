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
import gc
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased, Sampler, TraceIdRatioBased
from prometheus_client import CollectorRegistry

from bench import load_limits
from bench.observer_floor import FLOOR_ROUNDS, GOAL_FLOOR_RATIO, EventRecorder, Floor, compare
from bench.timing import table
from harness.agent import MEASURE_CACHE_LOSS, Agent, NoCacheLossBookkeeping
from harness.events import EventBus
from harness.load import FakeServers, LoadPlan, RunOptions, default_template, run_sessions
from harness.load.collector import run_collector
from harness.load.runner import forget_cached_rows
from harness.load.session import Samples, SessionFactory, Stopwatch, http_client
from harness.load.template import SESSION_HEADER, write_plan
from harness.load.transport import SLOT_HEADER, ShardedTransport
from harness.progress import Tracker, tracker
from harness.telemetry.setup import TelemetryOptions, build_telemetry

ROUNDS = 5  # medians of five: a single round on 2 shared cores varies by ±5%
SHORT_TURNS, SHORT_SESSIONS, LONG_TURNS, LONG_SESSIONS, LENGTH_ROUNDS = 20, 20, 300, 4, 3
GOAL_SESSION_LENGTH = 1.1  # issue 15: per-call agent time, long ÷ short sessions
GOAL_MEMORY = 1.25  # issue 15: an idle 50-turn session's memory ÷ its history's text
SAMPLE_ONE_IN = 10
SAMPLED = ParentBased(TraceIdRatioBased(1 / SAMPLE_ONE_IN))
"""Information beside the goal: a load run's traces sampled per turn, metrics complete."""
SESSIONS, CONCURRENCY, TURNS = 120, 20, 6
MEMORY_SESSIONS, MEMORY_TURNS, MEMORY_WINDOW = 20, 50, 400_000
GOAL_OVERHEAD, GOAL_OBSERVERS, GOAL_CACHING = 0.10, 0.10, 0.05  # issues 15 and 16
GOAL_OBSERVERS_LATENT = 0.01
"""Issue 15: with a fake that takes time to answer (``--latency-ms``, 50 in ``make bench``),
observers on vs off, every trace or one in ten, stay within 1%."""
RUN_LIMIT_S = 60.0  # no single run may take longer (the plan's duration cap)


@dataclass(frozen=True, slots=True)
class Recorded:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class Measured:
    calls: int
    seconds: float
    cpu_s: float
    overhead_p50_ms: float = 0.0
    fake_cpu_s: float | None = None
    """The fake-server process's CPU time over the run (``/proc``; None where unreadable)."""

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_call(self) -> float:
        return self.cpu_s * 1000 / self.calls if self.calls else 0.0

    @property
    def fake_ms_per_call(self) -> float | None:
        if self.fake_cpu_s is None or not self.calls:
            return None
        return self.fake_cpu_s * 1000 / self.calls


class RecordingTransport(httpx.AsyncBaseTransport):
    """Keeps every request's path, headers and body, per session, in order."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sessions: dict[str, list[Recorded]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        session = request.headers.get(SESSION_HEADER, "")
        self.sessions.setdefault(session, []).append(Recorded(request.url.path, headers, body))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class DiscardSpans(SpanExporter):
    """Spans are built and ended, then dropped: the observer's cost without export I/O."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int | None) -> float | None:
    """Another process's user + system CPU seconds (``/proc/<pid>/stat``, Linux; None
    elsewhere or once it has gone): the fake server's, to show what the two processes
    together spend per call on a machine they share."""
    if pid is None:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RunClocks:
    """Wall time, the bench process's CPU and the fake server's CPU, read as a run starts;
    ``measured`` reads them again as it ends. The bare loop and the harness runs are timed
    by this one piece, so both measure the same span the same way."""

    def __init__(self, fake_pid: int | None) -> None:
        self._fake_pid = fake_pid
        self._began, self._cpu, self._fake = time.perf_counter(), _cpu(), process_cpu(fake_pid)

    def measured(self, calls: int, overhead_p50_ms: float = 0.0) -> Measured:
        elapsed, spent = time.perf_counter() - self._began, _cpu() - self._cpu
        fake = process_cpu(self._fake_pid)
        fake_spent = None if fake is None or self._fake is None else fake - self._fake
        return Measured(calls, elapsed, spent, overhead_p50_ms, fake_spent)


async def record(plan: LoadPlan) -> list[list[Recorded]]:
    transport = RecordingTransport(ShardedTransport(plan.concurrency))
    await run_sessions(plan, RunOptions(transport=transport, session_prefix="rec-"))
    return list(transport.sessions.values())


async def baseline(
    plan: LoadPlan, sessions: list[list[Recorded]], prefix: str, fake_pid: int | None = None
) -> Measured:
    base = next(iter(plan.base_urls.values())).rstrip("/")
    queue = iter(enumerate(sessions))
    calls = 0
    # Timed like a harness run, which builds its client and closes it inside run_sessions,
    # and with the collector's settings of a run.
    clocks = RunClocks(fake_pid)
    with run_collector():
        async with http_client(plan.concurrency, plan.http_timeout_s) as client:

            async def worker(slot: int) -> None:
                nonlocal calls
                for index, requests in queue:
                    for sent in requests:
                        headers = {**sent.headers, SESSION_HEADER: f"{prefix}{index}"}
                        headers[SLOT_HEADER] = str(slot)
                        response = await client.post(
                            base + sent.path, content=sent.body, headers=headers
                        )
                        await response.aread()
                        calls += 1

            await asyncio.gather(*(worker(slot) for slot in range(plan.concurrency)))
    return clocks.measured(calls)


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


@dataclass(frozen=True, slots=True)
class Memory:
    per_session: float
    rows: int
    text: int
    caches: int


async def idle_memory(base_url: str, ref: str) -> Memory:
    """Bytes still allocated per session after ``MEMORY_TURNS`` turns (rows, text bytes),
    and apart, what the process-wide row caches hold then: they are bounded
    (``RENDER_CACHE_MESSAGES``, ``DECODE_CACHE_ROWS``) and do not grow with sessions."""
    template = default_template(context_window=MEMORY_WINDOW, turn_limit=MEMORY_TURNS)
    async with http_client(MEMORY_SESSIONS, 30.0) as http:

        async def session(index: int, turns: int, prefix: str) -> Agent:
            factory = SessionFactory(
                template, {ref: base_url}, http, EventBus(), Samples(), session_prefix=prefix
            )
            agent = factory.agent(index, Stopwatch(factory.samples), slot=index)
            for turn in range(turns):
                await agent.turn(template.user_text(index, turn))
            return agent

        # Warm-up: every pooled connection is open before tracing starts.
        await asyncio.gather(*(session(i, 1, "warm-") for i in range(MEMORY_SESSIONS)))
        forget_cached_rows()
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        agents = await asyncio.gather(
            *(session(i, MEMORY_TURNS, "idle-") for i in range(MEMORY_SESSIONS))
        )
        gc.collect()
        with_caches = tracemalloc.get_traced_memory()[0]
        forget_cached_rows()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    rows = sum(len(agent.history) for agent in agents) // MEMORY_SESSIONS
    text = sum(len(str(row).encode()) for a in agents for row in a.history) // MEMORY_SESSIONS
    return Memory((after - before) / MEMORY_SESSIONS, rows, text, with_caches - after)


def _median(values: Sequence[Measured], key: Callable[[Measured], float]) -> float:
    return statistics.median(key(v) for v in values)


async def observer_floor(plan: LoadPlan, say: Callable[[str], None]) -> Floor:
    """The observers on one recorded run's events against the SDK floor (observer_floor)."""
    say("recording one run's events, then the observers and the SDK floor on them ...")
    recorder = EventRecorder()
    await run_sessions(plan, RunOptions(observers=(recorder,), session_prefix="events-"))
    return compare(recorder.events, FLOOR_ROUNDS, DiscardSpans)


@dataclass(frozen=True, slots=True)
class SessionLength:
    short_ms: float
    long_ms: float

    @property
    def ratio(self) -> float:
        return self.long_ms / self.short_ms if self.short_ms else 0.0


async def session_length(plan: LoadPlan, say: Callable[[str], None]) -> SessionLength:
    """The agent's time per call outside HTTP (p50) in short and long sessions of the same
    workload, interleaved over ``LENGTH_ROUNDS`` rounds, medians compared. Its CPU time
    (the thread's clock): on a machine shared with busy neighbours, wall-clock stretches
    of a few hundred µs are stretched by preemption (this ratio moved 1.03–1.23× between
    runs of the same code by the wall clock)."""
    say(f"agent time per call: {SHORT_TURNS}-turn against {LONG_TURNS}-turn sessions ...")
    short: list[float] = []
    long: list[float] = []
    for r in range(LENGTH_ROUNDS):
        for turns, sessions, out in (
            (SHORT_TURNS, SHORT_SESSIONS, short),
            (LONG_TURNS, LONG_SESSIONS, long),
        ):
            sized = replace(plan, turns=turns, sessions=sessions, concurrency=sessions)
            options = RunOptions(session_prefix=f"len{turns}-{r}-", overhead_clock=time.thread_time)
            summary = await run_sessions(sized, options)
            out.append(summary.overhead.p50_ms or 0.0)
    return SessionLength(statistics.median(short), statistics.median(long))


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
    rate = {k: _median(v, lambda m: m.rate) for k, v in runs.items()}
    cpu = {k: _median(v, lambda m: m.cpu_ms_per_call) for k, v in runs.items()}
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
    overhead, spread = _paired(runs["baseline"], runs["harness"])
    observers = rate["harness"] / rate["observers"] - 1
    apart = {key: rate["harness"] / rate[key] - 1 for key in ("sampled", "otel", "prometheus")}
    caching = rate["nocache"] / rate["harness"] - 1
    cpu_overhead = cpu["harness"] / cpu["baseline"] - 1
    cpu_observers = cpu["observers"] / cpu["harness"] - 1
    agent = _median(runs["harness"], lambda m: m.overhead_p50_ms)
    history = f"{memory.rows} rows, {memory.text / 1024:,.1f} KiB of text"
    sessions = f"{MEMORY_SESSIONS} sessions"
    info = "(information)"
    rows_out = [
        [f"harness overhead: baseline calls/s ÷ harness calls/s − 1, median of {ROUNDS}"
         f" rounds (each {spread})", f"{overhead:+.1%}"],
        ["observers on vs off: off calls/s ÷ on calls/s − 1", f"{observers:+.1%}"],
        ["harness CPU per call ÷ baseline CPU per call − 1", f"{cpu_overhead:+.1%}"],
        ["observers CPU per call, on ÷ off − 1", f"{cpu_observers:+.1%}"],
        [f"observers, 1 trace in {SAMPLE_ONE_IN} (every metric): off ÷ on − 1",
         f"{apart['sampled']:+.1%}"],
        ["OTel observer alone, every trace: off ÷ on − 1", f"{apart['otel']:+.1%}"],
        ["Prometheus observer alone (no exemplars): off ÷ on − 1",
         f"{apart['prometheus']:+.1%}"],
        ["caching on vs off: off calls/s ÷ on calls/s − 1", f"{caching:+.1%}"],
        ["agent time per call outside HTTP (p50, trim + estimate + checks)", f"{agent:.3f} ms"],
        [f"the same in CPU, {LONG_TURNS}-turn ÷ {SHORT_TURNS}-turn sessions "
         f"({length.long_ms:.3f} / {length.short_ms:.3f} ms)", f"{length.ratio:.2f}×"],
        [f"idle session holding a {MEMORY_TURNS}-turn history ({history})",
         f"{memory.per_session / 1024:,.1f} KiB"],
        [f"process-wide row caches after those {sessions} (bounded, shared)",
         f"{memory.caches / 1024:,.1f} KiB"],
    ]  # fmt: skip
    rows_out += fake_cpu_rows(runs)
    rows_out.insert(
        2,
        [
            f"observers ÷ SDK floor, CPU, same {floor.events:,} recorded events",
            f"{floor.ratio:.2f}×",
        ],
    )
    memory_ratio = memory.per_session / memory.text if memory.text else 0.0
    if latency_ms:  # only the observers against a model that takes time: both within 1%;
        # the other goals are judged at an instantly answering fake (the run without it)
        judged_apart = "(judged at 0 ms latency)"
        goals = [judged_apart, _goal(observers, GOAL_OBSERVERS_LATENT), judged_apart]
        goals += [info, info, _goal(apart["sampled"], GOAL_OBSERVERS_LATENT), info, info]
        goals += [judged_apart, info, judged_apart, f"{memory_ratio:.2f}× its text"]
    else:
        goals = [_goal(overhead, GOAL_OVERHEAD), info]
        goals += [_ratio_goal(floor.ratio, GOAL_FLOOR_RATIO), info, info]
        goals += [_goal(apart["sampled"], GOAL_OBSERVERS), info, info]
        goals += [_goal(caching, GOAL_CACHING), info]
        goals += [_ratio_goal(length.ratio, GOAL_SESSION_LENGTH)]
        goals += [f"{memory_ratio:.2f}× its text, " + _ratio_goal(memory_ratio, GOAL_MEMORY)]
    goals += [info] * (len(rows_out) - len(goals))
    say("")
    say(floor.summary())
    say("  floor calls: " + ", ".join(f"{v:,} {k}" for k, v in floor.calls.items() if v))
    say("")
    say("Ratios and goals")
    say(
        table(["measure", "value", "goal"], [[*r, g] for r, g in zip(rows_out, goals, strict=True)])
    )


def fake_cpu_rows(runs: dict[str, list[Measured]]) -> list[list[str]]:
    """The fake server's CPU per call beside the bench's, bare loop and harness: on a
    machine whose cores both processes share, throughput follows their sum per call."""
    fake = {k: [m.fake_ms_per_call for m in runs[k]] for k in ("baseline", "harness")}
    if any(value is None for values in fake.values() for value in values):
        return [["fake server CPU per call (bare loop / harness)", "n/a (no /proc)"]]
    base_fake = statistics.median(v for v in fake["baseline"] if v is not None)
    harness_fake = statistics.median(v for v in fake["harness"] if v is not None)
    base = _median(runs["baseline"], lambda m: m.cpu_ms_per_call) + base_fake
    both = _median(runs["harness"], lambda m: m.cpu_ms_per_call) + harness_fake
    return [
        ["fake server CPU per call (bare loop / harness)",
         f"{base_fake:.3f} / {harness_fake:.3f} ms"],
        ["bench + fake CPU per call, harness ÷ bare loop − 1 "
         f"({both:.3f} / {base:.3f} ms)", f"{both / base - 1:+.1%}"],
    ]  # fmt: skip


def _paired(base: Sequence[Measured], other: Sequence[Measured]) -> tuple[float, str]:
    """``base`` calls/s ÷ ``other`` calls/s − 1 per round, the two measured back to back
    in it (a machine whose speed drifts between rounds slows both alike), the median of
    the rounds; and the rounds' values from least to most, to show the noise."""
    ratios = sorted(b.rate / o.rate - 1 for b, o in zip(base, other, strict=True))
    return statistics.median(ratios), " ".join(f"{r:+.0%}" for r in ratios)


def _uncached(plan: LoadPlan) -> LoadPlan:
    providers = tuple(replace(p, caching="none") for p in plan.template.providers)
    return replace(plan, template=replace(plan.template, providers=providers))


def _ratio_goal(value: float, goal: float) -> str:
    return f"≤ {goal:.2f}×: {'met' if value <= goal else 'NOT MET'}"


def _goal(value: float, goal: float) -> str:
    return f"≤ {goal:.0%}: {'met' if value <= goal else 'NOT MET'}"


def main(argv: Sequence[str] | None = None) -> int:
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
    args = parser.parse_args(argv)

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
    memory_template = default_template(context_window=MEMORY_WINDOW, turn_limit=MEMORY_TURNS)
    plan = LoadPlan(template, args.sessions, args.concurrency, args.turns, RUN_LIMIT_S)
    ref = template.providers[0].ref
    with tempfile.TemporaryDirectory(prefix="trimscope-bench-load-") as scratch:
        folder = Path(scratch)
        write_plan(plan, folder / "plan.json")
        memory_plan = LoadPlan(memory_template, 1, 1, 1, RUN_LIMIT_S)
        (folder / "memory").mkdir()
        write_plan(memory_plan, folder / "memory" / "plan.json")
        uncached = _uncached(plan)
        (folder / "uncached").mkdir()
        write_plan(uncached, folder / "uncached" / "plan.json")
        with (
            FakeServers(folder / "plan.json", [ref], folder) as servers,
            FakeServers(folder / "uncached" / "plan.json", [ref], folder / "uncached") as off,
            FakeServers(folder / "memory" / "plan.json", [ref], folder / "memory") as big,
        ):
            plan = plan.with_base_urls(servers.start())
            uncached = uncached.with_base_urls(off.start())
            measured = ROUNDS * (1 + len(HARNESS_RUNS))  # runs, each of every session
            with tracker("bench load runs", measured, quiet=args.quiet) as shown:
                pids = (servers.processes[0].pid, off.processes[0].pid)
                runs = asyncio.run(measure(plan, uncached, say, shown, pids))
            floor = asyncio.run(observer_floor(plan, say))
            length = asyncio.run(session_length(plan, say))
            say(f"memory: {MEMORY_SESSIONS} sessions × {MEMORY_TURNS} turns, tracemalloc ...")
            memory = asyncio.run(idle_memory(big.start()[ref], ref))
    report(runs, memory, floor, length, say, latency_ms=args.latency_ms)
    say(f"total bench time {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
