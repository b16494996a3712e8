"""``trimscope load``: many agent sessions against real fake servers, then a summary.

The fake servers are uvicorn processes on 127.0.0.1 (one per provider route), so the
harness's CPU and the server's are measured apart. ``--locust`` runs the same sessions
as Locust users (a master and ``--workers`` worker processes); ``--write-plan`` writes the
plan remote Locust workers read (see the README, "Load testing").

Exit codes: 0 the run finished and was summarised; 1 no session completed, a fake server
died (the run stops at once), more provider calls failed than ``--max-failed-calls``
allows, or a fake server or Locust could not start; 2 an option or the scenario file is
invalid (nothing ran); 130 / 143 SIGINT / SIGTERM stopped the run: what finished is
summarised (table and ``--json``), marked interrupted, and every child process and
temporary folder is gone. ``--sweep`` runs once per value and exits with the worst of the
runs' codes; a signal ends it after the run it stopped, and the table, ``--json`` and
``--html`` show the values that ran.
"""

from __future__ import annotations

import signal
from dataclasses import asdict, replace
from pathlib import Path

import typer
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased
from rich.console import Console

from harness.atomic import write_text_atomic
from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.cli.envvars import check_telemetry_environment
from harness.cli.paths import MAX_PORT, check_outputs, check_port
from harness.cli.prices import price_lookup, read_pricing
from harness.cli.validate import LIMIT, resolve_limits
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
from harness.load.prices import PriceTable
from harness.load.server import ServerStartError
from harness.load.sweep import (
    Sweep,
    parse_sweep,
    render_sweep,
    sweep_summary,
    swept,
    write_sweep_json,
)
from harness.load.template import DEFAULT_WINDOW
from harness.progress import tracker
from harness.report.sweep_page import render_sweep_page
from harness.scenarios.limits import DEFAULT_LIMITS, Limits
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
    scenario: Path | None,
    provider: str | None,
    context_window: int | None,
    latency_ms: int,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[SessionTemplate, list[str]]:
    """The session template and notes; ``ValueError`` says what is wrong. A scenario is
    read within ``limits`` (``--limit NAME=N``, as for ``run``), and at most one user turn
    more than a session may run is expanded (enough to tell that it has too many)."""
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
        loaded = load_scenario(scenario, limits=limits)
    except ScenarioError as error:
        raise ValueError("\n".join(error.problems)) from error
    return template_from_scenario(
        loaded.scenario, context_window=context_window, max_texts=MAX_TURNS + 1
    )


def _limits(options: list[str] | None, scenario: Path | None, err: Console) -> Limits:
    """``--limit NAME=N`` (as for ``run``), or exit 2: only a scenario is read within them."""
    if options and scenario is None:
        raise _invalid(err, "--limit raises the scenario loader's limits: it needs --scenario")
    return resolve_limits(options, err)


def _turns(turns: int | None, template: SessionTemplate, scenario: Path | None) -> int:
    """``--turns``, else the scenario's user turns, else ``DEFAULT_TURNS``; a scenario with
    more user turns than a session runs needs ``--turns`` (``ValueError``)."""
    if turns is not None:
        return turns
    if scenario is None:
        return DEFAULT_TURNS
    if len(template.user_texts) > MAX_TURNS:
        raise ValueError(
            f"--turns: {scenario} has more than {MAX_TURNS} user turns, more than a load"
            f" session runs; pass --turns N (1..{MAX_TURNS}) to run its first N"
        )
    return len(template.user_texts)


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
    pricing: tuple[PriceTable | None, str | None] = (None, None),
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
        prices=pricing[0],
        price_as=pricing[1],
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
    limit: list[str] | None = LIMIT,
) -> None:
    """Run agent sessions against real fake servers (127.0.0.1) and summarise them."""
    err = Console(stderr=True)
    # Every output, port and variable first: nothing is run that could not be reported.
    outputs = {"--json": json_path, "--otel-jsonl": otel_jsonl, "--write-plan": write_plan_path}
    check_outputs({**outputs, "--html": html_path}, {})
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
        template, notes = _template(
            scenario, provider, context_window, latency_ms, _limits(limit, scenario, err)
        )
        plan = LoadPlan(
            template,
            sessions=sessions,
            concurrency=concurrency,
            turns=_turns(turns, template, scenario),
            duration_s=duration,
        )
        # both modes price their summary (Locust's from the workers' token counters)
        prices = read_pricing(prices_path, price_as)
        sweep = _sweep_option(
            sweep_text,
            locust=locust,
            write_plan=write_plan_path is not None,
            html=html_path is not None,
        )
    except ValueError as error:
        raise _invalid(err, str(error)) from error
    if write_plan_path is not None:
        write_plan(plan.per_process(workers), write_plan_path)
        err.print(f"plan written to {write_plan_path} ({workers} worker processes)")
        raise typer.Exit(EXIT_OK)
    telemetry_options = TelemetryOptions(
        serve_metrics_port=serve_metrics,
        otel_jsonl=otel_jsonl,
        otlp=otlp,
        sampler=trace_sampler(trace_sample),
        # with --serve-metrics, cost series priced as the summary prices them
        price_of=price_lookup(prices, price_as) if prices is not None else None,
    )
    stop = StopRequest()
    with stop_on_signals(stop):
        if sweep is not None:
            runs = _sweep_runs(
                plan, sweep, telemetry_options, quiet, notes, err, stop, prices, price_as
            )
            _sweep_outputs(sweep, plan, runs, prices, (json_path, html_path))
            codes = [_exit_code(run, max_failed_calls, err) for run in runs]
            raise typer.Exit(max(codes, default=EXIT_FAILED))
        try:
            if locust:
                summary = run_locust(
                    plan,
                    LocustOptions(
                        workers=workers, processes=processes, prices=prices, price_as=price_as
                    ),
                    serve_metrics_port=serve_metrics,
                    notes=notes,
                    progress=tracker("sessions", plan.sessions, quiet=quiet),
                    stop=stop,
                )
            else:
                pricing = (prices, price_as)
                summary = _run_asyncio(plan, telemetry_options, quiet, notes, err, stop, pricing)
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
    if summary.server_deaths:
        died = ", ".join(death.ref for death in summary.server_deaths)
        err.print(f"error: fake server {died} died; the run was stopped", highlight=False)
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


