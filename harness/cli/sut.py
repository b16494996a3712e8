"""``trimscope sut reference``: the in-process reference agent as a protocol runtime.

Only the adapter and the agent are imported, when the command runs: a runtime's start-up
is part of every ``run --sut`` (``harness/cli/sut_run.py`` is the run's side).
"""

from __future__ import annotations

import typer

from harness.cli.lazy import group

HELP = "Runtimes under test over the SUT protocol (docs/sut-protocol.md)."


def reference() -> None:
    """Speak the SUT protocol on stdin/stdout as the in-process reference agent."""
    # Imported here: only this command needs the adapter and the agent's clients.
    from harness.sut.reference import serve  # noqa: PLC0415

    serve()


def register(app: typer.Typer) -> None:
    app.add_typer(group(HELP, {"reference": reference}), name="sut")
