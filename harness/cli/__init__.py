"""The ``trimscope`` command: a composition root (the only place that builds real
exporters, registries and servers). Each subcommand group lives in its own module."""

from __future__ import annotations

import typer

from harness.cli import conformance, dashboards, fake, load, report, run, scenarios_cmd

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)


@app.callback()
def _root() -> None:
    """trimscope: observability and testing for conversation-history trimming."""


run.register(app)
fake.register(app)
dashboards.register(app)
conformance.register(app)
scenarios_cmd.register(app)
report.register(app)
load.register(app)


def main() -> None:
    app()


__all__ = ["app", "main"]
