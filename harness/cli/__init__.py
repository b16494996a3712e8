"""The ``trimscope`` command: a composition root (the only place that builds real
exporters, registries and servers). Each subcommand group lives in its own module."""

from __future__ import annotations

import typer

from harness.cli import demo

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)


@app.callback()
def _root() -> None:
    """Keep ``trimscope`` a command group even while it has a single command."""


demo.register(app)


def main() -> None:
    app()


__all__ = ["app", "main"]
