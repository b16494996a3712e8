"""``trimscope load``: many agent sessions against real fake servers, then a summary.

The fake servers are uvicorn processes on 127.0.0.1 (one per provider route), so the
harness's CPU and the server's are measured apart. ``--locust`` runs the same sessions
as Locust users (a master and ``--workers`` worker processes); ``--write-plan`` writes the
plan remote Locust workers read (see the README, "Load testing").

Exit codes: 0 the run finished and was summarised; 1 no session completed, a fake server
died (the run stops at once), more provider calls failed than ``--max-failed-calls``
allows, a fake server or Locust could not start, or an output could not be written (a
full disk: one line names it, every other output is still written, see
``harness.load.outputs``); 2 an option or the scenario file is invalid (nothing ran);
130 / 143 SIGINT / SIGTERM stopped the run: what finished is summarised (table and
``--json``), marked interrupted, and every child process and temporary folder is gone.
``--sweep`` runs once per value and exits with the worst of the runs' codes; a signal
ends it after the run it stopped, and the table, ``--json`` and ``--html`` show the
values that ran.
"""

from __future__ import annotations

import signal
from dataclasses import asdict, replace
from pathlib import Path

import typer
from rich.console import Console

from harness.cli import load_options as o
from harness.cli.load_options import LoadRequest
from harness.cli.load_prepare import Prepared, check_options, prepared, telemetry_options_of
from harness.cli.load_sweep import RunOne, sweep_outputs, sweep_runs
from harness.cli.options import LIMIT, OTEL_JSONL, OTLP, PRICE_AS, QUIET
from harness.exit_codes import ExitCode
from harness.interrupt import SIGNAL_EXIT_BASE, Interrupted, StopRequest, stop_on_signals
from harness.load import (
    LoadMetrics,
    LoadPlan,
    LoadSummary,
    LocustOptions,
    RunOptions,
    interrupted,
    nothing_ran,
    render,
    run_load,
    run_locust,
    write_json,
    write_plan,
)
from harness.load.outputs import (
    OutputFailures,
    RunOutputs,
    close_telemetry,
    metrics_writer,
    telemetry_for_run,
)
from harness.load.server import ServerStartError
from harness.load.wire_watch import WireWatch
from harness.pricing.table import PriceTable
from harness.progress import tracker
from harness.telemetry.setup import TelemetryOptions, build_telemetry


def _run_asyncio(
    plan: LoadPlan,
    telemetry_options: TelemetryOptions,
    quiet: bool,
    notes: list[str],
    err: Console,
    stop: StopRequest,
    pricing: tuple[PriceTable | None, str | None] = (None, None),
    outputs: RunOutputs | None = None,
    wire: WireWatch | None = None,
) -> LoadSummary:
    """One asyncio run; its telemetry is closed, its transcript ended and ``--metrics-out``
    written (marked when a signal stopped it) however it ends; outputs that fail are
    recorded in ``outputs.failures``."""
    outputs = outputs or RunOutputs(OutputFailures(err.print))
    telemetry_options = telemetry_for_run(telemetry_options, outputs, plan.template.name)
    telemetry = build_telemetry(telemetry_options)  # nothing asked: nothing built
    metrics = LoadMetrics(telemetry.registry) if telemetry.registry is not None else None
    if telemetry.metrics_server is not None:
        err.print(f"metrics: {telemetry.metrics_server.url}", highlight=False)
    run_options = RunOptions(
        observers=telemetry.observers,
        progress=tracker("sessions", plan.sessions, quiet=quiet),
        metrics=metrics,
        notes=notes,
        stop=stop,
        prices=pricing[0],
        price_as=pricing[1],
        transport=wire.transport(plan.concurrency) if wire is not None else None,
    )
    try:
        return run_load(plan, run_options)
    finally:
        if wire is not None:  # --wire-findings: what the fakes received, observed
            err.print(wire.close(), markup=False, highlight=False)
        if stop.name is not None:  # --serve-metrics says so too (trimscope_run_interrupted)
            telemetry.mark_interrupted(stop.name)
        close_telemetry(telemetry, outputs)


