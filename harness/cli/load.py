"""``trimscope load``: many agent sessions against real fake servers, then a summary.

The fake servers are uvicorn processes on 127.0.0.1 (one per provider route), so the
harness's CPU and the server's are measured apart. ``--locust`` runs the same sessions
as Locust users (a master and ``--workers`` worker processes); ``--write-plan`` writes the
plan remote Locust workers read (see the README, "Load testing").

Exit codes: 0 the run finished and was summarised; 1 no session completed, more provider
calls failed than ``--max-failed-calls`` allows, or a fake server or Locust could not
start; 2 an option or the scenario file is invalid (nothing ran); 130 / 143 SIGINT /
SIGTERM stopped the run: what finished is summarised (table and ``--json``), marked
interrupted, and every child process and temporary folder is gone.
"""

from __future__ import annotations

import signal
from pathlib import Path

import typer
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased
from rich.console import Console

from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.cli.envvars import check_telemetry_environment
from harness.cli.paths import MAX_PORT, check_outputs, check_port
from harness.interrupt import SIGNAL_EXIT_BASE, Interrupted, StopRequest, stop_on_signals
from harness.load import (
    FAKE_FOR_KIND,
    LoadMetrics,
    LoadPlan,
    LoadSummary,
    LocustOptions,
    RunOptions,
    SessionTemplate,
    default_template,
    interrupted,
    nothing_ran,
    render,
    run_load,
    run_locust,
    write_json,
    write_plan,
)
from harness.load.server import ServerStartError
from harness.load.template import DEFAULT_WINDOW
from harness.progress import tracker
from harness.telemetry.exposition import LOOPBACK as METRICS_HOST
from harness.telemetry.setup import TelemetryOptions, build_telemetry

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
DEFAULT_TURNS = 10
DEFAULT_MAX_FAILED_CALLS = 0.05
"""The share of provider calls that may fail (5xx, timeouts, broken answers, refused
connections: ``FAILED_CALL_OUTCOMES``) before the run exits 1: a few transient failures
are measured; more mean the endpoint, not the harness, is what was measured."""
MAX_SESSIONS, MAX_CONCURRENCY, MAX_TURNS, MAX_DURATION_S = 1_000_000, 2_000, 1_000, 86_400.0


def _invalid(console: Console, message: str) -> typer.Exit:
    console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_INVALID)


def _template(
    scenario: Path | None, provider: str | None, context_window: int | None, latency_ms: int
) -> tuple[SessionTemplate, list[str]]:
    """The session template and notes; ``ValueError`` says what is wrong."""
    if scenario is None:
        kind = provider or "openai"
        window = context_window or DEFAULT_WINDOW
        return default_template(kind, context_window=window, latency_ms=latency_ms), []
    if provider is not None:
        raise ValueError("--provider chooses the built-in workload; a scenario names its own")
    # Imported here: only --scenario needs the scenario package.
    from harness.cli.load_template import template_from_scenario  # noqa: PLC0415
    from harness.scenarios.loader import ScenarioError, load_scenario  # noqa: PLC0415

    try:
        loaded = load_scenario(scenario)
    except ScenarioError as error:
        raise ValueError("\n".join(error.problems)) from error
    return template_from_scenario(loaded.scenario, context_window=context_window)


def trace_sampler(share: float | None) -> Sampler | None:
    """``--trace-sample``: that share of turns traced, whole (each turn is one trace; its
    spans follow the turn's agent span). ``None``: the SDK's, from ``OTEL_TRACES_SAMPLER``."""
    return None if share is None else ParentBased(TraceIdRatioBased(share))


