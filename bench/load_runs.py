"""The timed runs of ``python -m bench load`` below the harness: what a run measured, the
clocks that time it, and the baseline (the exact request bodies of a harness run, recorded
once, replayed by a bare httpx loop)."""

from __future__ import annotations

import asyncio
import os
import resource
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from harness.load import LoadPlan, RunOptions, run_sessions
from harness.load.collector import run_collector
from harness.load.session import http_client
from harness.load.template import SESSION_HEADER
from harness.load.transport import SLOT_HEADER, ShardedTransport


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
