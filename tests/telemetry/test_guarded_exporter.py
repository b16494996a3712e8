"""``GuardedExporter``: a collector that does not answer is reported once, its batches are
dropped at once for a while instead of retried, and the run is told so in one line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from harness.load.launcher import free_port
from harness.telemetry.exporters import GuardedExporter

LOGGER = "tests.guarded.exporter"
ROOT = Path(__file__).resolve().parents[2]


class Flaky(SpanExporter):
    """Fails while ``down``; logs as the OTLP exporter does when it fails."""

    def __init__(self) -> None:
        self.down = True
        self.calls = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.calls += 1
        if self.down:
            logging.getLogger(LOGGER).warning(
                'Transient error (Caused by NewConnectionError("[Errno 111] Connection '
                'refused")) encountered while exporting spans batch, retrying in 1s.'
            )
            logging.getLogger(LOGGER).error("Failed to export spans batch due to timeout.")
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


_INSTALLED: list[GuardedExporter] = []


@pytest.fixture(autouse=True)
def _uninstall() -> Iterator[None]:
    """A guard filters its logger until shut down: no test leaves one behind."""
    yield
    while _INSTALLED:
        _INSTALLED.pop().shutdown()


def _guard(inner: Flaky, clock: Clock, warned: list[str]) -> GuardedExporter:
    guard = GuardedExporter(
        inner, target="http://collector:4318/v1/traces", warn=warned.append,
        retry_after_s=30, clock=clock, logger=LOGGER,
    )  # fmt: skip
    _INSTALLED.append(guard)
    return guard


def test_one_line_names_the_target_and_the_system_error() -> None:
    inner, clock = Flaky(), Clock()
    warned: list[str] = []
    guard = _guard(inner, clock, warned)
    for _ in range(5):  # each after the wait: tried, and failed, five times
        assert guard.export([]) is SpanExportResult.FAILURE
        clock.now += 31
    assert inner.calls == 5
    assert warned == [
        "OTLP: cannot export spans to http://collector:4318/v1/traces: [Errno 111] Connection"
        " refused; spans are dropped (tried again every 30 s), the run goes on"
    ]


def test_after_a_failure_batches_are_dropped_without_trying_until_the_wait_is_over() -> None:
    inner, clock = Flaky(), Clock()
    warned: list[str] = []
    guard = _guard(inner, clock, warned)
    guard.export([])
    clock.now += 29.9
    guard.export([])
    guard.export([])
    assert inner.calls == 1
    clock.now += 0.2
    inner.down = False  # the collector is back: the next try goes through
    assert guard.export([]) is SpanExportResult.SUCCESS
    assert inner.calls == 2
    assert len(warned) == 1


def test_the_exporters_own_logs_are_silenced_only_while_the_guard_is_installed() -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger(LOGGER)
    handler = Keep()
    logger.addHandler(handler)
    try:
        guard = _guard(Flaky(), Clock(), [])
        guard.export([])
        assert records == []
        _INSTALLED.remove(guard)
        guard.shutdown()
        logger.warning("after")
        assert [r.getMessage() for r in records] == ["after"]
    finally:
        logger.removeHandler(handler)


def test_a_run_with_no_collector_says_so_once_and_passes(tmp_path: Path) -> None:
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    command = [str(Path(sys.executable).with_name("trimscope")), "run", "scenarios/"]
    command += ["-k", "budget-proactive-drops-oldest-turns", "--otlp"]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "OTLP" in line]
    assert len(warnings) == 1, done.stderr
    assert "Connection refused" in warnings[0]
    assert "Transient error" not in done.stderr
