"""``trimscope run``: the main job (``trimscope validate`` is in ``validate.py``).

Exit codes: 0 every scenario passed; 1 a scenario failed or crashed; 2 a scenario file or
option is invalid (nothing was run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from harness.cli.envvars import check_telemetry_environment
from harness.cli.paths import MAX_PORT, check_outputs, check_port
from harness.cli.validate import LIMIT, PATHS, load_paths, resolve_limits
from harness.progress import tracker
from harness.scenarios.report import Outcome, print_failures, summary_table, write_junit
from harness.scenarios.suite import DEFAULT_SCENARIO_TIMEOUT_S, run_suite, select
from harness.telemetry.exposition import LOOPBACK as METRICS_HOST
from harness.telemetry.setup import MAX_HOLD_METRICS_S, TelemetryOptions, build_telemetry

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
PIPED_WIDTH = 150
MAX_SCENARIO_TIMEOUT_S = 86_400.0  # a day: asyncio's deadline arithmetic needs a finite bound


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        paths: list[Path] | None = PATHS,
        k: str | None = typer.Option(None, "-k", help="Run scenarios whose id/title/tag match."),
        junit_xml: Path | None = typer.Option(None, "--junit-xml", help="Write JUnit XML."),
        transcript: Path | None = typer.Option(
            None, "--transcript", help="Folder for one JSON-lines event file per scenario."
        ),
        otel_jsonl: Path | None = typer.Option(None, "--otel-jsonl", help="Write spans here."),
        serve_metrics: int | None = typer.Option(
            None,
            "--serve-metrics",
            min=0,
            max=MAX_PORT,
            help="Serve Prometheus metrics on 127.0.0.1:PORT (0: a free port).",
        ),
        metrics_out: Path | None = typer.Option(
            None, "--metrics-out", help="Write a Prometheus textfile at the end."
        ),
        hold_metrics: float = typer.Option(
            0.0,
            "--hold-metrics",
            min=0.0,
            max=MAX_HOLD_METRICS_S,
            help="With --serve-metrics: keep serving SECONDS after the run (Ctrl-C stops).",
        ),
        otlp: bool = typer.Option(False, "--otlp", help="Export spans by OTLP/HTTP (OTEL_*)."),
        limit: list[str] | None = LIMIT,
        scenario_timeout: float = typer.Option(
            DEFAULT_SCENARIO_TIMEOUT_S,
            "--scenario-timeout",
            min=0.001,
            max=MAX_SCENARIO_TIMEOUT_S,
            help="Wall-clock seconds one scenario may run; past it, its verdict is TIMEOUT"
            " and the others still run.",
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or status."),
    ) -> None:
        """Run scenarios against in-process fakes and check what must happen."""
        err = Console(stderr=True)
        # Every output, port and variable first: nothing is run that could not be reported.
        check_outputs(
            {"--junit-xml": junit_xml, "--otel-jsonl": otel_jsonl, "--metrics-out": metrics_out},
            {"--transcript": transcript},
        )
        check_port("--serve-metrics", serve_metrics, METRICS_HOST)
        check_telemetry_environment(tracing=otel_jsonl is not None or otlp, otlp=otlp)
        loaded = select(load_paths(paths, err, resolve_limits(limit, err)), k)
        if not loaded:
            err.print(f"[bold red]no scenario matches -k {k!r}[/]")
            raise typer.Exit(EXIT_INVALID)
        if hold_metrics > 0 and serve_metrics is None:
            err.print("[bold red]--hold-metrics needs --serve-metrics[/]")
            raise typer.Exit(EXIT_INVALID)
        telemetry = build_telemetry(
            TelemetryOptions(
                otel_jsonl=otel_jsonl,
                otlp=otlp,
                serve_metrics_port=serve_metrics,
                metrics_out=metrics_out,
                hold_metrics_s=hold_metrics,
            )
        )
        if telemetry.metrics_server is not None:
            err.print(f"metrics: {telemetry.metrics_server.url}")
            if hold_metrics > 0:
                err.print(f"metrics: served for {hold_metrics:g}s after the run (Ctrl-C stops)")
        outcomes: list[Outcome] = []
        shown = tracker("scenarios", len(loaded), quiet=quiet)

        def progress(outcome: Outcome) -> None:
            outcomes.append(outcome)
            if not outcome.passed:  # a failure is named at once; passes only count
                shown.note(f"[bold red]{outcome.verdict}[/] {outcome.scenario_id}")
            failed = sum(not o.passed for o in outcomes)
            shown.advance(detail=f"{failed} failed" if failed else "")

        try:
            with shown:
                run_suite(
                    loaded,
                    observers=telemetry.observers,
                    transcript_dir=transcript,
                    progress=progress,
                    timeout_s=scenario_timeout,
                )
            telemetry.hold()  # --hold-metrics: only after a run that completed
        finally:
            telemetry.shutdown()
            if junit_xml is not None:
                write_junit(junit_xml, outcomes)
        # Piped output (CI logs, files) gets room for whole scenario ids in the table.
        console = Console() if sys.stdout.isatty() else Console(width=PIPED_WIDTH)
        print_failures(console, outcomes)
        console.print(summary_table(outcomes))
        failed = sum(not o.passed for o in outcomes)
        raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)
