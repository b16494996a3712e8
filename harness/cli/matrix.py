"""``trimscope matrix``: the portable battery over the reference and the field adapters,
written as ``docs/runtime-matrix.md`` (``harness/sut/matrix.py`` does the work).

Exit codes: 0 the document was written (broken invariants are its content, not a failure
of the command); 1 it could not be written; 130 / 143 a signal stopped the run (nothing
written).
"""

from __future__ import annotations

import signal
from pathlib import Path

import typer
from rich.console import Console

from harness.cli.paths import check_outputs
from harness.exit_codes import ExitCode
from harness.sut.settings import DEFAULT_OP_TIMEOUT_S

DEFAULT_OUT = Path("docs/runtime-matrix.md")
MATRIX_SCENARIO_TIMEOUT_S = 60.0


def matrix(
    out: Path = typer.Option(DEFAULT_OUT, "--out", help="Where to write the Markdown."),
    root: Path = typer.Option(
        Path("."), "--root", help="The repository: adapters/ and .tools/ are found there."
    ),
    sut_timeout: float = typer.Option(
        DEFAULT_OP_TIMEOUT_S,
        "--sut-timeout",
        min=0.1,
        max=3600.0,
        help="Seconds to wait for any one message of a runtime.",
    ),
    scenario_timeout: float = typer.Option(
        MATRIX_SCENARIO_TIMEOUT_S,
        "--scenario-timeout",
        min=0.1,
        max=3600.0,
        help="Seconds one scenario may take in all.",
    ),
) -> None:
    """Run the portable scenarios through several runtimes; write the matrix."""
    check_outputs({"--out": out}, {})  # before any runtime runs: no folder made silently
    # Imported here: the fakes, the protocol and the scenario library.
    from harness.atomic import write_text_atomic  # noqa: PLC0415
    from harness.interrupt import SIGNAL_EXIT_BASE, StopRequest, stop_on_signals  # noqa: PLC0415
    from harness.scenarios.bundled import scenario_library  # noqa: PLC0415
    from harness.scenarios.loader import load_all  # noqa: PLC0415
    from harness.sut.matrix import (  # noqa: PLC0415
        default_entries,
        portable_scenarios,
        render,
        run_entry,
    )

    err = Console(stderr=True)
    root = root.resolve()
    loaded = portable_scenarios(load_all([scenario_library()]))
    rows = []
    stop = StopRequest()
    with stop_on_signals(stop):
        for entry in default_entries(root):
            if stop.requested:
                break
            note = entry.missing or "running"
            err.print(f"{entry.runtime} / {entry.config}: {note}", markup=False)
            rows.append(
                run_entry(entry, root, loaded, op_timeout_s=sut_timeout,
                          scenario_timeout_s=scenario_timeout, stop=stop)
            )  # fmt: skip
    if stop.name is not None:
        err.print(f"interrupted by {stop.name}: nothing written", markup=False)
        raise typer.Exit(SIGNAL_EXIT_BASE + signal.Signals[stop.name])
    try:
        write_text_atomic(out, render(rows, len(loaded)) + "\n")
    except OSError as error:
        err.print(f"error: cannot write {out}: {error}", markup=False)
        raise typer.Exit(ExitCode.FAILED) from error
    typer.echo(str(out))


def register(app: typer.Typer) -> None:
    app.command("matrix")(matrix)
