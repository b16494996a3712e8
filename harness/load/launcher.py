"""``trimscope load --locust``: Locust headless, master and workers, on this machine.

Steps, each bounded in time: wipe ``PROMETHEUS_MULTIPROC_DIR`` (a folder of the run); start
the fake servers (one process per provider route, 127.0.0.1); write the plan with their
URLs and each worker's share of the sessions; start ``locust --master`` (bound to
127.0.0.1, ``--expect-workers N``, ``-u`` = concurrency, ``-t`` = duration) and N
``locust --worker`` processes (or one ``locust --processes N``); wait for them (the test
ends at ``-t``, or earlier once every worker has run its share and quit); stop the
servers; read the aggregate through ``MultiProcessCollector`` into a ``LoadSummary`` (with
its cache section, and its cost section when a price table is given, as in asyncio mode).

Locust is never imported here: it runs in its own processes (``python -m locust``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from prometheus_client import CollectorRegistry

from harness.interrupt import StopRequest
from harness.load import metrics as m
from harness.load.fake import ServerStats
from harness.load.launcher_summary import failed_so_far, locust_summary
from harness.load.runner import interrupted
from harness.load.server import FakeServers
from harness.load.summary import LoadSummary
from harness.load.template import LoadPlan, write_plan
from harness.load.watch import ServerWatch
from harness.load.worker import PLAN_ENV
from harness.pricing.table import PriceTable
from harness.progress import Tracker
from harness.telemetry import multiprocess_registry, reset_multiprocess_dir, serve_metrics
from harness.telemetry.exposition import LOOPBACK, MULTIPROC_DIR_ENV

LOCUSTFILE: Final = Path(__file__).with_name("locustfile.py")
"""The locustfile: pass it to ``locust -f`` (never import it: it imports locust and gevent)."""
STARTUP_GRACE_S: Final = 60.0
"""Time allowed on top of the run for Locust's processes to start and report."""
STOP_TIMEOUT_S: Final = 10
TICK_S: Final = 1.0
"""How often the progress of a Locust run reads the workers' session counts."""
POLL_S: Final = 0.2
"""How often waits on Locust's processes look at the stop request."""


@dataclass(frozen=True, slots=True)
class LocustOptions:
    workers: int = 2
    processes: bool = False
    """``locust --processes N`` (Locust forks its workers) instead of N worker processes."""
    spawn_rate: float | None = None
    """Users started per second (default: all within a second)."""
    prices: PriceTable | None = None
    """``--prices``: the summary's cost section is priced with it (by the launcher, from
    the aggregated token counts; the workers do not need the table)."""
    price_as: str | None = None
    """``--price-as``: price every call as this model of ``prices``."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


def locust_base(plan: LoadPlan) -> list[str]:
    return [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--loglevel", "WARNING"]


def master_command(
    plan: LoadPlan, options: LocustOptions, port: int, stats_file: Path, host: str
) -> list[str]:
    rate = options.spawn_rate or float(plan.concurrency)
    command = [
        *locust_base(plan),
        "--headless",
        "--only-summary",
        "--master-bind-host",
        LOOPBACK,
        "--master-bind-port",
        str(port),
        "-u",
        str(plan.concurrency),
        "-r",
        f"{rate:g}",
        "-t",
        f"{math.ceil(plan.duration_s)}s",
        "--stop-timeout",
        str(STOP_TIMEOUT_S),
        "--json-file",
        str(stats_file.with_suffix("")),
        "--exit-code-on-error",
        "0",
        "--host",
        host,
    ]
    if options.processes:  # the forked workers connect to --master-port, not the bind port
        return [*command, "--processes", str(options.workers), "--master-port", str(port)]
    wait = str(int(STARTUP_GRACE_S))
    return [*command, "--master", "--expect-workers", str(options.workers),
            "--expect-workers-max-wait", wait]  # fmt: skip


def worker_command(plan: LoadPlan, port: int) -> list[str]:
    return [*locust_base(plan), "--worker", "--master-host", LOOPBACK, "--master-port", str(port)]


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill a Locust process and what it forked (``--processes``): its own process group."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(STOP_TIMEOUT_S)


def _wait(
    processes: Sequence[subprocess.Popen[bytes]],
    deadline: float,
    stop: StopRequest,
    watch: ServerWatch,
    tick: Callable[[], None] | None = None,
) -> None:
    """Wait for each process until ``deadline`` (then kill its group) or until ``stop`` is
    requested (then return at once: the caller stops them in order); the fake servers are
    looked at on the way, and ``tick`` is called every ``TICK_S`` (progress)."""
    ticked = time.monotonic()
    for process in processes:
        while process.poll() is None and not stop.requested:
            if time.monotonic() >= deadline:
                _kill_group(process)
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(POLL_S)
            watch.check()
            if tick is not None and time.monotonic() - ticked >= TICK_S:
                ticked = time.monotonic()
                tick()


def sessions_ended(multiproc: Path) -> int:
    """Sessions every worker has ended so far, read from their metric files."""
    return sum(m.by_labels(multiprocess_registry(multiproc), m.SESSIONS).values())


def _terminate(processes: Sequence[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to each process group (Locust's master then stops its workers and writes its
    stats; workers fire ``quitting``), a bounded wait, then SIGKILL to what is left."""
    for process in processes:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(max(0.1, deadline - time.monotonic()))


