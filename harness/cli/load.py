"""``trimscope load``: many agent sessions against real fake servers, then a summary.

The fake servers are uvicorn processes on 127.0.0.1 (one per provider route), so the
harness's CPU and the server's are measured apart. ``--locust`` runs the same sessions
as Locust users (a master and ``--workers`` worker processes); ``--write-plan`` writes the
plan remote Locust workers read (see the README, "Load testing").

Exit codes: 0 the run finished and was summarised; 1 no session completed, more provider
calls failed than ``--max-failed-calls`` allows, a fake server or Locust could not start,
or an output could not be written (a full disk: one line names it, every other output is
still written, see ``harness.load.outputs``); 2 an option or the scenario file is invalid
(nothing ran); 130 / 143 SIGINT /
SIGTERM stopped the run: what finished is summarised (table and ``--json``), marked
interrupted, and every child process and temporary folder is gone. ``--sweep`` runs once
per value and exits with the worst of the runs' codes; a signal ends it after the run it
stopped, and the table, ``--json`` and ``--html`` show the values that ran.
"""

from __future__ import annotations

import signal
from dataclasses import replace
from pathlib import Path

import typer
from rich.console import Console

from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.cli.envvars import check_telemetry_environment
from harness.cli.load_options import (
    DEFAULT_MAX_FAILED_CALLS,
    DEFAULT_TURNS,
    MAX_CONCURRENCY,
    MAX_DURATION_S,
    MAX_SESSIONS,
    MAX_TURNS,
    refused_combination,
    trace_sampler,
    turns_of,
)
from harness.cli.load_sweep import RunOne, sweep_option, sweep_outputs, sweep_runs
from harness.cli.options import LIMIT, resolve_limits
from harness.cli.paths import MAX_PORT, check_outputs, check_port
from harness.cli.provider_lists import KINDS_HELP
from harness.exit_codes import ExitCode
from harness.interrupt import SIGNAL_EXIT_BASE, Interrupted, StopRequest, stop_on_signals
from harness.load import (
    LoadMetrics,
    LoadPlan,
    LoadSummary,
    LocustOptions,
    RunOptions,
    SessionTemplate,
    interrupted,
    nothing_ran,
    render,
    run_load,
    run_locust,
    write_json,
    write_plan,
)
from harness.load.outputs import (
    SPANS_OPTION,
    OutputFailures,
    RunOutputs,
    close_telemetry,
    metrics_writer,
    telemetry_for_run,
)
from harness.load.server import ServerStartError
from harness.load.template import DEFAULT_HTTP_TIMEOUT_S, DEFAULT_WINDOW, MAX_HTTP_TIMEOUT_S
from harness.load.wire_watch import WireWatch, watch_wire
from harness.pricing.reading import read_pricing
from harness.pricing.table import PriceTable, price_lookup
from harness.progress import tracker
from harness.scenarios.limits import DEFAULT_LIMITS, Limits
from harness.telemetry.exposition import LOOPBACK as METRICS_HOST
from harness.telemetry.setup import TelemetryOptions, build_telemetry


def _invalid(console: Console, message: str) -> typer.Exit:
    console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(ExitCode.INVALID)


