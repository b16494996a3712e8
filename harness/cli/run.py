"""``trimscope run`` and ``trimscope validate``: the main job.

Exit codes: 0 every scenario passed; 1 a scenario failed or crashed; 2 a scenario file or
option is invalid (nothing was run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from harness.scenarios.limits import DEFAULT_LIMITS, LIMIT_NAMES, Limits, parse_limit
from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all
from harness.scenarios.report import Outcome, print_failures, summary_table, write_junit
from harness.scenarios.suite import DEFAULT_SCENARIO_TIMEOUT_S, run_suite, select
from harness.telemetry.setup import MAX_HOLD_METRICS_S, TelemetryOptions, build_telemetry

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
PIPED_WIDTH = 150
DEFAULT_LIBRARY = Path("scenarios")
MAX_SCENARIO_TIMEOUT_S = 86_400.0  # a day: asyncio's deadline arithmetic needs a finite bound

PATHS = typer.Argument(None, help="Scenario files or folders (default: scenarios/).")
LIMIT = typer.Option(
    None,
    "--limit",
    metavar="NAME=N",
    help=f"Raise a loader limit (repeatable); NAME is one of {', '.join(LIMIT_NAMES)}."
    " Defaults: scenarios/README.md.",
)


def resolve_limits(options: list[str] | None, console: Console) -> Limits:
    try:
        return DEFAULT_LIMITS.with_overrides(dict(parse_limit(o) for o in options or ()))
    except ValueError as error:
        console.print(f"--limit: {error}", markup=False, highlight=False)
        raise typer.Exit(EXIT_INVALID) from error


def _load(paths: list[Path] | None, console: Console, limits: Limits) -> list[LoadedScenario]:
    targets = paths or [DEFAULT_LIBRARY]
    try:
        return load_all(targets, limits)
    except ScenarioError as error:
        for problem in error.problems:
            console.print(problem, markup=False, highlight=False, soft_wrap=True)
        console.print(f"[bold red]invalid scenario input: {len(error.problems)} problem(s)[/]")
        raise typer.Exit(EXIT_INVALID) from error


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(paths: list[Path] | None = PATHS, limit: list[str] | None = LIMIT) -> None:
        """Validate scenario files without running them."""
        console = Console(stderr=True)
        loaded = _load(paths, console, resolve_limits(limit, console))
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
        limit: list[str] | None = LIMIT,
        scenario_timeout: float = typer.Option(
            DEFAULT_SCENARIO_TIMEOUT_S,
            "--scenario-timeout",
            min=0.001,
            max=MAX_SCENARIO_TIMEOUT_S,
            help="Wall-clock seconds one scenario may run; past it, its verdict is TIMEOUT"
            " and the others still run.",
        ),
    ) -> None:
        """Run scenarios against in-process fakes and check what must happen."""
        err = Console(stderr=True)
        loaded = select(_load(paths, err, resolve_limits(limit, err)), k)
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

        def progress(outcome: Outcome) -> None:
            outcomes.append(outcome)
            style = "green" if outcome.passed else "bold red"
            err.print(
                f"[{len(outcomes)}/{len(loaded)}] [{style}]{outcome.verdict}[/] "
                f"{outcome.scenario_id} ({outcome.duration_s:.2f}s)",
                highlight=False,
            )

        try:
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
