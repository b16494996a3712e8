"""``python -m bench load --limits``: issue 28's goals for a load run's own costs, in one run.

- **memory flat in calls**: a real ``trimscope load`` process (and its fake server, a
  process of its own) at ``SMALL`` and at ``LARGE`` sessions of one turn each; each
  process's peak RSS (``ru_maxrss``, from the run's ``--json``), large ÷ small, goal
  ≤ ``GOAL_MEMORY_GROWTH``.
- **waits are not overhead**: the same sessions against a fake that answers every call,
  and against one that throttles one call in three (429, ``Retry-After: 1``); the
  harness's overhead per call (wall clock, mean and p50), throttled ÷ plain, goal
  ≤ ``GOAL_WAITS``: the waits must not move it.
- **the fakes' prefix chain**: CPU per 60-row request of fresh strings (as a decoded
  request has), the cost every cached call of a load run pays (information; the
  throughput goal is ``bench load``'s "caching on vs off").
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.timing import table
from fakes.counting.counters import TokenCount, get_counter
from fakes.rows import CanonicalRequest, Row, ToolSchema
from fakes.simulations.caching import PrefixStore, simulate

SMALL, LARGE, MEMORY_CONCURRENCY = 2_000, 20_000, 50
GOAL_MEMORY_GROWTH = 1.1  # issue 28: peak memory at LARGE ÷ at SMALL sessions
GOAL_WAITS = 1.1  # issue 28: overhead per call, throttled ÷ plain
WAIT_SESSIONS, WAIT_CONCURRENCY, WAIT_TURNS = 150, 20, 3
CHAIN_ROWS, CHAIN_REQUESTS = 60, 2_000
SCENARIO = """\
id: bench-{name}
title: bench load --limits, {name}
rules: ["10"]
providers:
  openai.main:
    kind: openai
    model: gpt-bench
    context_window: 100000
    fake:
      script:
{steps}
system_prompt: "You answer briefly."
conversation:
  - user: "Which planets have rings around them?"
  - user: "How many moons does Saturn have today?"
  - user: "Which is the largest moon of Jupiter?"
expect: {{}}
"""
PLAIN_STEPS = ['        - {text: "ok"}'] * 3
THROTTLED_STEPS = [
    '        - {text: "ok"}',
    "        - {fault: {kind: rate_limit, retry_after: 1}}",
    '        - {text: "ok"}',
]
TRIMSCOPE = [sys.executable, "-c", "import sys; from harness.cli import main; sys.exit(main())"]


@dataclass(frozen=True, slots=True)
class Run:
    """What one ``trimscope load`` run's ``--json`` says of its costs."""

    sessions: int
    calls: int
    harness_mb: float
    fake_mb: float
    overhead_mean_ms: float
    overhead_p50_ms: float
    waits: int


def load_run(args: Sequence[str], folder: Path) -> Run:
    out = folder / "load.json"
    command = [*TRIMSCOPE, "load", *args, "--quiet", "--max-failed-calls", "1", "--json", str(out)]
    subprocess.run(command, check=False, capture_output=True, text=True)
    data = json.loads(out.read_text(encoding="utf-8"))
    out.unlink()
    waits = data.get("provider_waits") or {}
    return Run(
        data["sessions_completed"],
        data["provider_calls"],
        data["peak_rss_mb"],
        max((s["peak_rss_mb"] for s in data["servers"]), default=0.0),
        data["overhead"]["mean_ms"] or 0.0,
        data["overhead"]["p50_ms"] or 0.0,
        waits.get("samples", 0),
    )


def memory_runs(folder: Path, sizes: tuple[int, int]) -> tuple[Run, Run]:
    common = ["--concurrency", str(MEMORY_CONCURRENCY), "--turns", "1", "--duration", "3600"]
    small, large = (load_run(["--sessions", str(n), *common], folder) for n in sizes)
    return small, large


