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

from harness.cli.options import LIMIT, PATHS, load_paths, resolve_limits


def validate(paths: list[Path] | None = PATHS, limit: list[str] | None = LIMIT) -> None:
    """Validate scenario files without running them."""
    console = Console(stderr=True)
    loaded = load_paths(paths, console, resolve_limits(limit, console))
    Console().print(f"{len(loaded)} scenario file(s) valid")


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