def load(
    sessions: int = o.SESSIONS,
    concurrency: int = o.CONCURRENCY,
    turns: int | None = o.TURNS,
    scenario: Path | None = o.SCENARIO,
    duration: float = o.DURATION,
    serve_metrics: int | None = o.SERVE_METRICS,
    json_path: Path | None = o.JSON_PATH,
    otel_jsonl: Path | None = OTEL_JSONL,
    otlp: bool = OTLP,
    trace_sample: float | None = o.TRACE_SAMPLE,
    provider: str | None = o.PROVIDER,
    context_window: int | None = o.CONTEXT_WINDOW,
    latency_ms: int = o.LATENCY_MS,
    locust: bool = o.LOCUST,
    workers: int = o.WORKERS,
    processes: bool = o.PROCESSES,
    write_plan_path: Path | None = o.WRITE_PLAN,
    quiet: bool = QUIET,
    max_failed_calls: float = o.MAX_FAILED_CALLS,
    prices_path: Path | None = o.PRICES,
    price_as: str | None = PRICE_AS,
    sweep_text: str | None = o.SWEEP,
    html_path: Path | None = o.HTML,
    request_timeout: float = o.REQUEST_TIMEOUT,
    metrics_out: Path | None = o.METRICS_OUT,
    append: bool = o.APPEND,
    transcript: Path | None = o.TRANSCRIPT,
    limit: list[str] | None = LIMIT,
    wire_findings: Path | None = o.WIRE_FINDINGS,
    sut: list[str] | None = typer.Option(
        None, "--sut", help="Run --scenario's sessions through this runtime (repeatable)."
    ),
) -> None:
    """Run agent sessions against real fake servers (127.0.0.1) and summarise them."""
    # The parameters are the request's fields, by name (the record is the option list).
    request = LoadRequest(**{**locals(), "limit": tuple(limit or ()), "sut": tuple(sut or ())})
    raise typer.Exit(run_load_request(request))


def run_load_request(request: LoadRequest) -> int:
    """Check the request, then write the Locust plan, or run the sessions (once, or once
    per swept value) and summarise them; the exit code (the module docstring's)."""
    err = Console(stderr=True)
    check_options(request, err)
    if request.sut:  # runtimes under test: harness.cli.load_sut (imported only then)
        from harness.cli.load_sut import load_sut  # noqa: PLC0415

        given = {**asdict(request), "limit": list(request.limit) or None}
        return load_sut({**given, "sut": list(request.sut)}, load)
    ready = prepared(request, err)
    failures = OutputFailures(
        lambda line: err.print(line, markup=False, highlight=False, soft_wrap=True)
    )
    if request.write_plan_path is not None:
        with failures.writing("--write-plan", request.write_plan_path):
            write_plan(ready.plan.per_process(request.workers), request.write_plan_path)
            err.print(
                f"plan written to {request.write_plan_path} ({request.workers} worker processes)"
            )
        return failures.exit_code(ExitCode.OK)
    telemetry_options = telemetry_options_of(request, ready.prices, failures)
    run_outputs = RunOutputs(failures, request.metrics_out, request.transcript)
    stop = StopRequest()

    def run_asyncio(plan: LoadPlan, options: TelemetryOptions, stop: StopRequest) -> LoadSummary:
        pricing = (ready.prices, request.price_as)
        notes, quiet = ready.notes, request.quiet
        return _run_asyncio(
            plan, options, quiet, notes, err, stop, pricing, run_outputs, ready.wire
        )

    with stop_on_signals(stop):
        if ready.sweep is not None:
            return _swept(request, ready, telemetry_options, run_asyncio, stop, err, failures)
        run_one = _locust_runner(request, ready, failures) if request.locust else run_asyncio
        summary = _summarised(
            ready.plan, telemetry_options, run_one, stop, ready.notes, err, failures
        )
        if request.json_path is not None:
            with failures.writing("--json", request.json_path):
                write_json(summary, request.json_path)
    return failures.exit_code(_exit_code(summary, request.max_failed_calls, err))


