"""``trimscope load``: many agent sessions against real fake servers, then a summary.

The fake servers are uvicorn processes on 127.0.0.1 (one per provider route), so the
harness's CPU and the server's are measured apart. ``--locust`` runs the same sessions
as Locust users (a master and ``--workers`` worker processes); ``--write-plan`` writes the
plan remote Locust workers read (see the README, "Load testing").

Exit codes: 0 the run finished and was summarised; 1 no session completed, or a fake server
or Locust could not start; 2 an option or the scenario file is invalid (nothing ran).
"""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

import typer
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased
from rich.console import Console

from harness.cli.prices import PricesError, load_prices
from harness.conformance.render import write_atomically
from harness.load import (
    FAKE_FOR_KIND,
    LoadMetrics,
    LoadPlan,
    LoadSummary,
    LocustOptions,
    RunOptions,
    SessionTemplate,
    default_template,
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
from harness.report.sweep_page import render_sweep_page
from harness.telemetry.setup import TelemetryOptions, build_telemetry

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
DEFAULT_TURNS = 10
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


def _prices(path: Path | None, price_as: str | None, locust: bool) -> PriceTable | None:
    """``--prices`` and ``--price-as``, checked; ``ValueError`` says what is wrong."""
    if path is None:
        if price_as is not None:
            raise ValueError("--price-as needs --prices: there is no table to price with")
        return None
    if locust:
        raise ValueError("--prices prices asyncio runs; Locust summaries carry no usage")
    try:
        table = load_prices(path)
    except PricesError as error:
        raise ValueError("\n".join(error.problems)) from error
    if price_as is not None and table.price(price_as) is None:
        known = ", ".join(sorted(table.models))
        raise ValueError(f"--price-as {price_as!r} is not in {path}; it has: {known}")
    return table


def _run_asyncio(
    plan: LoadPlan,
    telemetry_options: TelemetryOptions,
    quiet: bool,
    notes: list[str],
    err: Console,
    pricing: tuple[PriceTable | None, str | None] = (None, None),
) -> LoadSummary:
    telemetry = build_telemetry(telemetry_options)  # nothing asked: nothing built
    metrics = LoadMetrics(telemetry.registry) if telemetry.registry is not None else None
    if telemetry.metrics_server is not None:
        err.print(f"metrics: {telemetry.metrics_server.url}", highlight=False)
    run_options = RunOptions(
        observers=telemetry.observers,
        console=None if quiet else err,
        metrics=metrics,
        notes=notes,
        prices=pricing[0],
        price_as=pricing[1],
    )
    try:
        return run_load(plan, run_options)
    finally:
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
        None, "--serve-metrics", min=0, max=65535, help="Serve metrics on 127.0.0.1:PORT."
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
        None, min=64, help=f"Declared window in tokens (built-in default {DEFAULT_WINDOW})."
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
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
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
) -> None:
    """Run agent sessions against real fake servers (127.0.0.1) and summarise them."""
    err = Console(stderr=True)
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
        prices = _prices(prices_path, price_as, locust)
        sweep = parse_sweep(sweep_text) if sweep_text is not None else None
        if sweep is not None and (locust or write_plan_path is not None):
            raise ValueError("--sweep runs asyncio sessions; not with --locust or --write-plan")
        if html_path is not None and sweep is None:
            raise ValueError("--html writes a sweep's page: it needs --sweep")
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
    )
    if sweep is not None:
        outputs = (json_path, html_path)
        _sweep(plan, sweep, telemetry_options, quiet, notes, err, (prices, price_as), outputs)
    try:
        if locust:
            summary = run_locust(
                plan,
                LocustOptions(workers=workers, processes=processes),
                serve_metrics_port=serve_metrics,
                notes=notes,
            )
        else:
            pricing = (prices, price_as)
            summary = _run_asyncio(plan, telemetry_options, quiet, notes, err, pricing)
    except ServerStartError as error:
        err.print(f"error: {error}", markup=False, highlight=False)
        raise typer.Exit(EXIT_FAILED) from error
    render(summary, Console())
    if json_path is not None:
        write_json(summary, json_path)
    raise typer.Exit(EXIT_OK if summary.sessions_completed else EXIT_FAILED)


def _sweep(
    plan: LoadPlan,
    sweep: Sweep,
    telemetry_options: TelemetryOptions,
    quiet: bool,
    notes: list[str],
    err: Console,
    pricing: tuple[PriceTable | None, str | None],
    outputs: tuple[Path | None, Path | None],
) -> None:
    """One run per swept value, then the sweep table; exits (1 when a run completed no
    session)."""
    runs = []
    try:
        for value in sweep.values:
            template = swept(plan.template, sweep.key, value)
            if not quiet:
                err.print(f"sweep: {template.name}", highlight=False)
            runs.append(
                _run_asyncio(
                    replace(plan, template=template), telemetry_options, quiet, notes, err, pricing
                )
            )
    except ServerStartError as error:
        err.print(f"error: {error}", markup=False, highlight=False)
        raise typer.Exit(EXIT_FAILED) from error
    currency = pricing[0].currency if pricing[0] is not None else None
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
        write_atomically(html_path, page)
    raise typer.Exit(EXIT_OK if all(r.sessions_completed for r in runs) else EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("load")(load)
