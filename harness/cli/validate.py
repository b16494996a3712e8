"""``trimscope validate``: check scenario files without running them.

Its own module so that it imports the scenario loader and nothing of the run's telemetry
(OpenTelemetry, Prometheus): validation is the quick check an editor or a hook runs often.

Exit codes: 0 every file is valid; 2 a file is invalid (each problem is printed as
``file:line: key.path: expected ..., found ...``).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from harness.exit_codes import ExitCode
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


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(paths: list[Path] | None = PATHS, limit: list[str] | None = LIMIT) -> None:
        """Validate scenario files without running them."""
        console = Console(stderr=True)
        loaded = load_paths(paths, console, resolve_limits(limit, console))
        Console().print(f"{len(loaded)} scenario file(s) valid")
