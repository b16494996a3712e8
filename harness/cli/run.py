"""``trimscope run``: the main job (``trimscope validate`` is in ``validate.py``).

Exit codes: 0 every scenario passed; 1 a scenario failed or crashed; 2 a scenario file or
option is invalid (nothing was run); 130 / 143 SIGINT / SIGTERM stopped the run, and every
output says so (``harness.interrupt``).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from harness.cli.envvars import check_telemetry_environment
from harness.cli.options import LIMIT, PATHS, load_paths, resolve_limits
from harness.cli.paths import MAX_PORT, check_outputs, check_pattern, check_port
from harness.cli.sut_check import sut_argv
from harness.exit_codes import ExitCode
from harness.interrupt import (
    SIGNAL_EXIT_BASE,
    StopRequest,
    early_stop,
    ignore_signals_once_written,
    stop_on_signals,
)
from harness.pricing.formula import PriceOf
from harness.pricing.reading import read_pricing
from harness.pricing.table import price_lookup
from harness.progress import Tracker, tracker
from harness.scenarios.bundled import scenario_library
from harness.scenarios.junit_names import JunitNames
from harness.scenarios.loader import LoadedScenario
from harness.scenarios.report import Outcome, print_failures, summary_table, write_junit
from harness.scenarios.suite import DEFAULT_SCENARIO_TIMEOUT_S, run_suite, select
from harness.sut.settings import DEFAULT_OP_TIMEOUT_S, DEFAULT_WORKERS, MAX_WORKERS
from harness.telemetry.exposition import LOOPBACK as METRICS_HOST
from harness.telemetry.setup import (
    MAX_HOLD_METRICS_S,
    Telemetry,
    TelemetryOptions,
    build_telemetry,
)

PIPED_WIDTH = 150
MAX_SCENARIO_TIMEOUT_S = 86_400.0  # a day: asyncio's deadline arithmetic needs a finite bound


def _execute(
    loaded: list[LoadedScenario],
    telemetry: Telemetry,
    transcript: Path | None,
    junit_xml: Path | None,
    err: Console,
    shown: Tracker,
    timeout_s: float,
    names: JunitNames,
    stop: StopRequest,
) -> tuple[list[Outcome], str | None]:
    """Run the suite with SIGINT and SIGTERM routed to an orderly stop, then write the
    outputs (marked when a signal stopped the run); the outcomes and that signal's name.
    ``stop`` may hold a signal already (one during setup): then no scenario runs."""
    outcomes: list[Outcome] = []

    def progress(outcome: Outcome) -> None:
        outcomes.append(outcome)
        if not outcome.passed:  # a failure is named at once; passes only count
            shown.note(f"[bold red]{outcome.verdict}[/] {outcome.scenario_id}")
        failed = sum(not o.passed for o in outcomes)
        shown.advance(detail=f"{failed} failed" if failed else "")

    interrupted: str | None = None
    suite_ended = False
    with stop_on_signals(stop):
        try:
            with shown:
                run_suite(
                    loaded,
                    observers=telemetry.observers,
                    transcript_dir=transcript,
                    progress=progress,
                    timeout_s=timeout_s,
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
                write_junit(
                    junit_xml, outcomes, not_run=not_run, interrupted=interrupted, names=names
                )
    return outcomes, interrupted


def _price_of(
    path: Path | None,
    price_as: str | None,
    serve_metrics: int | None,
    metrics_out: Path | None,
    err: Console,
) -> PriceOf | None:
    """``--prices``/``--price-as`` read and checked (exit 2 naming the problem): a run
    prices only its metrics, so a table without --serve-metrics or --metrics-out is a
    mistake, not a no-op."""
    try:
        table = read_pricing(path, price_as)
        if table is not None and serve_metrics is None and metrics_out is None:
            raise ValueError(
                "--prices prices the metrics: it needs --serve-metrics or --metrics-out"
            )
    except ValueError as error:
        err.print(f"error: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(ExitCode.INVALID) from error
    return price_lookup(table, price_as) if table is not None else None


def _sut_command(
    command: str | None,
    json_out: Path | None,
    in_process_only: Mapping[str, object],
    err: Console,
) -> list[str] | None:
    """``--sut``'s program, found and executable, or ``None`` without ``--sut``; exit 2
    when it is not, or when an option that only an in-process run has is given with it."""
    if command is None:
        if json_out is not None:
            err.print("[bold red]--json needs --sut[/]")
            raise typer.Exit(ExitCode.INVALID)
        return None
    given = [name for name, value in in_process_only.items() if value is not None]
    if given:
        err.print(f"[bold red]{given[0]} applies to in-process runs, not with --sut[/]")
        raise typer.Exit(ExitCode.INVALID)
    return sut_argv(command, err)


def _run_sut(argv: list[str], loaded: list[LoadedScenario], **options: Any) -> None:
    """``run --sut``: imported only then (uvicorn, the fake host, the protocol)."""
    from harness.cli.sut_run import run_sut  # noqa: PLC0415

    run_sut(argv, loaded, **options)


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
        prices_path: Path | None = typer.Option(
            None, "--prices", help="Price table (YAML): cost series in the metrics."
        ),
        price_as: str | None = typer.Option(
            None, "--price-as", help="Price every call as this model of --prices."
        ),
        sut: str | None = typer.Option(
            None,
            "--sut",
            help="Run the portable scenarios through this runtime command over the SUT"
            " protocol (docs/sut-protocol.md) and judge its requests.",
        ),
        json_out: Path | None = typer.Option(
            None, "--json", help="With --sut: write the verdicts as JSON."
        ),
        sut_timeout: float = typer.Option(
            DEFAULT_OP_TIMEOUT_S,
            "--sut-timeout",
            min=0.001,
            max=MAX_SCENARIO_TIMEOUT_S,
            help="With --sut: seconds to wait for any one message of the runtime.",
        ),
        sut_workers: int = typer.Option(
            DEFAULT_WORKERS,
            "--sut-workers",
            min=1,
            max=MAX_WORKERS,
            help="With --sut: runtime processes, each running one scenario at a time.",
        ),
    ) -> None:
        """Run scenarios against in-process fakes and check what must happen."""
        stop = early_stop()  # a signal from the process's start on is in it
        err = Console(stderr=True)
        # Every output, port and variable first: nothing is run that could not be reported.
        check_outputs(
            {
                "--junit-xml": junit_xml,
                "--otel-jsonl": otel_jsonl,
                "--metrics-out": metrics_out,
                "--json": json_out,
            },
            {"--transcript": transcript},
        )
        in_process_only = {
            "--transcript": transcript,
            "--otel-jsonl": otel_jsonl,
            "--serve-metrics": serve_metrics,
            "--metrics-out": metrics_out,
            "--prices": prices_path,
            "--otlp": otlp or None,
        }
        sut_argv_ = _sut_command(sut, json_out, in_process_only, err)
        check_port("--serve-metrics", serve_metrics, METRICS_HOST)
        check_pattern("-k", k)
        check_telemetry_environment(tracing=otel_jsonl is not None or otlp, otlp=otlp)
        loaded = select(load_paths(paths, err, resolve_limits(limit, err)), k)
        names = JunitNames(paths or [scenario_library()])
        if not loaded:
            err.print(f"[bold red]no scenario matches -k {k!r}[/]")
            raise typer.Exit(ExitCode.INVALID)
        if hold_metrics > 0 and serve_metrics is None:
            err.print("[bold red]--hold-metrics needs --serve-metrics[/]")
            raise typer.Exit(ExitCode.INVALID)
        if sut_argv_ is not None:
            _run_sut(
                sut_argv_,
                loaded,
                json_out=json_out,
                junit_xml=junit_xml,
                op_timeout_s=sut_timeout,
                scenario_timeout_s=scenario_timeout,
                workers=sut_workers,
                quiet=quiet,
                names=names,
                stop=stop,
            )
        price_of = _price_of(prices_path, price_as, serve_metrics, metrics_out, err)
        telemetry = build_telemetry(
            TelemetryOptions(
                otel_jsonl=otel_jsonl,
                otlp=otlp,
                serve_metrics_port=serve_metrics,
                metrics_out=metrics_out,
                hold_metrics_s=hold_metrics,
                price_of=price_of,
            )
        )
        if telemetry.metrics_server is not None:
            err.print(f"metrics: {telemetry.metrics_server.url}")
            if hold_metrics > 0:
                err.print(f"metrics: served for {hold_metrics:g}s after the run (Ctrl-C stops)")
        shown = tracker("scenarios", len(loaded), quiet=quiet)
        outcomes, interrupted = _execute(
            loaded, telemetry, transcript, junit_xml, err, shown, scenario_timeout, names, stop
        )
        ignore_signals_once_written()  # every output is written: the verdict stands
        # Piped output (CI logs, files) gets room for whole scenario ids in the table.
        console = Console() if sys.stdout.isatty() else Console(width=PIPED_WIDTH)
        print_failures(console, outcomes)
        not_run_count = len(loaded) - len(outcomes)
        console.print(summary_table(outcomes, interrupted=interrupted, not_run=not_run_count))
        if interrupted is not None:
            raise typer.Exit(SIGNAL_EXIT_BASE + signal.Signals[interrupted])
        failed = sum(not o.passed for o in outcomes)
        raise typer.Exit(ExitCode.FAILED if failed else ExitCode.OK)
