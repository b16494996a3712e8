"""``python -m bench.proxy``: what the observing proxy adds, against this run's baselines.

Three real servers on 127.0.0.1, each a process of its own: a fake OpenAI provider
(``trimscope fake serve``), ``trimscope proxy`` in front of it (as a user runs it, with
its metrics sink), and a bare pass-through on the same stack (``bench.proxy_bare``:
starlette + httpx forwarding, nothing kept or observed). The bench process is the
client: ``sessions`` concurrent sessions, each sending ``calls`` chat requests one after
the other over keep-alive connections, timed one by one (wall clock), after one untimed
request that opens the session's connection. The sessions start spread over one model
delay (session ``i`` of ``n`` waits ``i/n`` of it), as independent sessions arrive: started
together, the fake answers all of them at once each time, and every hop queues behind the
other 49 requests of the same burst (that queue, not the proxy, was the +50 ms p50 added
at 50 sessions of the runs before).

Each round runs the same load straight to the fake, through the proxy and through the
bare pass-through, in turn (interleaved, so a machine whose speed drifts slows all
three alike). Figures:

- **added latency**: the proxy's p50 / p99 minus the direct run's p50 / p99, goal
  ``GOAL_ADDED_P99_MS`` at p99 with 50 sessions (500 sessions: information, run when the
  load finishes within ``MAX_SECONDS_PER_RUN``);
- **time in proxy** (``bench.proxy_hop``): the proxy's own hop per request as it measures
  it (its upstream waits excluded), read from its metrics; the same goal at p99, judged
  exactly (2 ms is a bucket bound of its histogram);
- **CPU per request**: the proxy process's CPU time (``/proc``) per request in each round,
  the median round against the bare pass-through's, goal ``GOAL_CPU_RATIO``.

``--pin`` puts the fake and the client on the first core, the proxy and the bare
pass-through on the second (``os.sched_setaffinity``): the bench's own processes then do
not queue behind one another for a core (other work on the machine still can).

Nothing fails on a slow machine: the report says ``met`` or ``NOT MET``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.proxy_hop import Buckets, Hop, added, bound_text, hop, merged, read_hop
from bench.timing import table
from harness.load.transport import SLOT_HEADER, ShardedTransport

GOAL_ADDED_P99_MS = 2.0
GOAL_CPU_RATIO = 1.3
GOAL_SESSIONS = 50
P99_SHARE = 0.99
DEFAULT_LATENCY_MS = 500
"""The fake's delay per answer, a short model answer: sessions wait for their model as
real ones do, so 50 sessions offer ~100 requests/s. With much less, every process is
CPU-bound on a shared 2-core machine and the percentiles measure queueing for the cores
(at 50 ms the direct run's own p99 was 2 s)."""
ROUNDS = 3
CALLS = {1: 50, 50: 20, 500: 4}
"""Requests per session per run: 50 alone (the added latency without queueing, for
information), 1,000 at 50 sessions, 2,000 at 500 (bounded)."""
MAX_SECONDS_PER_RUN = 120.0
STARTUP_S = 30.0
MAX_OPENING = 64
"""Sessions opening their connection at once: the fake's listen backlog is 128, and 500
connects at once were reset."""
TARGETS = ("direct", "proxy", "bare")
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Say something short."}]}


@dataclass
class Runs:
    """Every request's latency (ms) per target, and each round's server CPU ms per request."""

    sessions: int
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    cpu_ms_per_call: dict[str, list[float]] = field(default_factory=dict)
    waited_ms_per_call: dict[str, list[float]] = field(default_factory=dict)
    hop: list[Buckets] = field(default_factory=list)
    unfinished: str | None = None


@dataclass(frozen=True)
class Figures:
    sessions: int
    p50_ms: dict[str, float]
    p99_ms: dict[str, float]
    cpu_ms_per_call: dict[str, float]
    unfinished: str | None = None
    hop: Hop | None = None
    waited_ms_per_call: dict[str, float] = field(default_factory=dict)

    def added(self, percentile: str, target: str = "proxy") -> float:
        source = self.p50_ms if percentile == "p50" else self.p99_ms
        return source[target] - source["direct"]

    @property
    def cpu_ratio(self) -> float:
        return self.cpu_ms_per_call["proxy"] / self.cpu_ms_per_call["bare"]


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def figures(runs: Runs) -> Figures:
    lat = runs.latencies_ms
    return Figures(
        runs.sessions,
        {t: statistics.median(lat[t]) for t in lat},
        {t: percentile(lat[t], 0.99) for t in lat},
        # the median round: one run slowed by a neighbour's burst does not decide
        {t: statistics.median(per_round) for t, per_round in runs.cpu_ms_per_call.items()},
        runs.unfinished,
        hop(merged(runs.hop)) if runs.hop else None,
        {t: statistics.median(per_round) for t, per_round in runs.waited_ms_per_call.items()},
    )


def verdict(value: float, goal: float, unit: str) -> str:
    return f"≤ {goal:g}{unit}: {'met' if value <= goal else 'NOT MET'}"


def report(results: Sequence[Figures], say: Callable[[str], None]) -> None:
    """The latency table per load, then the goals, each ``met`` or ``NOT MET``."""
    for result in results:
        if result.unfinished is not None:
            say(f"\n{result.sessions} sessions: not run to the end ({result.unfinished})")
        rows = [[t, f"{result.p50_ms[t]:.2f} ms", f"{result.p99_ms[t]:.2f} ms"]
                for t in TARGETS if t in result.p50_ms]  # fmt: skip
        if rows:
            done = "" if result.unfinished is None else ", the runs that finished"
            say(f"\n{result.sessions} concurrent sessions, latency per request{done}")
            say(table(["target", "p50", "p99"], rows))
    goals: list[list[str]] = []
    for result in results:
        if result.unfinished is not None:
            continue
        judged = result.sessions == GOAL_SESSIONS
        for name in ("p50", "p99"):
            added = result.added(name)
            judge = verdict(added, GOAL_ADDED_P99_MS, " ms") if judged and name == "p99" else (
                "(information)")  # fmt: skip
            if judged and name == "p99" and added < 0:  # not a measurement of the proxy
                judge = f"≤ {GOAL_ADDED_P99_MS:g} ms: inconclusive (direct's own p99 larger)"
            goals.append([f"added latency {name}, {result.sessions} sessions (proxy − direct)",
                          f"{added:+.2f} ms", judge])  # fmt: skip
        if result.hop is not None:
            goals.extend(_hop_rows(result.hop, result.sessions, judged))
        if "bare" in result.p99_ms:
            goals.append([f"bare pass-through's added p99, {result.sessions} sessions",
                          f"{result.added('p99', 'bare'):+.2f} ms", "(information)"])  # fmt: skip
        waited = result.waited_ms_per_call.get("proxy")
        if waited is not None:
            goals.append([f"proxy's wait for a core per request, {result.sessions} sessions",
                          f"{waited:.2f} ms", "(information)"])  # fmt: skip
        if {"proxy", "bare"} <= set(result.cpu_ms_per_call):
            cpu = result.cpu_ms_per_call
            goals.append([f"proxy CPU per request ÷ bare pass-through, {result.sessions} sessions",
                          f"{cpu['proxy']:.3f} / {cpu['bare']:.3f} ms = {result.cpu_ratio:.2f}×",
                          verdict(result.cpu_ratio, GOAL_CPU_RATIO, "×") if judged
                          else "(information)"])  # fmt: skip
    say("\nGoals")
    say(table(["figure", "value", "goal"], goals))


def _hop_rows(figure: Hop, sessions: int, judged: bool) -> list[list[str]]:
    within = figure.within(GOAL_ADDED_P99_MS / 1000)
    goal = f"{GOAL_ADDED_P99_MS:g} ms"
    p99 = f"{bound_text(figure.p99_bound_s)} ({within:.1%} of {figure.requests} ≤ {goal})"
    return [
        [f"time in proxy p50, {sessions} sessions", bound_text(figure.p50_bound_s),
         "(information)"],
        [f"time in proxy p99, {sessions} sessions", p99,
         f"≤ {goal}: {'met' if within >= P99_SHARE else 'NOT MET'}"
         if judged else "(information)"],
    ]  # fmt: skip


def _read_cpu(pid: int) -> float:
    """A process's user + system CPU seconds (``/proc/<pid>/stat``, Linux)."""
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _read_waited(pid: int) -> float:
    """Seconds a process's threads were runnable but waiting for a core (the run queue,
    ``/proc/<pid>/task/*/schedstat``); 0 where the kernel does not say."""
    waited_ns = 0
    for task in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            waited_ns += int(task.read_text(encoding="ascii").split()[1])
    return waited_ns / 1e9


def _trimscope() -> list[str]:
    script = Path(sys.executable).with_name("trimscope")
    return [str(script)] if script.exists() else [sys.executable, "-m", "harness.cli"]


@contextmanager
def _server(command: list[str], log: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Start a server process that prints its URL (its stderr goes to ``log``); stop it
    (and wait) on the way out."""
    with log.open("w", encoding="utf-8") as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + STARTUP_S
        line = process.stdout.readline().strip()
        if not line.startswith("http") or time.monotonic() > deadline:
            raise RuntimeError(f"{command[0]} printed no URL: {line!r}")
        yield line, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


async def _load(base: str, sessions: int, calls: int, spread_s: float = 0.0) -> list[float]:
    """``sessions`` concurrent sessions of ``calls`` requests each, their starts spread
    evenly over ``spread_s``; every latency in ms."""
    latencies: list[float] = []
    # One connection pool per session (``ShardedTransport``, a session's slot in its
    # header): one shared pool of 500 costs the client O(n²) work per request in httpcore
    # (see ``harness.proxy.pool``), seconds of its own event loop's time at 500 sessions.
    transport = ShardedTransport(sessions)

    openers = asyncio.Semaphore(MAX_OPENING)

    async def session(client: httpx.AsyncClient, slot: int) -> None:
        headers = {"x-trimscope-session": f"s{slot}", SLOT_HEADER: str(slot)}
        # The first request opens the session's connection (a burst of connects no
        # long-running runtime makes per call) and is not timed.
        async with openers:
            opening = await client.post("/chat/completions", json=CHAT, headers=headers)
        opening.raise_for_status()
        await asyncio.sleep(spread_s * slot / sessions)
        for _ in range(calls):
            start = time.perf_counter()
            answer = await client.post("/chat/completions", json=CHAT, headers=headers)
            latencies.append((time.perf_counter() - start) * 1000)
            answer.raise_for_status()

    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=60) as client:
        await asyncio.gather(*(session(client, slot) for slot in range(sessions)))
    return latencies


@dataclass(frozen=True)
class Setup:
    bases: dict[str, str]
    pids: dict[str, int]
    metrics_url: str
    spread_s: float


def _measure(setup: Setup, sessions: int, rounds: int) -> Runs:
    runs = Runs(sessions)
    calls, bases, pids = CALLS[sessions], setup.bases, setup.pids
    for base in bases.values():  # warm-up: connections, imports, caches
        asyncio.run(_load(base, min(sessions, 10), 2))
    for _ in range(rounds):
        for target, base in bases.items():
            hop_before = read_hop(setup.metrics_url) if target == "proxy" else {}
            before = _read_cpu(pids[target]) if target in pids else 0.0
            waited = _read_waited(pids[target]) if target in pids else 0.0
            try:
                got = asyncio.run(asyncio.wait_for(_load(base, sessions, calls, setup.spread_s),
                                                   MAX_SECONDS_PER_RUN))  # fmt: skip
            except TimeoutError:
                runs.unfinished = f"a run took over {MAX_SECONDS_PER_RUN:g} s"
                return runs
            except httpx.HTTPError as error:
                runs.unfinished = f"{target}: {type(error).__name__}: {error}"
                return runs
            runs.latencies_ms.setdefault(target, []).extend(got)
            if target in pids:
                spent_ms = (_read_cpu(pids[target]) - before) * 1000
                runs.cpu_ms_per_call.setdefault(target, []).append(spent_ms / len(got))
                waited_ms = (_read_waited(pids[target]) - waited) * 1000
                runs.waited_ms_per_call.setdefault(target, []).append(waited_ms / len(got))
            if target == "proxy":
                runs.hop.append(added(hop_before, read_hop(setup.metrics_url)))
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.proxy", description=__doc__)
    parser.add_argument(
        "--sessions", default="1,50,500", help="Loads to run (sessions: 1, 50, 500)."
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS, choices=range(1, 11))
    parser.add_argument("--latency-ms", type=int, default=DEFAULT_LATENCY_MS,
                        choices=range(0, 1001), metavar="0..1000",
                        help="The fake's delay before each answer (a model's time).")  # fmt: skip
    parser.add_argument("--start", choices=("spread", "together"), default="spread",
                        help="Sessions' first requests spread over one model delay, or all"
                             " at once (the runs before 2026-12-05).")  # fmt: skip
    parser.add_argument(
        "--pin", action="store_true", help="Fake and client on core 0, the proxies on core 1."
    )
    args = parser.parse_args(argv)
    loads = [int(s) for s in args.sessions.split(",")]
    if any(load not in CALLS for load in loads):
        parser.error(f"--sessions: each of {', '.join(map(str, CALLS))}")
    pin = args.pin and len(os.sched_getaffinity(0)) > 1
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cores, {args.rounds} rounds,"
        f" the fake answers after {args.latency_ms} ms, sessions start {args.start}"
        + (", pinned: fake and client on one core, the proxies on another" if pin else "")
    )
    print(f"server stack: {_stack()}; load average {_load_average()}")
    with tempfile.TemporaryDirectory(prefix="bench-proxy-") as folder:
        script = Path(folder) / "fake.yaml"
        script.write_text(f"default: {{latency_ms: {args.latency_ms}}}\n", encoding="utf-8")
        spread_s = args.latency_ms / 1000 if args.start == "spread" else 0.0
        results = _run_all(script, loads, args.rounds, spread_s, pin)
        report(results, print)
        print(f"\nload average at the end {_load_average()}")
        if any(result.unfinished for result in results):
            for log in sorted(Path(folder).glob("*.log")):  # what the servers said
                print(f"\n{log.name}:\n" + "".join(log.read_text().splitlines(True)[-5:]))
    return 0


def _stack() -> str:
    """The event loop and HTTP parser uvicorn picks (``auto``: uvloop and httptools when
    installed, see docs/proxy.md)."""
    found = {name: importlib.util.find_spec(name) is not None for name in ("uvloop", "httptools")}
    loop = "uvloop" if found["uvloop"] else "asyncio"
    return f"uvicorn with {loop} and {'httptools' if found['httptools'] else 'h11'}"


def _load_average() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg()) + " (1 / 5 / 15 min)"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _pin(pids: dict[str, int]) -> None:
    """The fake and this process (the client) on the first core allowed, the proxies on
    the second."""
    first, second = sorted(os.sched_getaffinity(0))[:2]
    for role, pid in pids.items():
        os.sched_setaffinity(pid, {second} if role in ("proxy", "bare") else {first})


def _run_all(
    script: Path, loads: list[int], rounds: int, spread_s: float, pin: bool
) -> list[Figures]:
    fake_command = [*_trimscope(), "fake", "serve", "--provider", "openai", "--model", "m",
                    "--context-window", "100000", "--script", str(script)]  # fmt: skip
    logs = script.parent
    metrics_port = _free_port()
    with _server(fake_command, logs / "fake.log") as (fake, fake_process):
        proxy_command = [*_trimscope(), "proxy", "--upstream", fake + "/v1",
                         "--wire", "openai_chat", "--port", "0",
                         "--serve-metrics", str(metrics_port)]  # fmt: skip
        bare_command = [sys.executable, "-m", "bench.proxy_bare", fake + "/v1"]
        with _server(proxy_command, logs / "proxy.log") as (proxy, proxy_process), _server(
            bare_command, logs / "bare.log"
        ) as (bare, bare_process):  # fmt: skip
            bases = {"direct": fake + "/v1", "proxy": proxy, "bare": bare + "/v1"}
            pids = {"proxy": proxy_process.pid, "bare": bare_process.pid}
            if pin:
                _pin({**pids, "fake": fake_process.pid, "client": os.getpid()})
            metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
            setup = Setup(bases, pids, metrics_url, spread_s)
            return [figures(_measure(setup, load, rounds)) for load in loads]


if __name__ == "__main__":
    raise SystemExit(main())
