"""A real Prometheus scrapes a real trimscope process; every dashboard query returns data.

Prometheus (2.x, Debian's ``prometheus`` package, installed by ``scripts/ensure-system-deps.sh``)
starts on 127.0.0.1 with a temporary config that scrapes, every 250 ms, the port a
``trimscope run scenarios/ -k '^(telemetry-every-metric|telemetry-provider-edits|
provider-anthropic-compaction-reused)$'
--serve-metrics PORT --hold-metrics S --otel-jsonl FILE --prices docs/prices.example.yaml
--price-as MODEL`` subprocess then serves (priced, so the cost panels have data). Each
scenario runs its cycle twice with provider latency, so every series exists before it
grows again and rates, ratios and quantiles have something to show. Once Prometheus holds
the run's final values, every dashboard query (macros substituted) goes through the HTTP
API and must return data that is not only NaN (a series that appears once and holds still
has a rate of 0, which counts); ``promtool check metrics`` on the process's
exposition must print nothing. Last, SIGINT ends the hold and the process exits 0 (all
three scenarios passed).

The same job has a second target, ``tests/dashboards/wire_target.py``: what the proxy
exports for a runtime on the wire (``source="wire"``), for the wire dashboard and the
alerts on wire findings.

Without the binaries the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dashboards import ALERTS, PanelQuery, substitute
from dashboards.alerts import Alert
from harness.telemetry import names as n
from tests.dashboards.conftest import ROOT, all_queries, require_program
from tests.telemetry.scripted import wire_findings

pytestmark = pytest.mark.integration

JOB = "trimscope"
SCENARIO = "telemetry-every-metric"
PROVIDER_EDITS_SCENARIO = "telemetry-provider-edits"
"""Run with it: provider-side edits (issue 17) for the provider-edit panels."""
COMPACTION_SCENARIO = "provider-anthropic-compaction-reused"
"""And an Anthropic compaction, whose usage iterations the compaction-step panel shows."""
RUN = (SCENARIO, PROVIDER_EDITS_SCENARIO, COMPACTION_SCENARIO)
PRICES = ROOT / "docs" / "prices.example.yaml"
PRICE_AS = "claude-sonnet-4-5"
"""Priced with the shipped table; a model whose cache writes cost more than input, so the
write premium has a price too."""
SCRAPE_INTERVAL = "250ms"
HOLD_S = 300
"""Upper bound only: the fixture ends the hold with SIGINT when the tests are done."""
DEADLINE_S = 60.0
WIRE_FINDINGS_PER_RUN = 2 * sum(len(found) for _, found in wire_findings("w"))
"""``wire_target``: ``wire_session`` twice."""
QUERIES = all_queries()
VARIABLES = {"job": JOB, "provider": ".*"}
TRIMS_PER_RUN = 10
TURNS_PER_RUN = 12 + 2 + 2
"""What ``scenarios/telemetry-every-metric.yaml`` expects (its ``counts``), plus the two
turns of ``telemetry-provider-edits`` and the two of the compaction scenario, which trim
nothing."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def _tail(path: Path, chars: int = 3000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else "(no log)"


@dataclass
class Prometheus:
    base: str
    logs: list[Path] = field(default_factory=list)
    """Prometheus's own log, then those of the process it scrapes (shown on a timeout)."""

    def query(self, expr: str) -> list[dict[str, Any]]:
        url = f"{self.base}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
        answer = _get(url)
        assert answer["status"] == "success", answer
        result: list[dict[str, Any]] = answer["data"]["result"]
        return result

    def scalar(self, expr: str) -> float:
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else float("nan")

    def report(self) -> str:
        return "\n".join(f"--- {path.name}:\n{_tail(path)}" for path in self.logs)

    def wait_for(self, what: str, check: Callable[[], bool]) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            try:
                if check():
                    return
            except (OSError, AssertionError, IndexError, KeyError):
                pass
            time.sleep(0.25)
        pytest.fail(f"timed out after {DEADLINE_S:g}s waiting for {what}\n{self.report()}")


@dataclass
class Live:
    """Prometheus and the trimscope process it scrapes."""

    prom: Prometheus
    trimscope: subprocess.Popen[bytes]
    out: Path
    err: Path
    metrics_url: str


