"""One Locust worker process's share of a load run (the locustfile's harness half).

Nothing here imports Locust or gevent: the locustfile does, and hands this module plain
callables. The plan comes from the file named by ``PLAN_ENV``. Each worker process runs at
most ``plan.sessions_per_process`` sessions (then its users stop and it quits, which ends
the test once every worker has quit), and none past ``plan.duration_s``. Session indices
are numbered across the run (``WorkerState.place``): N workers run the plan's sessions
once each, as the asyncio mode does.

Metrics: with ``PROMETHEUS_MULTIPROC_DIR`` set (the launcher sets it, and wipes the folder
first), the harness's ``PrometheusObserver`` and the load families of ``LoadMetrics`` write
to that folder, and the launcher aggregates every worker through ``MultiProcessCollector``.

A plan without ``base_urls`` (remote workers, docs/load.md) makes each worker process
start its own fake servers on its own loopback interface and stop them when it quits.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import httpx
from prometheus_client import CollectorRegistry

from harness.events import EventBus, Observer
from harness.load.metrics import COMPLETED, INTERRUPTED, LoadMetrics, session_outcome
from harness.load.server import FakeServers, peak_rss_mb
from harness.load.session import CallHook, Samples, SessionFactory, TurnHook
from harness.load.tally import LoadTally
from harness.load.template import LoadPlan, read_plan, write_plan
from harness.load.transport import InlineSyncTransport, cancelled_when_killed, drive
from harness.telemetry import PrometheusObserver, multiprocess_enabled

PLAN_ENV: Final = "TRIMSCOPE_LOAD_PLAN"


async def blocking_sleep(seconds: float) -> None:
    """The agent's rate-limit wait in a worker: ``time.sleep``, which gevent has patched,
    so it yields to the other users instead of needing an event loop. A kill meanwhile
    cancels the turn (``cancelled_when_killed``)."""
    with cancelled_when_killed():
        time.sleep(seconds)


class WorkerState:
    """The sessions, bus and metrics one worker process shares between its users."""

    def __init__(self, plan: LoadPlan, *, workdir: Path | None = None) -> None:
        self._servers: FakeServers | None = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        if not plan.base_urls:
            plan = plan.with_base_urls(self._start_servers(plan, workdir))
        self.plan = plan
        self.budget = plan.sessions_per_process or plan.sessions
        self.offset = 0  # the first session index of this worker's share (``place``)
        self._placed = False
        self.deadline = time.monotonic() + plan.duration_s
        self.tally = LoadTally()
        self.metrics: LoadMetrics | None = None
        observers: list[Observer] = [self.tally]
        if multiprocess_enabled():
            registry = CollectorRegistry()
            observers.append(PrometheusObserver(registry, multiprocess=True))
            self.metrics = LoadMetrics(registry)
            observers.append(self.metrics)  # turn errors by type, for the summary
        self.bus = EventBus(observers=observers)
        self.samples = Samples()
        self.prefix = f"load-{os.getpid()}-"
        self._lock = threading.Lock()
        self._claimed = 0
        self._running = 0
        self._announced = False

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> WorkerState:
        env = os.environ if environ is None else environ
        path = env.get(PLAN_ENV)
        if not path:
            raise RuntimeError(f"set {PLAN_ENV} to a plan file (trimscope load --write-plan)")
        return cls(read_plan(Path(path)))

    def _start_servers(self, plan: LoadPlan, workdir: Path | None) -> Mapping[str, str]:
        if workdir is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="trimscope-load-worker-")
            workdir = Path(self._scratch.name)
        plan_file = workdir / "plan.json"
        write_plan(plan, plan_file)
        self._servers = FakeServers(plan_file, [p.ref for p in plan.template.providers], workdir)
        return self._servers.start()

    def factory(
        self, http: httpx.AsyncClient, on_call: CallHook | None, on_turn: TurnHook | None
    ) -> SessionFactory:
        """A session factory for one user, on that user's own client."""
        metrics = self.metrics

        def call(ref: str, seconds: float, error: BaseException | None) -> None:
            if metrics is not None:
                metrics.call(ref, seconds, error)
            if on_call is not None:
                on_call(ref, seconds, error)

        return SessionFactory(
            self.plan.template,
            self.plan.base_urls,
            http,
            self.bus,
            self.samples,
            sleep=blocking_sleep,
            on_call=call,
            on_turn=on_turn,
            on_overhead=metrics.overhead.observe if metrics else None,
            on_wait=metrics.provider_waits.observe if metrics else None,
            session_prefix=self.prefix,
        )

    def user_client(self) -> httpx.AsyncClient:
        """One connection per user: a user has one request in flight at a time."""
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        sync = httpx.HTTPTransport(limits=limits)
        return httpx.AsyncClient(
            transport=InlineSyncTransport(sync),
            timeout=httpx.Timeout(self.plan.http_timeout_s),
            trust_env=False,
        )

    def place(self, worker_index: int) -> None:
        """Number this worker's sessions across the run, once (Locust assigns each worker
        its index when it joins the master): with a share per process, worker ``k`` runs
        session indices from ``k × share`` on, and no further than the plan's
        ``sessions``, so N workers run sessions 0 to ``sessions − 1``, each once, as the
        asyncio mode does (a session's conversation depends on its index); also across
        machines (``--write-plan`` writes the share). A plan without a share keeps every
        worker at 0 with all the sessions."""
        with self._lock:
            if self._placed:
                return
            self._placed = True
            share = self.plan.sessions_per_process
            if share is None or self._claimed:
                return
            self.offset = max(0, worker_index) * share
            self.budget = max(0, min(share, self.plan.sessions - self.offset))

    def claim(self) -> int | None:
        """The next session for a user, or ``None``: the budget or the time is used up."""
        with self._lock:
            if self._claimed >= self.budget or time.monotonic() >= self.deadline:
                return None
            self._claimed += 1
            self._running += 1
            return self.offset + self._claimed - 1

    def run(self, factory: SessionFactory, index: int) -> bool:
        """Run one claimed session to its end; ``True`` when it completed (ran every turn,
        and not every one of them failed)."""
        outcome = INTERRUPTED
        try:
            ran = drive(factory.run(index, self.plan.turns, self.deadline))
            outcome = session_outcome(ran.completed, ran.turns_run, ran.turn_errors)
        finally:
            with self._lock:
                self._running -= 1
            if self.metrics is not None:
                self.metrics.session_ended(outcome)
                self.metrics.peak_rss.set(peak_rss_mb() * 1024 * 1024)
        return outcome == COMPLETED

    def finished(self) -> bool:
        """Nothing left to claim and nothing running: this worker may quit."""
        with self._lock:
            exhausted = self._claimed >= self.budget or time.monotonic() >= self.deadline
            return exhausted and self._running == 0

    @property
    def claimed(self) -> int:
        with self._lock:
            return self._claimed

    def announce_done(self) -> bool:
        """``True`` the first time only: the worker tells the master it is done once."""
        with self._lock:
            first, self._announced = not self._announced, True
            return first

    def close(self) -> None:
        if self._servers is not None:
            self._servers.stop()
            self._servers = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


def close_client(http: httpx.AsyncClient) -> None:
    drive(http.aclose())
