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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from harness.cli.envvars import check_telemetry_environment
from harness.cli.options import (
    LIMIT,
    OTEL_JSONL,
    OTLP,
    PATHS,
    PRICE_AS,
    QUIET,
    load_paths,
    priced_metrics,
    resolve_limits,
)
from harness.cli.paths import check_outputs, check_pattern, check_port
from harness.cli.run_options import (
    HOLD_METRICS,
    JSON_OUT,
    JUNIT_XML,
    METRICS_OUT,
    PRICES,
    SCENARIO_TIMEOUT,
    SERVE_METRICS,
    SUT,
    SUT_TIMEOUT,
    SUT_WORKERS,
    TRANSCRIPT,
    K,
)
from harness.cli.sut_check import sut_argv
from harness.exit_codes import ExitCode
from harness.interrupt import (
    SIGNAL_EXIT_BASE,
    StopRequest,
    early_stop,
    ignore_signals_once_written,
    stop_on_signals,
)
from harness.progress import Tracker, tracker
from harness.scenarios.bundled import scenario_library
from harness.scenarios.junit_names import JunitNames
from harness.scenarios.loader import LoadedScenario
from harness.scenarios.report import Outcome, print_failures, summary_table, write_junit
from harness.scenarios.suite import run_suite, select
from harness.telemetry.exposition import LOOPBACK as METRICS_HOST
from harness.telemetry.setup import (
    Telemetry,
    TelemetryOptions,
    build_telemetry,
)

PIPED_WIDTH = 150


def _execute(
    loaded: list[LoadedScenario],
    telemetry: Telemetry,
    outputs: tuple[Path | None, Path | None],
    err: Console,
    shown: Tracker,
    timeout_s: float,
    names: JunitNames,
    stop: StopRequest,
) -> tuple[list[Outcome], str | None]:
    """Run the suite with SIGINT and SIGTERM routed to an orderly stop, then write the
    outputs (marked when a signal stopped the run); the outcomes and that signal's name.
    ``stop`` may hold a signal already (one during setup): then no scenario runs.
    ``outputs``: the transcript folder and the JUnit file."""
    transcript, junit_xml = outputs
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


@dataclass(frozen=True, slots=True)
class RunRequest:
    """``trimscope run``'s options, as given (checked by ``run_scenarios``)."""

    paths: tuple[Path, ...] | None
    k: str | None
    junit_xml: Path | None
    transcript: Path | None
    otel_jsonl: Path | None
    serve_metrics: int | None
    metrics_out: Path | None
    hold_metrics: float
    otlp: bool
    limit: tuple[str, ...] | None
    scenario_timeout: float
    quiet: bool
    prices_path: Path | None
    price_as: str | None
    sut: str | None
    json_out: Path | None
    sut_timeout: float
    sut_workers: int


def run(
    paths: list[Path] | None = PATHS,
    k: str | None = K,
    junit_xml: Path | None = JUNIT_XML,
    transcript: Path | None = TRANSCRIPT,
    otel_jsonl: Path | None = OTEL_JSONL,
    serve_metrics: int | None = SERVE_METRICS,
    metrics_out: Path | None = METRICS_OUT,
    hold_metrics: float = HOLD_METRICS,
    otlp: bool = OTLP,
    limit: list[str] | None = LIMIT,
    scenario_timeout: float = SCENARIO_TIMEOUT,
    quiet: bool = QUIET,
    prices_path: Path | None = PRICES,
    price_as: str | None = PRICE_AS,
    sut: str | None = SUT,
    json_out: Path | None = JSON_OUT,
    sut_timeout: float = SUT_TIMEOUT,
    sut_workers: int = SUT_WORKERS,
) -> None:
    """Run scenarios against in-process fakes and check what must happen."""
    stop = early_stop()  # a signal from the process's start on is in it
    request = RunRequest(
        paths=tuple(paths) if paths is not None else None,
        k=k,
        junit_xml=junit_xml,
        transcript=transcript,
        otel_jsonl=otel_jsonl,
        serve_metrics=serve_metrics,
        metrics_out=metrics_out,
        hold_metrics=hold_metrics,
        otlp=otlp,
        limit=tuple(limit) if limit is not None else None,
        scenario_timeout=scenario_timeout,
        quiet=quiet,
        prices_path=prices_path,
        price_as=price_as,
        sut=sut,
        json_out=json_out,
        sut_timeout=sut_timeout,
        sut_workers=sut_workers,
    )
    raise typer.Exit(run_scenarios(request, stop))


