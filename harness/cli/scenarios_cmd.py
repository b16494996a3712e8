"""``trimscope scenarios schema`` and ``trimscope scenarios index``: the generated files of
the scenario library; ``trimscope scenarios export``: a copy of the bundled library to edit.

Exit codes: 0 written (or, with ``--check``, up to date); 1 ``--check`` found the file
stale; 2 a scenario file is invalid, the README lacks its markers, or an export would
overwrite a file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console

from harness.atomic import write_text_atomic
from harness.cli.lazy import group
from harness.cli.paths import check_outputs
from harness.exit_codes import ExitCode
from harness.scenarios.bundled import ExportError, export_library, scenario_library
from harness.scenarios.library import rule_index, schema_json, with_rule_index
from harness.scenarios.loader import ScenarioError, load_all

HELP = "Generated files of the scenario library: its JSON Schema and rule index."


def _stale_or_write(path: Path, text: str, check: bool, console: Console) -> None:
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if current == text:
        console.print(f"{path} is up to date", highlight=False)
        raise typer.Exit(ExitCode.OK)
    if check:
        console.print(f"[bold red]{path} is stale[/]: regenerate it with trimscope scenarios")
        raise typer.Exit(ExitCode.FAILED)
    write_text_atomic(path, text)
    console.print(f"wrote {path}", highlight=False)


def _invalid(error: ScenarioError, console: Console) -> typer.Exit:
    for problem in error.problems:
        console.print(problem, markup=False, highlight=False, soft_wrap=True)
    console.print(f"[bold red]invalid scenario input: {len(error.problems)} problem(s)[/]")
    return typer.Exit(ExitCode.INVALID)


def schema(
    out: Path | None = typer.Option(
        None, "--out", help="Write here (e.g. scenarios/schema.json) instead of stdout."
    ),
    check: bool = typer.Option(False, "--check", help="Only check that --out is up to date."),
) -> None:
    """Export the scenario format as JSON Schema (sorted keys, stable output)."""
    if not check:
        check_outputs({"--out": out}, {})
    text = schema_json()
    if out is None:
        typer.echo(text, nl=False)
        return
    _stale_or_write(out, text, check, Console(stderr=True))


def index(
    library: Path | None = typer.Argument(
        None, help="The scenario folder (default: the bundled library)."
    ),
    readme: Path | None = typer.Option(
        None, "--readme", help="The README to update (default: LIBRARY/README.md)."
    ),
    check: bool = typer.Option(False, "--check", help="Only check that the index is current."),
) -> None:
    """Write the rule -> scenario index into the README, between its markers."""
    console = Console(stderr=True)
    library = library or scenario_library()
    target = readme or library / "README.md"
    if not check:
        check_outputs({"--readme": target}, {})
    try:
        loaded = load_all([library])
        text = target.read_text(encoding="utf-8") if target.exists() else ""
        updated = with_rule_index(text, rule_index(loaded, target.parent), target)
    except ScenarioError as error:
        raise _invalid(error, console) from error
    _stale_or_write(target, updated, check, console)


def export(
    target: Path = typer.Argument(..., help="Folder to copy the library into (created)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that exist."),
) -> None:
    """Copy the bundled scenario library (scenarios, README, JSON Schema) into TARGET."""
    if not target.exists():  # it may be made, never its parents (an existing one: below)
        check_outputs({}, {"TARGET": target})
    console = Console(stderr=True)
    try:
        written = export_library(target, overwrite=force)
    except ExportError as error:
        console.print(f"[bold red]{error}[/]", highlight=False)
        raise typer.Exit(ExitCode.INVALID) from error
    except OSError as error:  # the folder cannot be made or a file written
        console.print(f"[bold red]cannot export to {target}: {error}[/]", highlight=False)
        raise typer.Exit(ExitCode.FAILED) from error
    console.print(f"copied {len(written)} file(s) to {target}", highlight=False)


def register(app: typer.Typer) -> None:
    commands: dict[str, Callable[..., None]] = {"schema": schema, "index": index, "export": export}
    app.add_typer(group(HELP, commands), name="scenarios")
