"""The measures of ``python -m bench load`` beside its rounds: the observers against their
SDK floor, the agent's time per call in short and long sessions, and an idle session's
memory."""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, replace

from bench.load_runs import DiscardSpans
from bench.load_settings import (
    LENGTH_ROUNDS,
    LONG_SESSIONS,
    LONG_TURNS,
    MEMORY_SESSIONS,
    MEMORY_TURNS,
    MEMORY_WINDOW,
    SHORT_SESSIONS,
    SHORT_TURNS,
)
from bench.observer_floor import FLOOR_ROUNDS, EventRecorder, Floor, compare
from harness.agent import Agent
from harness.events import EventBus
from harness.load import LoadPlan, RunOptions, default_template, run_sessions
from harness.load.runner import forget_cached_rows
from harness.load.session import Samples, SessionFactory, Stopwatch, http_client


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