def _swept(
    request: LoadRequest,
    ready: Prepared,
    telemetry_options: TelemetryOptions,
    run_one: RunOne,
    stop: StopRequest,
    err: Console,
    failures: OutputFailures,
) -> int:
    """``--sweep``: one run per value, one table; the worst of the runs' exit codes."""
    assert ready.sweep is not None
    plan, notes = ready.plan, ready.notes
    runs = sweep_runs(
        plan, ready.sweep, telemetry_options, run_one, stop, err, request.quiet, notes
    )
    outputs = (request.json_path, request.html_path)
    sweep_outputs(ready.sweep, plan, runs, ready.prices, outputs, failures)
    codes = [_exit_code(run, request.max_failed_calls, err) for run in runs]
    return failures.exit_code(max(codes, default=ExitCode.FAILED))


def _locust_runner(request: LoadRequest, ready: Prepared, failures: OutputFailures) -> RunOne:
    """``--locust``: the plan's sessions as Locust users (a master and its workers)."""
    locust_options = LocustOptions(
        workers=request.workers,
        processes=request.processes,
        prices=ready.prices,
        price_as=request.price_as,
    )

    def run_locust_users(plan: LoadPlan, _: TelemetryOptions, stop: StopRequest) -> LoadSummary:
        return run_locust(
            plan,
            locust_options,
            serve_metrics_port=request.serve_metrics,
            notes=ready.notes,
            progress=tracker("sessions", plan.sessions, quiet=request.quiet),
            stop=stop,
            metrics_out=metrics_writer(failures, request.metrics_out),
        )

    return run_locust_users


def _summarised(
    plan: LoadPlan,
    telemetry_options: TelemetryOptions,
    run_one: RunOne,
    stop: StopRequest,
    notes: list[str],
    err: Console,
    failures: OutputFailures,
) -> LoadSummary:
    """Run ``plan`` once, print its summary (with the outputs that failed so far) and return
    it; a fake server that cannot start exits 1."""
    try:
        summary = run_one(plan, telemetry_options, stop)
    except ServerStartError as error:
        err.print(f"error: {error}", markup=False, highlight=False)
        raise typer.Exit(ExitCode.FAILED) from error
    except Interrupted as stopped:  # before any session started: an empty summary
        summary = nothing_ran(plan, notes, signal.Signals(stopped.signum).name)
    if stop.name is not None and not summary.interrupted:
        summary = interrupted(summary, stop.name)
    summary = replace(summary, unwritten_outputs=failures.unwritten)
    render(summary, Console())
    return summary


def _exit_code(summary: LoadSummary, max_failed: float, err: Console) -> int:
    """128 + signal when one stopped the run, else 1 for the failures the docstring names."""
    if summary.interrupted_by is not None:
        err.print(f"interrupted by {summary.interrupted_by}: what finished is summarised")
        return SIGNAL_EXIT_BASE + signal.Signals[summary.interrupted_by]
    if not summary.sessions_completed:
        return ExitCode.FAILED
    if summary.server_deaths:
        died = ", ".join(death.ref for death in summary.server_deaths)
        err.print(f"error: fake server {died} died; the run was stopped", highlight=False)
        return ExitCode.FAILED
    if summary.failed_call_share > max_failed:
        err.print(
            f"error: {summary.failed_calls:,} of {summary.provider_calls:,} provider calls"
            f" failed ({summary.failed_call_share:.1%}), more than --max-failed-calls"
            f" {max_failed:.1%}",
            markup=False,
            highlight=False,
        )
        return ExitCode.FAILED
    return ExitCode.OK


def register(app: typer.Typer) -> None:
    app.command("load")(load)
