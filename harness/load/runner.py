"""``trimscope load``: N sessions, C at a time (asyncio), against real fake servers.

Bounded in count and time: ``plan.sessions`` sessions at most, and no session starts a
turn after ``plan.duration_s``; a turn still running then gets ``STOP_GRACE_S`` more to
finish before it is cancelled, so the run always stops by itself. Sessions share one
``httpx.AsyncClient`` whose pool holds ``plan.concurrency`` connections, one event bus
(the run's ``LoadTally``, then any telemetry observers) and one ``Samples`` record.

A ``StopRequest`` (``trimscope load`` routes SIGINT and SIGTERM to one) stops every
session without losing the calls in flight (``harness.load.stopping``); the run is then
summarised like any other, marked interrupted. The fake-server processes are watched while
the sessions run (every ``WATCH_INTERVAL_S``, and at once after a refused connection): one
that exits stops the run the same way (``stopped_by="server_died"``), and is named in the
summary with when it died and how many calls failed after it. Restarting it instead would
run the rest against a fake that forgot every session's script position and cache.
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from harness.agent import MEASURE_CACHE_LOSS, BookkeepingFactory, Clock
from harness.agent.dispatch import rendered_rows
from harness.events import EventBus, Observer
from harness.interrupt import StopRequest
from harness.load.collector import run_collector
from harness.load.metrics import COMPLETED, FAILED, INTERRUPTED, LoadMetrics, session_outcome
from harness.load.server import FakeServers, cpu_seconds, peak_rss_mb
from harness.load.session import CallHook, Samples, SessionFactory, SessionOutcome, http_client
from harness.load.stopping import (
    STOP_GRACE_S,
    STOPPED_BY_SERVER_DEATH,
    STOPPED_BY_SIGNAL,
    RunStop,
)
from harness.load.summary import (
    LoadSummary,
    Quantiles,
    failed_calls,
    rate,
    trim_rows,
    with_costs,
)
from harness.load.tally import LoadTally
from harness.load.template import LoadPlan, write_plan
from harness.load.watch import WATCH_INTERVAL_S, ServerWatch
from harness.pricing.spend import Spend
from harness.pricing.table import PriceTable
from harness.progress import Tracker
from harness.providers.clients.canonical import decoded_row
from harness.providers.overflow.errors import ProviderServerError
from harness.providers.overflow.failures import CONNECT_ERROR_TYPE
from harness.runtime.text import counted


@dataclass(frozen=True, slots=True)
class RunOptions:
    observers: Sequence[Observer] = ()
    progress: Tracker = field(default_factory=Tracker)
    """Advanced once per session ended (default: shows nothing)."""
    metrics: LoadMetrics | None = None
    transport: httpx.AsyncBaseTransport | None = None
    """The shared client's transport (default: ``ShardedTransport(concurrency)``)."""
    session_prefix: str = "load-"
    """Session ids are ``<prefix><n>``; a fresh prefix restarts each session's script."""
    notes: Sequence[str] = field(default_factory=tuple)
    stop: StopRequest | None = None
    """Cancels the sessions in flight when requested (see the module docstring)."""
    servers: FakeServers | None = None
    """The processes behind ``plan.base_urls``, watched for an unexpected exit."""
    prices: PriceTable | None = None
    """``--prices``: the summary's cost section is priced with it."""
    price_as: str | None = None
    """``--price-as``: price every call as this model of ``prices``."""
    overhead_clock: Clock = time.perf_counter
    """The sessions' stopwatch clock (see ``session``). The agent's stretches between calls
    never await, so ``time.thread_time`` reads exactly their CPU, which a busy machine's
    preemption does not inflate (``bench load`` compares sessions by it); round trips
    measured by that clock mean nothing."""
    cache_loss: BookkeepingFactory = MEASURE_CACHE_LOSS
    """Each session's cache-loss bookkeeping (``NoCacheLossBookkeeping``: trims unmeasured,
    ``bench load``'s caching-off run)."""


