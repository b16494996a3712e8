"""``trimscope run``'s own options (the shared ones are in ``harness.cli.options``)."""

from __future__ import annotations

import typer

from harness.cli.paths import MAX_PORT
from harness.scenarios.suite import DEFAULT_SCENARIO_TIMEOUT_S
from harness.sut.settings import DEFAULT_OP_TIMEOUT_S, DEFAULT_WORKERS, MAX_WORKERS
from harness.telemetry.setup import MAX_HOLD_METRICS_S

MAX_SCENARIO_TIMEOUT_S = 86_400.0  # a day: asyncio's deadline arithmetic needs a finite bound

K = typer.Option(None, "-k", help="Run scenarios whose id/title/tag match.")
JUNIT_XML = typer.Option(None, "--junit-xml", help="Write JUnit XML.")
TRANSCRIPT = typer.Option(
    None, "--transcript", help="Folder for one JSON-lines event file per scenario."
)
SERVE_METRICS = typer.Option(
    None,
    "--serve-metrics",
    min=0,
    max=MAX_PORT,
    help="Serve Prometheus metrics on 127.0.0.1:PORT (0: a free port).",
)
METRICS_OUT = typer.Option(None, "--metrics-out", help="Write a Prometheus textfile at the end.")
HOLD_METRICS = typer.Option(
    0.0,
    "--hold-metrics",
    min=0.0,
    max=MAX_HOLD_METRICS_S,
    help="With --serve-metrics: keep serving SECONDS after the run (Ctrl-C stops).",
)
SCENARIO_TIMEOUT = typer.Option(
    DEFAULT_SCENARIO_TIMEOUT_S,
    "--scenario-timeout",
    min=0.001,
    max=MAX_SCENARIO_TIMEOUT_S,
    help="Wall-clock seconds one scenario may run; past it, its verdict is TIMEOUT"
    " and the others still run.",
)
PRICES = typer.Option(None, "--prices", help="Price table (YAML): cost series in the metrics.")
SUT = typer.Option(
    None,
    "--sut",
    help="Run the portable scenarios through this runtime command over the SUT"
    " protocol (docs/sut-protocol.md) and judge its requests.",
)
JSON_OUT = typer.Option(None, "--json", help="With --sut: write the verdicts as JSON.")
SUT_TIMEOUT = typer.Option(
    DEFAULT_OP_TIMEOUT_S,
    "--sut-timeout",
    min=0.001,
    max=MAX_SCENARIO_TIMEOUT_S,
    help="With --sut: seconds to wait for any one message of the runtime.",
)
SUT_WORKERS = typer.Option(
    DEFAULT_WORKERS,
    "--sut-workers",
    min=1,
    max=MAX_WORKERS,
    help="With --sut: runtime processes, each running one scenario at a time.",
)
