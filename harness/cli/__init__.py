"""trimscope: test and observe what an LLM agent does when its conversation history no longer
fits the model's context window.

Run the scenario library against fake providers (run, validate), probe a real endpoint at and
past its window (conformance), put many sessions under load (load), turn transcripts into an
HTML report (report), serve a fake provider (fake serve), and build the Grafana dashboards.

Exit codes, the same for every command: 0 success; 1 a scenario or check failed, or an
output could not be written; 2 invalid input (option, file, path, port, variable), nothing
done; 3 an internal error (a bug: the traceback is saved and its path printed).
"""
# The codes are ``harness.exit_codes.ExitCode``, declared once for every command.

from __future__ import annotations

import sys

from harness.interrupt import record_early_signals

# First, before the imports below take their time: a signal from here on stops `run` in
# order (every output written and marked) instead of killing it with nothing written.
record_early_signals(sys.argv, ("run",))

import typer  # noqa: E402

from harness.cli.crash import run_guarded  # noqa: E402
from harness.cli.lazy import LazyGroup  # noqa: E402

# Paragraphs on one line each: the help renderer keeps a docstring's line breaks.
HELP = "\n\n".join(" ".join(paragraph.split()) for paragraph in (__doc__ or "").split("\n\n"))

app = typer.Typer(
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    help=HELP,
    # -h as well as --help, on every command (click passes it down to subcommands).
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        # Imported here: reading the distribution's metadata is only needed for --version.
        from importlib.metadata import version  # noqa: PLC0415

        typer.echo(f"trimscope {version('trimscope')}")
        raise typer.Exit(0)


@app.callback()
def _root(
    _show_version: bool = typer.Option(
        False,
        "--version",
        callback=_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """trimscope: test and observe conversation-history trimming."""


def main(argv: list[str] | None = None) -> None:
    """The ``trimscope`` console script: the app, with internal errors turned into exit 3."""
    run_guarded(app, argv)


__all__ = ["app", "main"]