@dataclass(slots=True)
class _Progress:
    started: int = 0
    completed: int = 0
    failed: int = 0
    interrupted: int = 0

    def ended(self, label: str, *, forget_every: int) -> None:
        """A session ended as ``label``; every ``forget_every`` sessions, the row caches
        are emptied (``row_cache_sessions``)."""
        self.completed += label == COMPLETED
        self.failed += label == FAILED
        self.interrupted += label == INTERRUPTED
        if (self.completed + self.failed + self.interrupted) % forget_every == 0:
            forget_cached_rows()


ROW_CACHE_SESSIONS_PER_SLOT = 4
MIN_ROW_CACHE_SESSIONS = 256


def row_cache_sessions(concurrency: int) -> int:
    """Sessions ended between two ``forget_cached_rows`` during a run: the caches then
    hold the rows of the recent sessions only, so a run's memory does not grow with its
    sessions until the caches' own bounds (8,192 rows each: ~25 MB of the built-in
    workload's tool rows, filled by ~1,600 sessions). A session still running renders its
    rows again once after a clear (a miss per row, not per call)."""
    return max(MIN_ROW_CACHE_SESSIONS, ROW_CACHE_SESSIONS_PER_SLOT * concurrency)


def forget_cached_rows() -> None:
    """Empty the process-wide row caches (rendered and decoded rows, see
    docs/decisions.md). A finished run's rows are never asked for again (every session's
    content is its own), and full caches kept for nothing make each later garbage
    collection walk ~16,000 more objects: about 25 µs more per provider call measured."""
    rendered_rows.cache_clear()
    decoded_row.cache_clear()


async def run_sessions(plan: LoadPlan, options: RunOptions = RunOptions()) -> LoadSummary:
    """Run ``plan`` against the servers named in ``plan.base_urls``; the summary. The row
    caches are emptied when it ends (``forget_cached_rows``); the collector runs with the
    run's settings meanwhile (``run_collector``)."""
    try:
        with run_collector():
            return await _run_sessions(plan, options)
    finally:
        forget_cached_rows()


async def _run_sessions(plan: LoadPlan, options: RunOptions) -> LoadSummary:
    tally = LoadTally()
    bus = EventBus(observers=(tally, *options.observers))
    samples = Samples()
    metrics = options.metrics
    counts = _Progress()
    stop = RunStop()
    began = time.monotonic()
    watch = ServerWatch(options.servers, began, lambda: failed_calls(tally.calls))
    on_call = _call_watcher(metrics, watch, stop)
    async with http_client(plan.concurrency, plan.http_timeout_s, options.transport) as http:
        factory = SessionFactory(
            plan.template,
            plan.base_urls,
            http,
            bus,
            samples,
            on_call=on_call,
            on_overhead=metrics.overhead.observe if metrics else None,
            session_prefix=options.session_prefix,
            clock=options.overhead_clock,
            stop=stop,
            cache_loss=options.cache_loss,
        )
        cpu_before = cpu_seconds()
        sessions = _Sessions(
            plan, factory, tally, counts, options, deadline=began + plan.duration_s
        )
        results = await _run_watched(sessions, watch, stop, options.stop or StopRequest())
        elapsed = time.monotonic() - began
        cpu = cpu_seconds() - cpu_before
    _raise_worker_error(results)
    if metrics is not None:
        metrics.peak_rss.set(peak_rss_mb() * 1024 * 1024)
    summary = _summary(
        plan,
        tally,
        samples,
        counts,
        elapsed=elapsed,
        cpu=cpu,
        notes=options.notes,
        stopped_by=stop.reason,
    )
    summary = with_costs(summary, Spend.of(tally), options.prices, options.price_as)
    return replace(summary, server_deaths=watch.deaths(failed_calls(tally.calls)))


def _raise_worker_error(results: list[BaseException | None]) -> None:
    """A worker's own failure (not its cancellation) is the run's."""
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            raise result


def _check_servers(watch: ServerWatch, stop: RunStop) -> None:
    watch.check()
    if watch.died:
        stop.request(STOPPED_BY_SERVER_DEATH)


