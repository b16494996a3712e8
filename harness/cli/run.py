"""``trimscope run`` and ``trimscope validate``: the main job.

Exit codes: 0 every scenario passed; 1 a scenario failed or crashed; 2 a scenario file or
option is invalid (nothing was run); 130 / 143 SIGINT / SIGTERM stopped the run, and every
output says so (``harness.interrupt``).
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

import typer
from rich.console import Console

from harness.interrupt import SIGNAL_EXIT_BASE, StopRequest, stop_on_signals
from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all
from harness.scenarios.report import Outcome, print_failures, summary_table, write_junit
from harness.scenarios.suite import run_suite, select
from harness.telemetry.setup import (
    MAX_HOLD_METRICS_S,
    Telemetry,
    TelemetryOptions,
    build_telemetry,
)

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
PIPED_WIDTH = 150
DEFAULT_LIBRARY = Path("scenarios")

PATHS = typer.Argument(None, help="Scenario files or folders (default: scenarios/).")


def _load(paths: list[Path] | None, console: Console) -> list[LoadedScenario]:
    targets = paths or [DEFAULT_LIBRARY]
    try:
        return load_all(targets)
    except ScenarioError as error:
        for problem in error.problems:
            console.print(problem, markup=False, highlight=False, soft_wrap=True)
        console.print(f"[bold red]invalid scenario input: {len(error.problems)} problem(s)[/]")
        raise typer.Exit(EXIT_INVALID) from error


def _execute(
    loaded: list[LoadedScenario],
    telemetry: Telemetry,
    transcript: Path | None,
    junit_xml: Path | None,
    err: Console,
) -> tuple[list[Outcome], str | None]:
    """Run the suite with SIGINT and SIGTERM routed to an orderly stop, then write the
    outputs (marked when a signal stopped the run); the outcomes and that signal's name."""
    outcomes: list[Outcome] = []
    stop = StopRequest()

    def progress(outcome: Outcome) -> None:
        outcomes.append(outcome)
        style = "green" if outcome.passed else "bold red"
        err.print(
            f"[{len(outcomes)}/{len(loaded)}] [{style}]{outcome.verdict}[/] "
            f"{outcome.scenario_id} ({outcome.duration_s:.2f}s)",
            highlight=False,
        )

    interrupted: str | None = None
    suite_ended = False
    with stop_on_signals(stop):
        try:
            run_suite(
                loaded,
                observers=telemetry.observers,
                transcript_dir=transcript,
                progress=progress,
                stop=stop,
            )
            suite_ended = True
            interrupted = stop.name
            if interrupted is None:  # --hold-metrics: only after a run that completed
                held = threading.Event()
                with stop.on_request(held.set):
                    telemetry.hold(held)
        finally:
            # A signal after the suite ended (while holding or writing) interrupts nothing:
            # it only ends --hold-metrics early.
            if not suite_ended:
                interrupted = stop.name
            if interrupted is not None:
                err.print(f"[bold yellow]interrupted by {interrupted}[/]: writing outputs")
                telemetry.mark_interrupted(interrupted)
            telemetry.shutdown()
            if junit_xml is not None:
                not_run = [(i.path, i.scenario.id) for i in loaded[len(outcomes) :]]
                write_junit(junit_xml, outcomes, not_run=not_run, interrupted=interrupted)
    return outcomes, interrupted


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
        outcomes, interrupted = _execute(loaded, telemetry, transcript, junit_xml, err)
        # Piped output (CI logs, files) gets room for whole scenario ids in the table.
        console = Console() if sys.stdout.isatty() else Console(width=PIPED_WIDTH)
        print_failures(console, outcomes)
        not_run_count = len(loaded) - len(outcomes)
        console.print(summary_table(outcomes, interrupted=interrupted, not_run=not_run_count))
        if interrupted is not None:
            raise typer.Exit(SIGNAL_EXIT_BASE + signal.Signals[interrupted])
        failed = sum(not o.passed for o in outcomes)
        raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)