def run_locust(
    plan: LoadPlan,
    options: LocustOptions = LocustOptions(),
    workdir: Path | None = None,
    *,
    serve_metrics_port: int | None = None,
    notes: Sequence[str] = (),
    progress: Tracker | None = None,
    stop: StopRequest | None = None,
    metrics_out: Callable[[CollectorRegistry, str | None], None] | None = None,
) -> LoadSummary:
    """Run ``plan`` under Locust (see the module docstring) and summarise it.
    ``serve_metrics_port``: serve the live aggregate of every worker on 127.0.0.1.
    ``metrics_out``: given the final aggregate (and the signal that stopped the run, if
    one did) once the workers are gone, to write it (``--metrics-out``).
    ``progress`` advances as the workers end sessions (read every ``TICK_S``).
    ``stop``: when requested, Locust is stopped in order (SIGTERM to the master, which
    stops its workers and writes its stats) and what ran is summarised, marked."""
    if options.workers < 1:
        raise ValueError("Locust mode needs at least one worker")
    stop = stop or StopRequest()
    with tempfile.TemporaryDirectory(prefix="trimscope-locust-") as scratch:
        folder = workdir or Path(scratch)
        multiproc = folder / "prometheus"
        reset_multiprocess_dir(multiproc)
        metrics = None
        if serve_metrics_port is not None:
            metrics = serve_metrics(multiprocess_registry(multiproc), serve_metrics_port)
        try:
            summary = _run(
                plan, options, folder, multiproc, progress=progress or Tracker(), stop=stop
            )
        finally:
            if metrics is not None:
                metrics.close()
        if metrics_out is not None:
            metrics_out(multiprocess_registry(multiproc), stop.name)
        return replace(summary, notes=[*notes, *summary.notes])


def _run(
    plan: LoadPlan,
    options: LocustOptions,
    folder: Path,
    multiproc: Path,
    *,
    progress: Tracker,
    stop: StopRequest,
) -> LoadSummary:
    server_plan = folder / "plan.json"
    write_plan(plan, server_plan)
    with FakeServers(server_plan, [p.ref for p in plan.template.providers], folder) as servers:
        urls = servers.start(stop=stop)
        shared = plan.with_base_urls(urls).per_process(options.workers)
        locust_plan = folder / "locust-plan.json"
        write_plan(shared, locust_plan)
        began = time.monotonic()
        host = next(iter(urls.values()))
        aggregate = multiprocess_registry(multiproc)
        watch = ServerWatch(servers, began, lambda: failed_so_far(aggregate))
        with progress:
            _run_processes(
                shared,
                options,
                folder,
                plan_file=locust_plan,
                multiproc=multiproc,
                host=host,
                progress=progress,
                stop=stop,
                watch=watch,
            )
        elapsed = time.monotonic() - began
        watch.check()
        stats = servers.stop()
    summary = _summarise(shared, options, folder, multiproc, elapsed=elapsed, stats=stats)
    summary = replace(summary, server_deaths=watch.deaths(summary.failed_calls))
    return interrupted(summary, stop.name) if stop.name is not None else summary


def _run_processes(
    plan: LoadPlan,
    options: LocustOptions,
    folder: Path,
    *,
    plan_file: Path,
    multiproc: Path,
    host: str,
    progress: Tracker,
    stop: StopRequest,
    watch: ServerWatch,
) -> None:
    env = {**os.environ, PLAN_ENV: str(plan_file), MULTIPROC_DIR_ENV: str(multiproc)}
    port = free_port()
    stats_file = folder / "locust.json"
    deadline = time.monotonic() + plan.duration_s + STARTUP_GRACE_S + STOP_TIMEOUT_S
    with (folder / "locust.log").open("wb") as log:

        def start(command: list[str]) -> subprocess.Popen[bytes]:
            # A session of its own: the group can be killed whole, forked workers included.
            return subprocess.Popen(
                command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

        started = [start(master_command(plan, options, port, stats_file, host))]
        try:
            if not options.processes:
                started += [start(worker_command(plan, port)) for _ in range(options.workers)]
            counted = 0

            def tick() -> None:
                nonlocal counted
                now = sessions_ended(multiproc)
                progress.advance(now - counted)
                counted = now

            _wait(started[:1], deadline, stop, watch, tick)
            tick()
            _wait(started[1:], time.monotonic() + STOP_TIMEOUT_S * 2, stop, watch)
            if stop.requested:  # the master first: it stops its workers and collects
                _terminate(started[:1])
                _terminate(started[1:])
        finally:
            for process in started:  # interrupted, or a worker outlived its master
                _kill_group(process)


def _summarise(
    plan: LoadPlan,
    options: LocustOptions,
    folder: Path,
    multiproc: Path,
    *,
    elapsed: float,
    stats: list[ServerStats],
) -> LoadSummary:
    locust_stats: list[dict[str, object]] = []
    stats_file = folder / "locust.json"
    if stats_file.exists():
        try:
            loaded = json.loads(stats_file.read_text(encoding="utf-8"))
            locust_stats = loaded if isinstance(loaded, list) else []
        except ValueError:
            locust_stats = []
    log = (folder / "locust.log").read_text(encoding="utf-8", errors="replace")
    summary = locust_summary(
        plan,
        options.workers,
        multiproc,
        elapsed,
        locust_stats=locust_stats,
        log=log,
        prices=options.prices,
        price_as=options.price_as,
    )
    return replace(summary, servers=stats)