async def _watch(watch: ServerWatch, stop: RunStop) -> None:
    while True:
        _check_servers(watch, stop)
        await asyncio.sleep(WATCH_INTERVAL_S)


def _call_watcher(metrics: LoadMetrics | None, watch: ServerWatch, stop: RunStop) -> CallHook:
    """Each provider call metered; a refused connection looks at the servers at once."""

    def on_call(ref: str, seconds: float, error: BaseException | None) -> None:
        if metrics is not None:
            metrics.call(ref, seconds, error)
        if isinstance(error, ProviderServerError) and error.error_type == CONNECT_ERROR_TYPE:
            _check_servers(watch, stop)  # refused: the likeliest cause is a dead server

    return on_call


class _Sessions:
    """The run's workers: each one runs the next session until the plan's count is reached
    or its deadline passes; every session that ends is counted, metered and shown."""

    def __init__(
        self,
        plan: LoadPlan,
        factory: SessionFactory,
        tally: LoadTally,
        counts: _Progress,
        options: RunOptions,
        *,
        deadline: float,
    ) -> None:
        self.plan, self.factory, self.tally, self.counts = plan, factory, tally, counts
        self.metrics, self.shown, self.deadline = options.metrics, options.progress, deadline
        self.indices = itertools.count()
        self.forget_every = row_cache_sessions(plan.concurrency)

    def ended(self, outcome: SessionOutcome | None) -> None:
        label = INTERRUPTED
        if outcome is not None:
            label = session_outcome(outcome.completed, outcome.turns_run, outcome.turn_errors)
        self.counts.ended(label, forget_every=self.forget_every)
        if self.metrics is not None:
            self.metrics.session_ended(label)
        self.shown.advance(detail=counted(self.tally.provider_calls, "call"))

    async def worker(self, slot: int) -> None:
        plan, deadline = self.plan, self.deadline
        while (index := next(self.indices)) < plan.sessions and time.monotonic() < deadline:
            self.counts.started += 1
            outcome: SessionOutcome | None = None
            try:
                outcome = await self.factory.run(index, plan.turns, deadline, slot=slot)
            finally:
                self.ended(outcome)


async def _run_watched(
    sessions: _Sessions, watch: ServerWatch, stop: RunStop, signals: StopRequest
) -> list[BaseException | None]:
    """The workers run (``_run_workers``) while the servers are watched, progress shown;
    the servers looked at once more at the end (a death between the last look and it)."""
    plan = sessions.plan
    watcher = asyncio.create_task(_watch(watch, stop))
    with sessions.shown:
        results = await _run_workers(
            [sessions.worker(slot) for slot in range(plan.concurrency)],
            plan.duration_s + STOP_GRACE_S,
            signals,
            stop,
        )
    watcher.cancel()
    await asyncio.gather(watcher, return_exceptions=True)
    watch.check()
    return results


async def _run_workers(
    coroutines: list[Coroutine[None, None, None]],
    timeout: float,
    signals: StopRequest,
    stop: RunStop,
) -> list[BaseException | None]:
    """Run the workers until they end or ``timeout`` passes; a stop (``signals``, or
    ``stop`` requested for another reason) shortens that to ``STOP_GRACE_S`` from then
    (``harness.load.stopping``). The unfinished ones are then cancelled; each one's
    exception or ``None``."""
    loop = asyncio.get_running_loop()
    workers = [asyncio.create_task(coroutine) for coroutine in coroutines]
    stop.watch(workers)

    def on_signal() -> None:  # from a signal handler: through the loop, thread-safe
        loop.call_soon_threadsafe(stop.request, STOPPED_BY_SIGNAL)

    with signals.on_request(on_signal):
        ends = loop.time() + timeout
        stopped: asyncio.Future[Any] = asyncio.create_task(stop.stopped.wait())
        pending: set[asyncio.Future[Any]] = set(workers)
        while pending and (left := ends - loop.time()) > 0:
            done, _ = await asyncio.wait(
                {*pending, stopped}, timeout=left, return_when="FIRST_COMPLETED"
            )
            pending.difference_update(done)
            if stopped in done:
                ends = min(ends, loop.time() + STOP_GRACE_S)
                stopped = asyncio.create_task(asyncio.Event().wait())  # never set
        stopped.cancel()
        for task in pending:
            task.cancel()
        return await asyncio.gather(*workers, return_exceptions=True)


