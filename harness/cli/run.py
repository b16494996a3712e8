"""``trimscope run`` and ``trimscope validate``: the main job.

Exit codes: 0 every scenario passed; 1 a scenario failed or crashed; 2 a scenario file or
option is invalid (nothing was run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from harness.progress import tracker
from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all
from harness.scenarios.report import Outcome, print_failures, summary_table, write_junit
from harness.scenarios.suite import run_suite, select
from harness.telemetry.setup import MAX_HOLD_METRICS_S, TelemetryOptions, build_telemetry

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
PIPED_WIDTH = 150

PATHS = typer.Argument(
    None, help="Scenario files or folders (default: the bundled scenario library)."
)


def _load(paths: list[Path] | None, console: Console) -> list[LoadedScenario]:
    targets = paths or [scenario_library()]
    try:
        return load_all(targets)
    except ScenarioError as error:
        for problem in error.problems:
            console.print(problem, markup=False, highlight=False, soft_wrap=True)
        console.print(f"[bold red]invalid scenario input: {len(error.problems)} problem(s)[/]")
        raise typer.Exit(EXIT_INVALID) from error


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(paths: list[Path] | None = PATHS) -> None:
        """Validate scenario files without running them."""
        console = Console(stderr=True)
        loaded = _load(paths, console)
        Console().print(f"{len(loaded)} scenario file(s) valid")

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
            None, "--serve-metrics", help="Serve Prometheus metrics on 127.0.0.1:PORT."
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
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or status."),
    ) -> None:
        """Run scenarios against in-process fakes and check what must happen."""
        err = Console(stderr=True)
        loaded = select(_load(paths, err), k)
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