def wait_runs(folder: Path) -> tuple[Run, Run]:
    runs = []
    for name, steps in (("plain", PLAIN_STEPS), ("throttled", THROTTLED_STEPS)):
        scenario = folder / f"{name}.yaml"
        scenario.write_text(SCENARIO.format(name=name, steps="\n".join(steps)), encoding="utf-8")
        args = ["--scenario", str(scenario), "--sessions", str(WAIT_SESSIONS)]
        args += ["--concurrency", str(WAIT_CONCURRENCY), "--turns", str(WAIT_TURNS)]
        runs.append(load_run(args, folder))
    return runs[0], runs[1]


def _request(chance: random.Random) -> str:
    rows = [
        [("user", "assistant", "tool")[i % 3], " ".join(str(chance.random()) for _ in range(40))]
        for i in range(CHAIN_ROWS)
    ]
    return json.dumps(rows)


def chain_cost_us() -> float:
    """CPU per ``CHAIN_ROWS``-row request through the OpenAI cache policy, each request
    decoded anew (fresh strings, whose hashes are not cached yet)."""
    blob = _request(random.Random(7))
    tools = (ToolSchema("echo", "echo"),)
    requests = [
        CanonicalRequest("gpt-bench", tuple(Row(r, c) for r, c in json.loads(blob)), tools)
        for _ in range(CHAIN_REQUESTS)
    ]
    counter, store = get_counter("heuristic"), PrefixStore()
    tokens = TokenCount(counter.count_rows(requests[0].rows), counter.count_tools(tools))
    began = time.process_time()
    for i, request in enumerate(requests):
        headers = {"x-trimscope-load-session": f"s{i % 20}"}
        simulate("openai", store, counter, request, tokens, headers=headers, now=0.0)
    return (time.process_time() - began) / CHAIN_REQUESTS * 1e6


def _goal(value: float, goal: float) -> str:
    return f"≤ {goal:.2f}×: {'met' if value <= goal else 'NOT MET'}"


def _ratio(large: float, small: float, unit: str) -> tuple[float, str]:
    ratio = large / small if small else 0.0
    return ratio, f"{large:,.3f} / {small:,.3f} {unit} = {ratio:.2f}×"


def report(
    memory: tuple[Run, Run], waits: tuple[Run, Run], chain_us: float, say: Callable[[str], None]
) -> None:
    small, large = memory
    plain, throttled = waits
    harness, harness_text = _ratio(large.harness_mb, small.harness_mb, "MiB")
    fake, fake_text = _ratio(large.fake_mb, small.fake_mb, "MiB")
    mean, mean_text = _ratio(throttled.overhead_mean_ms, plain.overhead_mean_ms, "ms")
    _, p50_text = _ratio(throttled.overhead_p50_ms, plain.overhead_p50_ms, "ms")
    sizes = f"{large.sessions:,} ÷ {small.sessions:,} sessions"
    sizes += f" ({large.calls:,} ÷ {small.calls:,} calls)"
    throttling = f"1 call in 3 throttled ({throttled.waits:,} Retry-After waits) ÷ none"
    chain = f"fakes' prefix chain + OpenAI cache policy, {CHAIN_ROWS}-row request, fresh strings"
    rows = [
        [f"harness peak RSS, {sizes}", harness_text, _goal(harness, GOAL_MEMORY_GROWTH)],
        [f"fake server peak RSS, {sizes}", fake_text, _goal(fake, GOAL_MEMORY_GROWTH)],
        [f"overhead/call mean, {throttling}", mean_text, _goal(mean, GOAL_WAITS)],
        ["overhead/call p50, the same", p50_text, "(information)"],
        [chain, f"{chain_us:.1f} µs CPU", "(information)"],
    ]
    say("")
    say("Issue 28: a load run's own costs")
    say(table(["measure", "value", "goal"], rows))


def run(say: Callable[[str], None], sizes: tuple[int, int] = (SMALL, LARGE)) -> None:
    with tempfile.TemporaryDirectory(prefix="trimscope-bench-limits-") as scratch:
        folder = Path(scratch)
        say(f"limits: peak memory at {sizes[0]:,} and {sizes[1]:,} sessions (two load runs) ...")
        memory = memory_runs(folder, sizes)
        say("limits: overhead with and without Retry-After waits (two load runs) ...")
        waits = wait_runs(folder)
    report(memory, waits, chain_cost_us(), say)
