"""The fake servers of a load run, each in a process of its own.

Why a process: the harness's CPU (trims, estimates, checks, JSON) and the fake's (starlette,
decoding, token counting) are then measured apart (``resource.getrusage`` in each), and
the harness's event loop never waits behind the server's. The fake is uvicorn on
127.0.0.1 (``fakes.serve_forever``), one process per provider route of the template.

``python -m harness.load.server PLAN --ref REF --stats FILE`` serves the route's fake,
prints its base URL on stdout once it accepts connections, and on SIGTERM or SIGINT stops,
then writes ``ServerStats`` as JSON to FILE (atomically). ``FakeServerProcess`` starts and
stops one such process from the harness, bounded in time.

Each server runs in a process group of its own: Ctrl-C in a terminal signals the whole
foreground group, and a server stopped by it at once would fail the calls still in flight
before the harness has stopped its sessions in order. The harness stops it (SIGTERM) when
its sessions are done, interrupted or not. Should the harness die without stopping it
(SIGKILL), the server notices that its parent is gone (``ORPHAN_CHECK_S``) and stops
itself, so no server outlives its run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from types import TracebackType

from fakes import serve_forever
from harness.atomic import write_text_atomic
from harness.interrupt import StopRequest
from harness.load.fake import ServerStats, build_load_fake
from harness.load.template import read_plan
from harness.runtime import HarnessError

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0
ORPHAN_CHECK_S = 1.0
"""How often a fake-server process checks that the process that started it still lives."""


class ServerStartError(HarnessError, RuntimeError):
    """The fake-server process did not announce its URL in time."""


def peak_rss_mb() -> float:
    """This process's peak resident set size (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _write_json(path: Path, value: object) -> None:
    write_text_atomic(path, json.dumps(value, indent=2))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.load.server")
    parser.add_argument("plan", type=Path)
    parser.add_argument("--ref", required=True, help="provider reference <type>.<alias>")
    parser.add_argument("--stats", type=Path, required=True)
    args = parser.parse_args(argv)
    plan = read_plan(args.plan)
    provider = plan.template.provider(args.ref)
    fake = build_load_fake(provider, counting=True, sessions_at_once=plan.concurrency)

    def ready(url: str) -> None:
        print(url, flush=True)

    parent = os.getppid()
    threading.Thread(target=_stop_when_orphaned, args=(parent,), daemon=True).start()

    serve_forever(fake, on_ready=ready)
    stats = ServerStats.from_fake(args.ref, fake, cpu_seconds(), peak_rss_mb())
    _write_json(args.stats, asdict(stats))
    return 0


def _stop_when_orphaned(parent: int) -> None:
    """SIGTERM to this process (the same orderly stop as from the harness) once its parent
    has died: the process is then re-parented, and ``getppid`` changes."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_S)
    os.kill(os.getpid(), signal.SIGTERM)


class FakeServerProcess:
    """One fake-server process: ``start()`` returns its base URL, ``stop()`` its stats."""

    def __init__(self, plan_file: Path, ref: str, workdir: Path) -> None:
        self.plan_file = plan_file
        self.ref = ref
        safe = ref.replace("/", "_")
        self.stats_file = workdir / f"server-{safe}.json"
        self.log_file = workdir / f"server-{safe}.log"
        self.url: str | None = None
        self._process: subprocess.Popen[str] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self, timeout: float = START_TIMEOUT_S, stop: StopRequest | None = None) -> str:
        """Start the process and wait for its URL; ``Interrupted`` when ``stop`` is
        requested meanwhile (the process is killed first)."""
        command = [sys.executable, "-m", "harness.load.server", str(self.plan_file)]
        command += ["--ref", self.ref, "--stats", str(self.stats_file)]
        with self.log_file.open("w", encoding="utf-8") as log:
            self._process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=_server_env(),
                process_group=0,  # see the module docstring
            )
        self.url = self._read_url(timeout, stop)
        return self.url

    def exit_code(self) -> int | None:
        """The exit status once the process has exited (without being stopped), else None."""
        return self._process.poll() if self._process is not None else None

    def _read_url(self, timeout: float, stop: StopRequest | None) -> str:
        process = self._process
        assert process is not None
        assert process.stdout is not None
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            if stop is not None and stop.requested:
                self.kill()
                stop.raise_if_requested()
            readable, _, _ = select.select([process.stdout], [], [], min(remaining, 0.5))
            if readable:
                line = process.stdout.readline().strip()
                if line.startswith("http://"):
                    return line
            if process.poll() is not None:
                break
        self.kill()
        log = self.log_file.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise ServerStartError(f"fake server for {self.ref} did not start: {log}")

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> ServerStats | None:
        """SIGTERM, wait (bounded), then read the stats it wrote; ``None`` if it wrote none."""
        process = self._process
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        if process.stdout is not None:
            process.stdout.close()
        self._process = None
        try:
            data = json.loads(self.stats_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return ServerStats(**data)

    def kill(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(STOP_TIMEOUT_S)


def _server_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # the fake keeps no harness metrics
    return env


class FakeServers:
    """Every provider route of a plan, each served by its own process (context manager)."""

    def __init__(self, plan_file: Path, refs: Sequence[str], workdir: Path) -> None:
        self.processes = [FakeServerProcess(plan_file, ref, workdir) for ref in refs]
        self.stats: list[ServerStats] = []
        self._stopped = False

    def start(self, stop: StopRequest | None = None) -> Mapping[str, str]:
        try:
            return {p.ref: p.start(stop=stop) for p in self.processes}
        except BaseException:
            self.stop()
            raise

    def exited(self) -> list[tuple[str, int]]:
        """(ref, exit status) of each process that has exited on its own so far."""
        return [(p.ref, code) for p in self.processes if (code := p.exit_code()) is not None]

    def stop(self) -> list[ServerStats]:
        """Stop every process (once); the stats of those that reported."""
        if self._stopped:
            return self.stats
        self._stopped = True
        stats = []
        for process in self.processes:
            with contextlib.suppress(Exception):
                if (found := process.stop()) is not None:
                    stats.append(found)
        self.stats = stats
        return stats

    def __enter__(self) -> FakeServers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


if __name__ == "__main__":
    sys.exit(main())