def _template(
    scenario: Path | None,
    provider: str | None,
    context_window: int | None,
    latency_ms: int,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[SessionTemplate, list[str]]:
    """The session template and notes (``session_template``); ``ValueError`` says what is
    wrong. Imported here: only ``--scenario`` needs the scenario package."""
    from harness.load.scenario_template import session_template  # noqa: PLC0415

    return session_template(
        scenario, provider, context_window, latency_ms, limits, max_texts=MAX_TURNS + 1
    )


def _limits(options: list[str] | None, scenario: Path | None, err: Console) -> Limits:
    """``--limit NAME=N`` (as for ``run``), or exit 2: only a scenario is read within them."""
    if options and scenario is None:
        raise _invalid(err, "--limit raises the scenario loader's limits: it needs --scenario")
    return resolve_limits(options, err)


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
    sessions: int = typer.Option(100, min=1, max=MAX_SESSIONS, help="Sessions to run."),
    concurrency: int = typer.Option(
        10, min=1, max=MAX_CONCURRENCY, help="Sessions at once (Locust: users)."
    ),
    turns: int | None = typer.Option(
        None,
        min=1,
        max=MAX_TURNS,
        help=f"Turns per session (default {DEFAULT_TURNS}, or the scenario's user turns).",
    ),
    scenario: Path | None = typer.Option(
        None, "--scenario", help="Use this scenario's runtime, providers and conversation."
    ),
    duration: float = typer.Option(
        300.0, min=0.5, max=MAX_DURATION_S, help="Wall-time cap in seconds; the run stops."
    ),
    serve_metrics: int | None = typer.Option(
        None, "--serve-metrics", min=0, max=MAX_PORT, help="Serve metrics on 127.0.0.1:PORT."
    ),
    json_path: Path | None = typer.Option(None, "--json", help="Write the summary as JSON."),
    otel_jsonl: Path | None = typer.Option(None, "--otel-jsonl", help="Write spans here."),
    otlp: bool = typer.Option(False, "--otlp", help="Export spans by OTLP/HTTP (OTEL_*)."),
    trace_sample: float | None = typer.Option(
        None,
        "--trace-sample",
        min=0.0,
        max=1.0,
        help="Share of turns traced, 0-1 (default: OTEL_TRACES_SAMPLER, else all); "
        "metrics count every event either way.",
    ),
    provider: str | None = typer.Option(
        None, help=f"Built-in workload's client kind (default openai): {KINDS_HELP}"
    ),
    context_window: int | None = typer.Option(
        None,
        min=64,
        max=MAX_CONTEXT_WINDOW_TOKENS,
        help=f"Declared window in tokens (built-in default {DEFAULT_WINDOW}).",
    ),
    latency_ms: int = typer.Option(0, min=0, max=60_000, help="The fake's answer delay."),
    locust: bool = typer.Option(False, "--locust", help="Run the sessions as Locust users."),
    workers: int = typer.Option(2, min=1, max=64, help="Locust worker processes."),
    processes: bool = typer.Option(
        False, "--processes", help="Locust forks its workers (--processes N) instead."
    ),
    write_plan_path: Path | None = typer.Option(
        None, "--write-plan", help="Write the Locust plan for remote workers, then exit."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or status."),
    max_failed_calls: float = typer.Option(
        DEFAULT_MAX_FAILED_CALLS,
        "--max-failed-calls",
        min=0.0,
        max=1.0,
        help="Share of provider calls (0-1) that may fail (5xx, timeouts, refused or broken"
        " answers; not overflows or rate limits) before the run exits 1.",
    ),
    prices_path: Path | None = typer.Option(
        None, "--prices", help="Price table (YAML, per model per 1M tokens): cost per session."
    ),
    price_as: str | None = typer.Option(
        None, "--price-as", help="Price every call as this model of --prices."
    ),
    sweep_text: str | None = typer.Option(
        None,
        "--sweep",
        help="Run the workload at each value: budget=, ratio= or turn_limit=V1,V2,...",
    ),
    html_path: Path | None = typer.Option(
        None, "--html", help="With --sweep: write the table and plots as one HTML page."
    ),
    request_timeout: float = typer.Option(
        DEFAULT_HTTP_TIMEOUT_S,
        "--request-timeout",
        min=0.001,
        max=MAX_HTTP_TIMEOUT_S,
        help="Seconds a provider call may take (connect, read, write) before it times out.",
    ),
    metrics_out: Path | None = typer.Option(
        None,
        "--metrics-out",
        help="Write the run's metrics (Prometheus text) here at its end, also when stopped.",
    ),
    append: bool = typer.Option(
        False, "--append", help="Append to the --otel-jsonl file instead of emptying it."
    ),
    transcript: Path | None = typer.Option(
        None, "--transcript", help="Folder for the run's transcript (trimscope report reads it)."
    ),
    limit: list[str] | None = LIMIT,
    wire_findings: Path | None = typer.Option(
        None, "--wire-findings", help="Observe the requests as trimscope proxy would: FILE."
    ),
) -> None:
    """Run agent sessions against real fake servers (127.0.0.1) and summarise them."""
    err = Console(stderr=True)
    # Every output, port and variable first: nothing is run that could not be reported.
    outputs = {"--json": json_path, "--otel-jsonl": otel_jsonl, "--write-plan": write_plan_path}
    check_outputs(
        {
            **outputs,
            "--html": html_path,
            "--metrics-out": metrics_out,
            "--wire-findings": wire_findings,
        },
        {"--transcript": transcript},
    )
    check_port("--serve-metrics", serve_metrics, METRICS_HOST)
    check_telemetry_environment(tracing=otel_jsonl is not None or otlp, otlp=otlp)
    refused = refused_combination(
        provider,
        locust=locust,
        otel_jsonl=otel_jsonl,
        otlp=otlp,
        sample=trace_sample,
        append=append,
        transcript=transcript is not None,
    )
    if refused:
        raise _invalid(err, refused)
    try:
        template, notes = _template(
            scenario, provider, context_window, latency_ms, _limits(limit, scenario, err)
        )
        plan = LoadPlan(
            template,
            sessions=sessions,
            concurrency=concurrency,
            turns=turns_of(turns, template, scenario),
            duration_s=duration,
            http_timeout_s=request_timeout,
        )
        # both modes price their summary (Locust's from the workers' token counters)
        prices = read_pricing(prices_path, price_as)
        wire = watch_wire(wire_findings, locust=locust, sweep=sweep_text is not None)
        sweep = sweep_option(
            sweep_text,
            locust=locust,
            write_plan=write_plan_path is not None,
            html=html_path is not None,
            metrics_out=metrics_out is not None,
        )
    except ValueError as error:
        raise _invalid(err, str(error)) from error
    failures = OutputFailures(
        lambda line: err.print(line, markup=False, highlight=False, soft_wrap=True)
    )
    if write_plan_path is not None:
        with failures.writing("--write-plan", write_plan_path):
            write_plan(plan.per_process(workers), write_plan_path)
            err.print(f"plan written to {write_plan_path} ({workers} worker processes)")
        raise typer.Exit(failures.exit_code(ExitCode.OK))
    telemetry_options = TelemetryOptions(
        serve_metrics_port=serve_metrics,
        otel_jsonl=otel_jsonl,
        otel_jsonl_append=append,
        span_file_failed=failures.line_file_failed(SPANS_OPTION, "spans"),
        otlp=otlp,
        sampler=trace_sampler(trace_sample),
        # with --serve-metrics, cost series priced as the summary prices them
        price_of=price_lookup(prices, price_as) if prices is not None else None,
    )
    pricing = (prices, price_as)
    run_outputs = RunOutputs(failures, metrics_out, transcript)
    stop = StopRequest()

    def run_asyncio(plan: LoadPlan, options: TelemetryOptions, stop: StopRequest) -> LoadSummary:
        return _run_asyncio(plan, options, quiet, notes, err, stop, pricing, run_outputs, wire)

    with stop_on_signals(stop):
        if sweep is not None:
            runs = sweep_runs(plan, sweep, telemetry_options, run_asyncio, stop, err, quiet, notes)
            sweep_outputs(sweep, plan, runs, prices, (json_path, html_path), failures)
            codes = [_exit_code(run, max_failed_calls, err) for run in runs]
            raise typer.Exit(failures.exit_code(max(codes, default=ExitCode.FAILED)))
        locust_options = LocustOptions(
            workers=workers, processes=processes, prices=prices, price_as=price_as
        )

        def run_locust_users(plan: LoadPlan, _: TelemetryOptions, stop: StopRequest) -> LoadSummary:
            return run_locust(
                plan,
                locust_options,
                serve_metrics_port=serve_metrics,
                notes=notes,
                progress=tracker("sessions", plan.sessions, quiet=quiet),
                stop=stop,
                metrics_out=metrics_writer(failures, metrics_out),
            )

        run_one = run_locust_users if locust else run_asyncio
        summary = _summarised(plan, telemetry_options, run_one, stop, notes, err, failures)
        if json_path is not None:
            with failures.writing("--json", json_path):
                write_json(summary, json_path)
    raise typer.Exit(failures.exit_code(_exit_code(summary, max_failed_calls, err)))


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