def nothing_ran(plan: LoadPlan, notes: Sequence[str], interrupted_by: str) -> LoadSummary:
    """The summary of a run a signal stopped before any session started."""
    summary = _summary(plan, LoadTally(), Samples(), _Progress(), elapsed=0.0, cpu=0.0, notes=notes)
    return interrupted(summary, interrupted_by)


def interrupted(summary: LoadSummary, signal: str) -> LoadSummary:
    """``summary`` marked as stopped by ``signal``."""
    return replace(summary, interrupted=True, interrupted_by=signal, stopped_by="signal")


def _summary(
    plan: LoadPlan,
    tally: LoadTally,
    samples: Samples,
    counts: _Progress,
    *,
    elapsed: float,
    cpu: float,
    notes: Sequence[str],
    stopped_by: str | None = None,
) -> LoadSummary:
    """``stopped_by``: the reason a ``RunStop`` gave, else the count or the duration."""
    everyone_ran = counts.completed + counts.failed == plan.sessions
    trims_total = sum(tally.trims.values())
    started = counts.started
    return LoadSummary(
        mode="asyncio",
        template=plan.template.name,
        provider_kinds=sorted({p.kind for p in plan.template.providers}),
        sessions_requested=plan.sessions,
        concurrency=plan.concurrency,
        turns=plan.turns,
        duration_limit_s=plan.duration_s,
        stopped_by=stopped_by or ("count" if everyone_ran else "duration"),
        elapsed_s=round(elapsed, 4),
        sessions_started=started,
        sessions_completed=counts.completed,
        sessions_interrupted=counts.interrupted,
        sessions_failed=counts.failed,
        sessions_per_s=rate(counts.completed, elapsed),
        provider_calls=tally.provider_calls,
        provider_calls_per_s=rate(tally.provider_calls, elapsed),
        calls_by_outcome=dict(tally.calls),
        turns_by_outcome=dict(tally.turns),
        turn_errors=dict(tally.turn_errors),
        trims=trim_rows(tally.trims, started),
        trims_total=trims_total,
        trims_per_session=round(trims_total / started, 4) if started else 0.0,
        recoveries=dict(tally.recoveries),
        overflows_detected=tally.overflows,
        failed_calls=failed_calls(tally.calls),
        capacity_refusals=tally.capacity_refusals,
        tool_calls=tally.tool_calls,
        overhead=Quantiles.of_sketch(samples.overhead),
        round_trip=Quantiles.of_sketch(samples.round_trip),
        provider_waits=Quantiles.of_sketch(samples.waits),
        peak_rss_mb=round(peak_rss_mb(), 1),
        harness_cpu_s=round(cpu, 3),
        notes=list(notes),
    )


def run_load(
    plan: LoadPlan, options: RunOptions = RunOptions(), workdir: Path | None = None
) -> LoadSummary:
    """Start a fake-server process per provider route, run the sessions, stop the servers;
    the summary carries the servers' own counts, CPU and memory."""
    with tempfile.TemporaryDirectory(prefix="trimscope-load-") as scratch:
        folder = workdir or Path(scratch)
        plan_file = folder / "plan.json"
        write_plan(plan, plan_file)
        refs = [p.ref for p in plan.template.providers]
        with FakeServers(plan_file, refs, folder) as servers:
            urls = servers.start(stop=options.stop)
            watched = replace(options, servers=servers)
            summary = asyncio.run(run_sessions(plan.with_base_urls(urls), watched))
            stats = servers.stop()
    if options.stop is not None and options.stop.name is not None:
        summary = interrupted(summary, options.stop.name)
    return replace(summary, servers=stats)