def _run_asyncio(
    plan: LoadPlan,
    telemetry_options: TelemetryOptions,
    quiet: bool,
    notes: list[str],
    err: Console,
    stop: StopRequest,
) -> LoadSummary:
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
    )
    try:
        return run_load(plan, run_options)
    finally:
        if stop.name is not None:  # --serve-metrics says so too (trimscope_run_interrupted)
            telemetry.mark_interrupted(stop.name)
        telemetry.shutdown()


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
        None, help=f"Built-in workload's client kind (default openai): {', '.join(FAKE_FOR_KIND)}."
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
) -> None:
    """Run agent sessions against real fake servers (127.0.0.1) and summarise them."""
    err = Console(stderr=True)
    # Every output, port and variable first: nothing is run that could not be reported.
    check_outputs(
        {"--json": json_path, "--otel-jsonl": otel_jsonl, "--write-plan": write_plan_path}, {}
    )
    check_port("--serve-metrics", serve_metrics, METRICS_HOST)
    check_telemetry_environment(tracing=otel_jsonl is not None or otlp, otlp=otlp)
    if provider is not None and provider not in FAKE_FOR_KIND:
        raise _invalid(err, f"unknown --provider {provider!r}; known: {', '.join(FAKE_FOR_KIND)}")
    tracing = otel_jsonl is not None or otlp
    if locust and tracing:
        raise _invalid(err, "--otel-jsonl and --otlp trace asyncio runs; Locust runs serve metrics")
    if trace_sample is not None and not tracing:
        raise _invalid(err, "--trace-sample needs --otel-jsonl or --otlp: nothing is traced")
    try:
        template, notes = _template(scenario, provider, context_window, latency_ms)
        plan = LoadPlan(
            template,
            sessions=sessions,
            concurrency=concurrency,
            turns=turns or (len(template.user_texts) if scenario else DEFAULT_TURNS),
            duration_s=duration,
        )
    except ValueError as error:
        raise _invalid(err, str(error)) from error
    if write_plan_path is not None:
        write_plan(plan.per_process(workers), write_plan_path)
        err.print(f"plan written to {write_plan_path} ({workers} worker processes)")
        raise typer.Exit(EXIT_OK)
    stop = StopRequest()
    with stop_on_signals(stop):
        try:
            if locust:
                summary = run_locust(
                    plan,
                    LocustOptions(workers=workers, processes=processes),
                    serve_metrics_port=serve_metrics,
                    notes=notes,
                    progress=tracker("sessions", plan.sessions, quiet=quiet),
                    stop=stop,
                )
            else:
                telemetry_options = TelemetryOptions(
                    serve_metrics_port=serve_metrics,
                    otel_jsonl=otel_jsonl,
                    otlp=otlp,
                    sampler=trace_sampler(trace_sample),
                )
                summary = _run_asyncio(plan, telemetry_options, quiet, notes, err, stop)
        except ServerStartError as error:
            err.print(f"error: {error}", markup=False, highlight=False)
            raise typer.Exit(EXIT_FAILED) from error
        except Interrupted as stopped:  # before any session started: an empty summary
            summary = nothing_ran(plan, notes, signal.Signals(stopped.signum).name)
        if stop.name is not None and not summary.interrupted:
            summary = interrupted(summary, stop.name)
        render(summary, Console())
        if json_path is not None:
            write_json(summary, json_path)
    raise typer.Exit(_exit_code(summary, max_failed_calls, err))


def _exit_code(summary: LoadSummary, max_failed: float, err: Console) -> int:
    """128 + signal when one stopped the run, else 1 for the failures the docstring names."""
    if summary.interrupted_by is not None:
        err.print(f"interrupted by {summary.interrupted_by}: what finished is summarised")
        return SIGNAL_EXIT_BASE + signal.Signals[summary.interrupted_by]
    if not summary.sessions_completed:
        return EXIT_FAILED
    if summary.failed_call_share > max_failed:
        err.print(
            f"error: {summary.failed_calls:,} of {summary.provider_calls:,} provider calls"
            f" failed ({summary.failed_call_share:.1%}), more than --max-failed-calls"
            f" {max_failed:.1%}",
            markup=False,
            highlight=False,
        )
        return EXIT_FAILED
    return EXIT_OK


def register(app: typer.Typer) -> None:
    app.command("load")(load)
