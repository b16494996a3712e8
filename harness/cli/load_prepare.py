"""``trimscope load``'s options checked and turned into what a run needs: every output,
port and variable checked first, then the plan, its notes, the price table, the wire
watch and the sweep; anything wrong exits 2 naming the option (nothing has run)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console

from harness.cli.envvars import check_telemetry_environment
from harness.cli.load_options import (
    MAX_TURNS,
    LoadRequest,
    refused_combination,
    trace_sampler,
    turns_of,
)
from harness.cli.load_sweep import sweep_option
from harness.cli.options import resolve_limits
from harness.cli.paths import check_outputs, check_port
from harness.exit_codes import ExitCode
from harness.load import LoadPlan, SessionTemplate
from harness.load.outputs import SPANS_OPTION, OutputFailures
from harness.load.sweep import Sweep
from harness.load.wire_watch import WireWatch, watch_wire
from harness.pricing.reading import read_pricing
from harness.pricing.table import PriceTable, price_lookup
from harness.scenarios.limits import DEFAULT_LIMITS, Limits
from harness.telemetry.exposition import LOOPBACK as METRICS_HOST
from harness.telemetry.setup import TelemetryOptions


def invalid(console: Console, message: str) -> typer.Exit:
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
        raise invalid(err, "--limit raises the scenario loader's limits: it needs --scenario")
    return resolve_limits(options, err)


@dataclass(frozen=True, slots=True)
class Prepared:
    """What the checked options make: the plan, its notes, prices, wire watch and sweep."""

    plan: LoadPlan
    notes: list[str]
    prices: PriceTable | None
    wire: WireWatch | None
    sweep: Sweep | None


def check_options(request: LoadRequest, err: Console) -> None:
    """Every output, port and variable first: nothing is run that could not be reported."""
    check_outputs(
        {
            "--json": request.json_path,
            "--otel-jsonl": request.otel_jsonl,
            "--write-plan": request.write_plan_path,
            "--html": request.html_path,
            "--metrics-out": request.metrics_out,
            "--wire-findings": request.wire_findings,
        },
        {"--transcript": request.transcript},
    )
    if request.sut:  # load_sut refuses what a --sut run does not use
        return
    check_port("--serve-metrics", request.serve_metrics, METRICS_HOST)
    tracing = request.otel_jsonl is not None or request.otlp
    check_telemetry_environment(tracing=tracing, otlp=request.otlp)
    refused = refused_combination(
        request.provider,
        locust=request.locust,
        otel_jsonl=request.otel_jsonl,
        otlp=request.otlp,
        sample=request.trace_sample,
        append=request.append,
        transcript=request.transcript is not None,
    )
    if refused:
        raise invalid(err, refused)


def prepared(request: LoadRequest, err: Console) -> Prepared:
    """The plan and what goes with it, or exit 2 naming the option that is wrong."""
    scenario = request.scenario
    try:
        limits = _limits(list(request.limit), scenario, err)
        template, notes = _template(
            scenario, request.provider, request.context_window, request.latency_ms, limits
        )
        plan = LoadPlan(
            template,
            sessions=request.sessions,
            concurrency=request.concurrency,
            turns=turns_of(request.turns, template, scenario),
            duration_s=request.duration,
            http_timeout_s=request.request_timeout,
        )
        # both modes price their summary (Locust's from the workers' token counters)
        prices = read_pricing(request.prices_path, request.price_as)
        sweeping = request.sweep_text is not None
        wire = watch_wire(request.wire_findings, locust=request.locust, sweep=sweeping)
        sweep = sweep_option(
            request.sweep_text,
            locust=request.locust,
            write_plan=request.write_plan_path is not None,
            html=request.html_path is not None,
            metrics_out=request.metrics_out is not None,
        )
    except ValueError as error:
        raise invalid(err, str(error)) from error
    return Prepared(plan, notes, prices, wire, sweep)


def telemetry_options_of(
    request: LoadRequest, prices: PriceTable | None, failures: OutputFailures
) -> TelemetryOptions:
    return TelemetryOptions(
        serve_metrics_port=request.serve_metrics,
        otel_jsonl=request.otel_jsonl,
        otel_jsonl_append=request.append,
        span_file_failed=failures.line_file_failed(SPANS_OPTION, "spans"),
        otlp=request.otlp,
        sampler=trace_sampler(request.trace_sample),
        # with --serve-metrics, cost series priced as the summary prices them
        price_of=price_lookup(prices, request.price_as) if prices is not None else None,
    )
