"""Getting a registry's metrics out: a loopback HTTP endpoint, a textfile, multiprocess mode.

- ``serve_metrics(registry, port)``: ``--serve-metrics PORT``; binds 127.0.0.1 only. Port 0
  picks a free port (``server.port`` says which). Prometheus negotiates OpenMetrics, the
  format that carries exemplars.
- ``write_metrics(registry, path)``: ``--metrics-out FILE``; atomic (written, then renamed).
- Multiprocess mode (Locust workers, later): every process sets ``PROMETHEUS_MULTIPROC_DIR``
  *before* importing prometheus_client; the directory is wiped once at startup
  (``reset_multiprocess_dir``); each worker's ``PrometheusObserver`` writes to it
  (``multiprocess=True``: no exemplars there); the serving process exposes
  ``multiprocess_registry(dir)``; a finished worker is reported with ``mark_worker_dead``.
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Gauge, generate_latest, start_http_server
from prometheus_client import multiprocess as _multiprocess

from harness.atomic import write_bytes_atomic
from harness.telemetry import names as n

LOOPBACK = "127.0.0.1"
MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"


@dataclass(frozen=True, slots=True)
class MetricsServer:
    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/metrics"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def serve_metrics(registry: CollectorRegistry, port: int) -> MetricsServer:
    """Serve ``registry`` on ``http://127.0.0.1:PORT/metrics`` from a daemon thread."""
    server, thread = start_http_server(port, addr=LOOPBACK, registry=registry)
    return MetricsServer(server, thread)


def write_metrics(registry: CollectorRegistry, path: Path) -> None:
    """Write the Prometheus text exposition of ``registry`` to ``path`` atomically."""
    write_bytes_atomic(path, generate_latest(registry))


def mark_interrupted(registry: CollectorRegistry, signal: str) -> None:
    """``trimscope_run_interrupted{signal=...} 1`` on ``registry``: the run was stopped."""
    gauge = Gauge(n.RUN_INTERRUPTED, "1 when a signal stopped the run.", [n.LABEL_SIGNAL])
    registry.register(gauge)
    gauge.labels(signal).set(1)


def multiprocess_enabled(environ: dict[str, str] | None = None) -> bool:
    """Whether prometheus-client runs in multiprocess mode in this process."""
    env = os.environ if environ is None else environ
    return bool(env.get(MULTIPROC_DIR_ENV))


def reset_multiprocess_dir(path: Path) -> None:
    """Empty the shared directory: call once, before any worker starts."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


_MMAP_HEADER_BYTES: Final = 8
"""A worker's metrics file starts with the bytes it uses (4) and padding (4)."""


class _StartedWorkers(_multiprocess.MultiProcessCollector):
    """``MultiProcessCollector`` without the files a worker is still creating.

    A worker creates its file empty, then sizes it; prometheus-client reads every file
    unlocked, so a read in between failed whole (``struct.error`` on the empty header):
    a live ``--serve-metrics`` scrape of a Locust run got an error, not metrics. Such a file holds
    no value yet; it is skipped, and read at the next scrape. Files only grow, so one seen
    with its header is read whole."""

    def __init__(self, registry: CollectorRegistry, path: Path) -> None:
        self._folder = path
        super().__init__(registry, path=str(path))  # type: ignore[no-untyped-call]

    def collect(self) -> object:
        files = [
            str(file) for file in self._folder.glob("*.db") if _size(file) >= _MMAP_HEADER_BYTES
        ]
        return self.merge(files, accumulate=True)  # type: ignore[no-untyped-call]


def _size(file: Path) -> int:
    try:
        return file.stat().st_size
    except OSError:  # removed meanwhile (a dead worker's live gauges)
        return 0


def multiprocess_registry(path: Path) -> CollectorRegistry:
    """A fresh registry that aggregates every worker's files under ``path``."""
    registry = CollectorRegistry()
    _StartedWorkers(registry, path)
    return registry


def mark_worker_dead(pid: int, path: Path) -> None:
    """Drop a finished worker's live gauges (``live*`` modes) from the aggregate."""
    _multiprocess.mark_process_dead(pid, path=str(path))  # type: ignore[no-untyped-call]