def _sweep_option(text: str | None, *, locust: bool, write_plan: bool, html: bool) -> Sweep | None:
    """``--sweep`` and ``--html``, checked before anything runs; ``ValueError`` says what
    is wrong (a budget or turn limit above the largest window is a typo, as for
    ``--context-window``)."""
    if text is None:
        if html:
            raise ValueError("--html writes a sweep's page: it needs --sweep")
        return None
    sweep = parse_sweep(text)
    if locust or write_plan:
        raise ValueError("--sweep runs asyncio sessions; not with --locust or --write-plan")
    if sweep.key != "ratio":
        beyond = [v for v in sweep.values if v > MAX_CONTEXT_WINDOW_TOKENS]
        if beyond:
            raise ValueError(
                f"--sweep: {sweep.key} values are at most {MAX_CONTEXT_WINDOW_TOKENS},"
                f" found {beyond[0]:g}"
            )
    return sweep


def _sweep_runs(
    plan: LoadPlan,
    sweep: Sweep,
    telemetry_options: TelemetryOptions,
    quiet: bool,
    notes: list[str],
    err: Console,
    stop: StopRequest,
    prices: PriceTable | None,
    price_as: str | None,
) -> list[LoadSummary]:
    """One run per swept value, in order. A signal ends the sweep after the run it stopped
    (marked interrupted, as a plain run's summary is); a fake server that cannot start
    exits 1."""
    runs: list[LoadSummary] = []
    for value in sweep.values:
        run_plan = replace(plan, template=swept(plan.template, sweep.key, value))
        if not quiet:
            err.print(f"sweep: {run_plan.template.name}", highlight=False)
        try:
            run = _run_asyncio(
                run_plan, telemetry_options, quiet, notes, err, stop, (prices, price_as)
            )
        except ServerStartError as error:
            err.print(f"error: {error}", markup=False, highlight=False)
            raise typer.Exit(EXIT_FAILED) from error
        except Interrupted as stopped:  # before any session of this value started
            run = nothing_ran(run_plan, notes, signal.Signals(stopped.signum).name)
        if stop.name is not None and not run.interrupted:
            run = interrupted(run, stop.name)
        runs.append(run)
        if run.interrupted:
            break
    return runs


def _sweep_outputs(
    sweep: Sweep,
    plan: LoadPlan,
    runs: list[LoadSummary],
    prices: PriceTable | None,
    outputs: tuple[Path | None, Path | None],
) -> None:
    """The sweep table on stdout, then ``--json`` and ``--html`` (each atomically)."""
    currency = prices.currency if prices is not None else None
    summary = sweep_summary(sweep, plan.template.name, runs, currency)
    render_sweep(summary, Console())
    for note in dict.fromkeys(n for run in runs for n in run.notes):
        Console().print(f"note: {note}", highlight=False)
    json_path, html_path = outputs
    if json_path is not None:
        write_sweep_json(summary, json_path)
    if html_path is not None:
        rows = [asdict(row) for row in summary.rows]
        page = render_sweep_page(summary.key, summary.template, rows, currency)
        write_text_atomic(html_path, page)


def register(app: typer.Typer) -> None:
    app.command("load")(load)
