"""``trimscope validate``: check scenario files without running them.

Its own module so that it imports the scenario loader and nothing of the run's telemetry
(OpenTelemetry, Prometheus): validation is the quick check an editor or a hook runs often.

Exit codes: 0 every file is valid; 2 a file is invalid (each problem is printed as
``file:line: key.path: expected ..., found ...``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import typer
from rich.console import Console

from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all

EXIT_INVALID: Final = 2
DEFAULT_LIBRARY: Final = Path("scenarios")

PATHS = typer.Argument(None, help="Scenario files or folders (default: scenarios/).")


def load_paths(paths: list[Path] | None, console: Console) -> list[LoadedScenario]:
    """The scenarios under ``paths`` (default: the library), or exit 2 listing every problem."""
    targets = paths or [DEFAULT_LIBRARY]
    try:
        return load_all(targets)
    except ScenarioError as error:
        for problem in error.problems:
            console.print(problem, markup=False, highlight=False, soft_wrap=True)
        console.print(f"[bold red]invalid scenario input: {len(error.problems)} problem(s)[/]")
        raise typer.Exit(EXIT_INVALID) from error


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(paths: list[Path] | None = PATHS) -> None:
        """Validate scenario files without running them."""
        loaded = load_paths(paths, Console(stderr=True))
        Console().print(f"{len(loaded)} scenario file(s) valid")