def _config(path: Path, target_ports: tuple[int, ...]) -> Path:
    targets = ", ".join(f"'127.0.0.1:{port}'" for port in target_ports)
    path.write_text(
        f"global:\n  scrape_interval: {SCRAPE_INTERVAL}\n  evaluation_interval: 1s\n"
        f"scrape_configs:\n  - job_name: {JOB}\n    scrape_interval: {SCRAPE_INTERVAL}\n"
        f"    static_configs:\n      - targets: [{targets}]\n"
    )
    return path


def _start_prometheus(
    binary: str, workdir: Path, target_ports: tuple[int, ...]
) -> tuple[subprocess.Popen[bytes], Prometheus]:
    port = _free_port()
    log = workdir / "prometheus.log"
    command = [
        binary,
        f"--config.file={_config(workdir / 'prometheus.yml', target_ports)}",
        f"--storage.tsdb.path={workdir / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--enable-feature=exemplar-storage",
        "--log.level=warn",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    return process, Prometheus(f"http://127.0.0.1:{port}", [log])


def _trimscope_command() -> list[str]:
    """The installed console script next to this interpreter, else the same entry point."""
    script = Path(sys.executable).with_name("trimscope")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from harness.cli import main; main()"]


def _start_trimscope(workdir: Path, port: int) -> tuple[subprocess.Popen[bytes], Path, Path]:
    out, err = workdir / "trimscope.out", workdir / "trimscope.err"
    command = [
        *_trimscope_command(),
        "run",
        "scenarios/",
        "-k",
        f"^({'|'.join(RUN)})$",
        "--serve-metrics",
        str(port),
        "--hold-metrics",
        str(HOLD_S),
        "--otel-jsonl",
        str(workdir / "spans.jsonl"),
        # the cost panels need a price table; the fakes' models are priced as one of it
        "--prices",
        str(PRICES),
        "--price-as",
        PRICE_AS,
    ]
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
    return process, out, err


def _start_wire_target(workdir: Path, port: int) -> tuple[subprocess.Popen[bytes], Path]:
    log = workdir / "wire_target.log"
    command = [sys.executable, "-m", "tests.dashboards.wire_target", str(port), str(HOLD_S)]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
    return process, log


def _stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    binary = require_program("prometheus")
    workdir = tmp_path_factory.mktemp("prometheus")
    target_port, wire_port = _free_port(), _free_port()
    prometheus, prom = _start_prometheus(binary, workdir, (target_port, wire_port))
    selector = f'{{job="{JOB}"}}'
    agent = f'{{job="{JOB}",{n.LABEL_SOURCE}="{n.SOURCE_AGENT}"}}'
    trimscope = wire = None
    try:
        # A first scrape of the (not yet listening) target: the scrape loop runs.
        prom.wait_for("Prometheus's first scrape", lambda: bool(prom.query(f"up{selector}")))
        wire, wire_log = _start_wire_target(workdir, wire_port)
        prom.logs.append(wire_log)
        trimscope, out, err = _start_trimscope(workdir, target_port)
        prom.logs += [err, out]
        process = trimscope

        def finished() -> bool:
            if process.poll() is not None:
                pytest.fail(f"trimscope exited early ({process.returncode})\n{prom.report()}")
            trims = prom.scalar(f"sum({n.TRIMS.name}{agent})")
            turns = prom.scalar(f"sum({n.TURNS.name}{selector})")
            findings = prom.scalar(f"sum({n.WIRE_FINDINGS.name}{selector})")
            done = (trims, turns, findings)
            return done == (TRIMS_PER_RUN, TURNS_PER_RUN, WIRE_FINDINGS_PER_RUN)

        prom.wait_for("the run's final values", finished)
        samples = f"min(count_over_time({n.TRIMS.name}{selector}[1m]))"
        prom.wait_for("three scrapes of every trims series", lambda: prom.scalar(samples) >= 3)
        yield Live(prom, process, out, err, f"http://127.0.0.1:{target_port}/metrics")
    finally:
        if trimscope is not None:
            _stop(trimscope, signal.SIGINT)
        if wire is not None:
            _stop(wire)
        _stop(prometheus)


def test_trims_by_reason_have_the_expected_values(live: Live) -> None:
    result = live.prom.query(f'sum by (reason, source) ({n.TRIMS.name}{{job="{JOB}"}})')
    by_reason = {
        (r["metric"]["reason"], r["metric"]["source"]): float(r["value"][1]) for r in result
    }
    # the wire target's two trims have no reference reason
    assert by_reason == {("token_budget", "agent"): 6.0, ("turn_limit", "agent"): 4.0,
                         ("other", "wire"): 2.0}  # fmt: skip


def test_the_trims_panel_shows_a_positive_rate_for_every_trigger(live: Live) -> None:
    (panel,) = [q for q in QUERIES if q.panel == "History trims / s by reason and trigger"]
    result = live.prom.query(substitute(panel.expr, VARIABLES))
    rates = {(r["metric"]["reason"], r["metric"]["trigger"]): float(r["value"][1]) for r in result}
    assert set(rates) == {
        ("token_budget", "proactive"),
        ("token_budget", "reported_usage"),
        ("token_budget", "reactive"),
        ("turn_limit", "turn_limit"),
        ("other", "wire"),  # the runtime on the wire: the existing panel shows it too
    }
    assert all(rate > 0 for rate in rates.values()), rates


def test_the_cost_panel_shows_a_positive_rate_for_the_priced_route(live: Live) -> None:
    (panel,) = [q for q in QUERIES if q.panel == "Cost rate by route (USD / h)"]
    result = live.prom.query(substitute(panel.expr, VARIABLES))
    rates = [float(r["value"][1]) for r in result]
    assert rates
    assert all(rate > 0 for rate in rates), rates


@pytest.mark.parametrize("query", QUERIES, ids=[q.where for q in QUERIES])
def test_every_dashboard_query_returns_data(live: Live, query: PanelQuery) -> None:
    result = live.prom.query(substitute(query.expr, VARIABLES))
    values = [float(r["value"][1]) for r in result]
    assert values, query.expr
    assert any(math.isfinite(v) for v in values), (query.expr, values)  # not only NaN


@pytest.mark.parametrize("alert", ALERTS, ids=[alert.name for alert in ALERTS])
def test_every_alert_measures_real_series(live: Live, alert: Alert) -> None:
    """What each alert compares with its threshold finds the run's series, so its label
    matchers (``recovered="false"``, ``window_source=...``) match real values. (The
    committed rule file is these expressions: ``test_alerts.py``.)"""
    for measured in filter(None, (alert.measure, alert.new_series)):
        values = [float(r["value"][1]) for r in live.prom.query(measured)]
        assert values, measured
        assert any(math.isfinite(v) for v in values), (measured, values)


def test_exemplars_with_trace_ids_reach_prometheus(live: Live) -> None:
    now = time.time()
    params = {"query": n.TRIMS.name, "start": now - 600, "end": now + 60}
    answer = _get(f"{live.prom.base}/api/v1/query_exemplars?{urllib.parse.urlencode(params)}")
    labels = [e["labels"] for series in answer["data"] for e in series["exemplars"]]
    assert labels
    assert all(len(label[n.EXEMPLAR_TRACE_ID]) == 32 for label in labels)


def test_promtool_check_metrics_prints_no_warning(live: Live) -> None:
    promtool = require_program("promtool")
    with urllib.request.urlopen(live.metrics_url, timeout=5) as response:
        exposition = response.read()
    assert n.TRIMS.name.encode() in exposition
    done = subprocess.run(
        [promtool, "check", "metrics"],
        input=exposition,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, b"")


def test_sigint_ends_the_hold_and_the_run_exits_0(live: Live) -> None:
    """Runs last (file order): the process held its metrics until now."""
    assert live.trimscope.poll() is None, live.prom.report()
    _stop(live.trimscope, signal.SIGINT)
    assert live.trimscope.returncode == 0, live.prom.report()
    ran = f"{len(RUN)}/{len(RUN)}"
    assert f"scenarios: {ran} (100%)" in live.err.read_text(), live.prom.report()
    assert f"{ran} passed" in live.out.read_text(), live.prom.report()
