"""prometheus-client multiprocess mode (for Locust workers): counts from several processes
add up in one exposition; no exemplars there."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics_latest

from harness.telemetry import multiprocess_registry, reset_multiprocess_dir
from harness.telemetry import names as n
from tests.telemetry.metrics_text import value

ROOT = Path(__file__).resolve().parents[2]

WORKER = textwrap.dedent(
    """
    from prometheus_client import CollectorRegistry
    from harness.telemetry import PrometheusObserver, multiprocess_enabled
    from tests.telemetry.scripted import scripted_session

    assert multiprocess_enabled()
    observer = PrometheusObserver(
        CollectorRegistry(), exemplars=lambda session: {"trace_id": "ab" * 16}, multiprocess=True
    )
    for event in scripted_session():
        observer.on_event(event)
    """
)


def test_workers_add_up_in_one_registry(tmp_path: Path) -> None:
    shared = tmp_path / "multiproc"
    reset_multiprocess_dir(shared)
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared), "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        subprocess.run([sys.executable, "-c", WORKER], env=env, check=True, timeout=60)
    registry = multiprocess_registry(shared)
    assert value(registry, n.TRIMS.name) == 10
    assert value(registry, n.TRIMS.name, trigger="turn_limit") == 4
    assert value(registry, f"{n.UTILIZATION.name}_count") == 10
    assert value(registry, n.BUDGET_TOKENS.name) == 6000  # mostrecent, not summed
    assert "trace_id" not in openmetrics_latest(registry).decode()


def test_reset_empties_the_directory(tmp_path: Path) -> None:
    shared = tmp_path / "multiproc"
    shared.mkdir()
    (shared / "counter_1.db").write_bytes(b"stale")
    reset_multiprocess_dir(shared)
    assert list(shared.iterdir()) == []


def test_a_file_a_worker_is_still_creating_is_skipped_not_fatal(tmp_path: Path) -> None:
    shared = tmp_path / "multiproc"
    reset_multiprocess_dir(shared)
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", WORKER], env=env, check=True, timeout=60)
    (shared / "counter_424242.db").touch()  # created, not yet sized: no header to read
    stock = CollectorRegistry()
    MultiProcessCollector(stock, path=str(shared))  # type: ignore[no-untyped-call]
    with pytest.raises(struct.error):  # what a live scrape met before
        generate_latest(stock)
    registry = multiprocess_registry(shared)
    assert value(registry, n.TRIMS.name) == 5  # the finished worker's, the new file skipped
    (shared / "counter_424242.db").unlink()
    assert value(registry, n.TRIMS.name) == 5
