"""A real Prometheus scrapes a trimscope metrics endpoint; every dashboard query returns data.

Needs Debian's ``prometheus`` package (``scripts/ensure-system-deps.sh`` installs it). Without
the binaries the tests skip, except under CI (``CI=true``), where they fail: CI must run them.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from prometheus_client import CollectorRegistry, generate_latest

from dashboards import PanelQuery, substitute
from harness.telemetry import OtelObserver, PrometheusObserver, serve_metrics
from harness.telemetry import names as n
from tests.dashboards.conftest import all_queries
from tests.telemetry.scripted import scripted_session

pytestmark = pytest.mark.integration

JOB = "trimscope"
DEADLINE_S = 30.0
QUERIES = all_queries()
VARIABLES = {"job": JOB, "provider": ".*"}


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    message = (
        f"`{name}` not found: install Debian's `prometheus` package "
        "(scripts/ensure-system-deps.sh does it when run as root)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must run the real-Prometheus tests")
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@dataclass
class Prometheus:
    base: str
    log: Path

    def query(self, expr: str) -> list[dict[str, Any]]:
        url = f"{self.base}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
        answer = _get(url)
        assert answer["status"] == "success", answer
        result: list[dict[str, Any]] = answer["data"]["result"]
        return result

    def scalar(self, expr: str) -> float:
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else float("nan")

    def wait_for(self, what: str, check: Callable[[], bool]) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            try:
                if check():
                    return
            except (OSError, AssertionError, IndexError):
                pass
            time.sleep(0.25)
        pytest.fail(
            f"timed out waiting for {what}; prometheus log:\n{self.log.read_text()[-3000:]}"
        )


def _config(path: Path, target_port: int) -> Path:
    path.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"scrape_configs:\n  - job_name: {JOB}\n    scrape_interval: 1s\n"
        f"    static_configs:\n      - targets: ['127.0.0.1:{target_port}']\n"
    )
    return path


def _start(
    binary: str, workdir: Path, target_port: int
) -> tuple[subprocess.Popen[bytes], Prometheus]:
    port = _free_port()
    log = workdir / "prometheus.log"
    command = [
        binary,
        f"--config.file={_config(workdir / 'prometheus.yml', target_port)}",
        f"--storage.tsdb.path={workdir / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--enable-feature=exemplar-storage",
        "--log.level=warn",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    return process, Prometheus(f"http://127.0.0.1:{port}", log)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    """Prometheus scraping a metrics endpoint fed with two scripted sessions, one before and
    one after the first scrapes (so rates are not zero)."""
    binary = _binary("prometheus")
    registry = CollectorRegistry()
    otel = OtelObserver(TracerProvider())
    observers = (otel, PrometheusObserver(registry, trace_ids=otel.trace_id_of))

    def feed(session: str) -> None:
        for event in scripted_session(session):
            for observer in observers:
                observer.on_event(event)

    feed("s1")
    server = serve_metrics(registry, 0)
    process, prom = _start(binary, tmp_path_factory.mktemp("prometheus"), server.port)
    total = f'sum({n.TRIMS.name}{{job="{JOB}"}})'
    try:
        prom.wait_for("the first scrape", lambda: prom.scalar(total) == 5)
        feed("s2")
        prom.wait_for("the second session", lambda: prom.scalar(total) == 10)
        samples = f'min(count_over_time({n.TRIMS.name}{{job="{JOB}"}}[1m]))'
        prom.wait_for("three scrapes of every series", lambda: prom.scalar(samples) >= 3)
        yield prom
    finally:
        _stop(process)
        server.close()


def test_trims_by_reason_have_the_expected_values(prometheus: Prometheus) -> None:
    result = prometheus.query(f'sum by (reason) ({n.TRIMS.name}{{job="{JOB}"}})')
    by_reason = {r["metric"]["reason"]: float(r["value"][1]) for r in result}
    assert by_reason == {"token_budget": 6.0, "turn_limit": 4.0}


def test_the_trims_panel_shows_a_positive_rate(prometheus: Prometheus) -> None:
    (panel,) = [q for q in QUERIES if q.panel == "History trims / s by reason and trigger"]
    result = prometheus.query(substitute(panel.expr, VARIABLES))
    rates = {(r["metric"]["reason"], r["metric"]["trigger"]): float(r["value"][1]) for r in result}
    assert set(rates) == {
        ("token_budget", "proactive"),
        ("token_budget", "reported_usage"),
        ("token_budget", "reactive"),
        ("turn_limit", "turn_limit"),
    }
    assert all(rate > 0 for rate in rates.values())


@pytest.mark.parametrize("query", QUERIES, ids=[q.where for q in QUERIES])
def test_every_dashboard_query_returns_data(prometheus: Prometheus, query: PanelQuery) -> None:
    result = prometheus.query(substitute(query.expr, VARIABLES))
    values = [float(r["value"][1]) for r in result]
    assert values, query.expr
    assert any(math.isfinite(v) for v in values), (query.expr, values)  # not only NaN


def test_exemplars_with_trace_ids_reach_prometheus(prometheus: Prometheus) -> None:
    now = time.time()
    params = {"query": n.TRIMS.name, "start": now - 600, "end": now + 60}
    answer = _get(f"{prometheus.base}/api/v1/query_exemplars?{urllib.parse.urlencode(params)}")
    labels = [e["labels"] for series in answer["data"] for e in series["exemplars"]]
    assert labels
    assert all(len(label[n.EXEMPLAR_TRACE_ID]) == 32 for label in labels)


def test_promtool_check_metrics_prints_no_warning() -> None:
    promtool = _binary("promtool")
    registry = CollectorRegistry()
    observer = PrometheusObserver(registry)
    for event in scripted_session():
        observer.on_event(event)
    done = subprocess.run(
        [promtool, "check", "metrics"],
        input=generate_latest(registry),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, b"")
