"""``trimscope load --sweep``: the workload once per swept value, then one table.

A signal ends the sweep after the run it stopped (marked interrupted, as a plain run's
summary is); a fake server that cannot start exits 1. The span file (``--otel-jsonl``) is
emptied by the first run only (unless ``--append``): every run's spans follow.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

import typer
from rich.console import Console

from harness.atomic import write_text_atomic
from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.exit_codes import ExitCode
from harness.interrupt import Interrupted, StopRequest
from harness.load import LoadPlan, LoadSummary, interrupted, nothing_ran
from harness.load.outputs import OutputFailures
from harness.load.server import ServerStartError
from harness.load.sweep import (
    Sweep,
    parse_sweep,
    render_sweep,
    sweep_summary,
    swept,
    write_sweep_json,
)
from harness.pricing.table import PriceTable
from harness.report.sweep_page import render_sweep_page
from harness.telemetry.setup import TelemetryOptions

RunOne = Callable[[LoadPlan, TelemetryOptions, StopRequest], LoadSummary]
"""One asyncio run of a plan (the command's, with its other settings bound)."""


def sweep_option(
    text: str | None, *, locust: bool, write_plan: bool, html: bool, metrics_out: bool
) -> Sweep | None:
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
    if metrics_out:
        raise ValueError("--metrics-out writes one run's metrics; --sweep makes several runs")
    if sweep.key != "ratio":
        beyond = [v for v in sweep.values if v > MAX_CONTEXT_WINDOW_TOKENS]
        if beyond:
            raise ValueError(
                f"--sweep: {sweep.key} values are at most {MAX_CONTEXT_WINDOW_TOKENS},"
                f" found {beyond[0]:g}"
            )
    return sweep


def sweep_runs(
    plan: LoadPlan,
    sweep: Sweep,
    telemetry_options: TelemetryOptions,
    run_one: RunOne,
    stop: StopRequest,
    err: Console,
    quiet: bool,
    notes: list[str],
) -> list[LoadSummary]:
    """One run per swept value, in order (see the module docstring)."""
    runs: list[LoadSummary] = []
    for value in sweep.values:
        run_plan = replace(plan, template=swept(plan.template, sweep.key, value))
        if not quiet:
            err.print(f"sweep: {run_plan.template.name}", highlight=False)
        try:
            run = run_one(run_plan, telemetry_options, stop)
        except ServerStartError as error:
            err.print(f"error: {error}", markup=False, highlight=False)
            raise typer.Exit(ExitCode.FAILED) from error
        except Interrupted as stopped:  # before any session of this value started
            run = nothing_ran(run_plan, notes, signal.Signals(stopped.signum).name)
        if stop.name is not None and not run.interrupted:
            run = interrupted(run, stop.name)
        runs.append(run)
        telemetry_options = replace(telemetry_options, otel_jsonl_append=True)
        if run.interrupted:
            break
    return runs


def sweep_outputs(
    sweep: Sweep,
    plan: LoadPlan,
    runs: list[LoadSummary],
    prices: PriceTable | None,
    outputs: tuple[Path | None, Path | None],
    failures: OutputFailures,
) -> None:
    """The sweep table on stdout, then ``--json`` and ``--html`` (each atomically; one
    that cannot be written does not stop the other)."""
    currency = prices.currency if prices is not None else None
    summary = sweep_summary(sweep, plan.template.name, runs, currency)
    render_sweep(summary, Console())
    for note in dict.fromkeys(n for run in runs for n in run.notes):
        Console().print(f"note: {note}", highlight=False)
    json_path, html_path = outputs
    if json_path is not None:
        with failures.writing("--json", json_path):
            write_sweep_json(summary, json_path)
    if html_path is not None:
        rows = [asdict(row) for row in summary.rows]
        page = render_sweep_page(summary.key, summary.template, rows, currency)
        with failures.writing("--html", html_path):
            write_text_atomic(html_path, page)
