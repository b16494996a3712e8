"""Options more than one command takes, declared once (flag, help, bounds), and the checks
that go with them.

A command module declares its own options beside its command; the ones here read the
same in every command that has them (``--help`` shows the same line), so a change to one
is a change to all.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from harness.exit_codes import ExitCode
from harness.pricing.formula import PriceOf
from harness.pricing.reading import read_pricing
from harness.pricing.table import price_lookup
from harness.scenarios.bundled import scenario_library
from harness.scenarios.limits import DEFAULT_LIMITS, LIMIT_NAMES, Limits, parse_limit
from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all

PATHS = typer.Argument(
    None, help="Scenario files or folders (default: the bundled scenario library)."
)
LIMIT = typer.Option(
    None,
    "--limit",
    metavar="NAME=N",
    help=f"Raise a loader limit (repeatable); NAME is one of {', '.join(LIMIT_NAMES)}."
    " Defaults: scenarios/README.md.",
)
OTEL_JSONL = typer.Option(None, "--otel-jsonl", help="Write spans here.")
OTLP = typer.Option(False, "--otlp", help="Export spans by OTLP/HTTP (OTEL_*).")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress bar or status.")
PRICE_AS = typer.Option(None, "--price-as", help="Price every call as this model of --prices.")


def resolve_limits(options: list[str] | None, console: Console) -> Limits:
    """The loader limits with every ``--limit NAME=N`` applied, or exit 2 naming the bad one."""
    try:
        return DEFAULT_LIMITS.with_overrides(dict(parse_limit(o) for o in options or ()))
    except ValueError as error:
        console.print(f"--limit: {error}", markup=False, highlight=False)
        raise typer.Exit(ExitCode.INVALID) from error


def load_paths(
    paths: list[Path] | None, console: Console, limits: Limits = DEFAULT_LIMITS
) -> list[LoadedScenario]:
    """The scenarios under ``paths`` (default: the library), or exit 2 listing every problem."""
    targets = paths or [scenario_library()]
    try:
        return load_all(targets, limits)
    except ScenarioError as error:
        for problem in error.problems:
            console.print(problem, markup=False, highlight=False, soft_wrap=True)
        console.print(f"[bold red]invalid scenario input: {len(error.problems)} problem(s)[/]")
        raise typer.Exit(ExitCode.INVALID) from error


def priced_metrics(path: Path | None, price_as: str | None, metrics_wanted: bool) -> PriceOf | None:
    """``--prices``/``--price-as`` of a command that prices its metrics only (``run``,
    ``proxy``), read and checked; a bad table exits 2 naming ``file:line``. Without
    ``--serve-metrics`` or ``--metrics-out`` a table is a mistake, not a no-op."""
    try:
        table = read_pricing(path, price_as)
        if table is not None and not metrics_wanted:
            raise ValueError(
                "--prices prices the metrics: it needs --serve-metrics or --metrics-out"
            )
    except ValueError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(ExitCode.INVALID) from error
    return price_lookup(table, price_as) if table is not None else None