def _checked_sut(request: RunRequest, err: Console) -> list[str] | None:
    """Every output, port and variable first: nothing is run that could not be reported.
    The ``--sut`` program's argv, or ``None`` for an in-process run."""
    check_outputs(
        {
            "--junit-xml": request.junit_xml,
            "--otel-jsonl": request.otel_jsonl,
            "--metrics-out": request.metrics_out,
            "--json": request.json_out,
        },
        {"--transcript": request.transcript},
    )
    in_process_only = {
        "--transcript": request.transcript,
        "--otel-jsonl": request.otel_jsonl,
        "--serve-metrics": request.serve_metrics,
        "--metrics-out": request.metrics_out,
        "--prices": request.prices_path,
        "--otlp": request.otlp or None,
    }
    sut_argv_ = _sut_command(request.sut, request.json_out, in_process_only, err)
    check_port("--serve-metrics", request.serve_metrics, METRICS_HOST)
    check_pattern("-k", request.k)
    tracing = request.otel_jsonl is not None or request.otlp
    check_telemetry_environment(tracing=tracing, otlp=request.otlp)
    return sut_argv_


def _selected(request: RunRequest, err: Console) -> list[LoadedScenario]:
    """The scenarios to run (exit 2 when none matches ``-k``, or on an option they make
    meaningless)."""
    paths = list(request.paths) if request.paths is not None else None
    limits = resolve_limits(list(request.limit) if request.limit is not None else None, err)
    loaded = select(load_paths(paths, err, limits), request.k)
    if not loaded:
        err.print(f"[bold red]no scenario matches -k {request.k!r}[/]")
        raise typer.Exit(ExitCode.INVALID)
    if request.hold_metrics > 0 and request.serve_metrics is None:
        err.print("[bold red]--hold-metrics needs --serve-metrics[/]")
        raise typer.Exit(ExitCode.INVALID)
    return loaded


def _telemetry(request: RunRequest, err: Console) -> Telemetry:
    metrics_wanted = request.serve_metrics is not None or request.metrics_out is not None
    price_of = priced_metrics(request.prices_path, request.price_as, metrics_wanted)
    telemetry = build_telemetry(
        TelemetryOptions(
            otel_jsonl=request.otel_jsonl,
            otlp=request.otlp,
            serve_metrics_port=request.serve_metrics,
            metrics_out=request.metrics_out,
            hold_metrics_s=request.hold_metrics,
            price_of=price_of,
        )
    )
    if telemetry.metrics_server is not None:
        err.print(f"metrics: {telemetry.metrics_server.url}")
        if request.hold_metrics > 0:
            err.print(f"metrics: served for {request.hold_metrics:g}s after the run (Ctrl-C stops)")
    return telemetry


def run_scenarios(request: RunRequest, stop: StopRequest) -> int:
    """Check the request, run its scenarios (in process, or through ``--sut``), write every
    output and print the verdicts; the exit code (the module docstring's)."""
    err = Console(stderr=True)
    sut_argv_ = _checked_sut(request, err)
    loaded = _selected(request, err)
    names = JunitNames(list(request.paths or ()) or [scenario_library()])
    if sut_argv_ is not None:
        _run_sut(
            sut_argv_,
            loaded,
            json_out=request.json_out,
            junit_xml=request.junit_xml,
            op_timeout_s=request.sut_timeout,
            scenario_timeout_s=request.scenario_timeout,
            workers=request.sut_workers,
            quiet=request.quiet,
            names=names,
            stop=stop,
        )
    telemetry = _telemetry(request, err)
    shown = tracker("scenarios", len(loaded), quiet=request.quiet)
    outcomes, interrupted = _execute(
        loaded,
        telemetry,
        (request.transcript, request.junit_xml),
        err,
        shown,
        request.scenario_timeout,
        names,
        stop,
    )
    ignore_signals_once_written()  # every output is written: the verdict stands
    # Piped output (CI logs, files) gets room for whole scenario ids in the table.
    console = Console() if sys.stdout.isatty() else Console(width=PIPED_WIDTH)
    print_failures(console, outcomes)
    not_run_count = len(loaded) - len(outcomes)
    console.print(summary_table(outcomes, interrupted=interrupted, not_run=not_run_count))
    if interrupted is not None:
        return SIGNAL_EXIT_BASE + signal.Signals[interrupted]
    failed = sum(not o.passed for o in outcomes)
    return ExitCode.FAILED if failed else ExitCode.OK


def register(app: typer.Typer) -> None:
    app.command("run")(run)
