"""``--sut``'s command checked before any work: split as a shell would, its program found
and executable, or exit 2 naming the problem."""

from __future__ import annotations

import typer
from rich.console import Console

from harness.exit_codes import ExitCode
from harness.sut.child import CommandError, resolve_command


def sut_argv(command: str, err: Console) -> list[str]:
    """The ``--sut`` command, checked before any work (exit 2 naming the problem)."""
    try:
        return resolve_command(command)
    except CommandError as error:
        err.print(f"error: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(ExitCode.INVALID) from error
