"""``trimscope report``: transcripts to one self-contained HTML report.

Exit codes: 0 the report was written; 1 it could not be written (an I/O error on the
output); 2 a transcript or path is invalid. Unless the code is 0 nothing was written, and a
report already at the output path is left as it was.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from harness.cli.paths import check_outputs
from harness.exit_codes import ExitCode
from harness.report import ReportInputError, write_report

DEFAULT_OUTPUT = Path("report.html")


def report(
    transcripts: list[Path] = typer.Argument(
        ...,
        metavar="TRANSCRIPT",
        help="Transcript files (JSON lines) or folders searched for *.jsonl.",
    ),
    output: Path = typer.Option(DEFAULT_OUTPUT, "-o", "--output", help="HTML file to write."),
    strict: bool = typer.Option(
        False, "--strict", help="Also refuse an incomplete last line (normally skipped)."
    ),
) -> None:
    """Turn transcripts into one self-contained HTML report.

    Each session's request estimates are drawn against budget and window, with trims,
    refusals and overflows marked, and the run's totals."""
    err = Console(stderr=True, highlight=False)
    check_outputs({"--output": output}, {})
    try:
        built = write_report(transcripts, output, strict=strict)
    except ReportInputError as error:
        err.print(f"invalid input: {error}", style="bold red", markup=False, soft_wrap=True)
        err.print(f"no report written to {output}", style="red", markup=False)
        raise typer.Exit(ExitCode.INVALID) from error
    except OSError as error:
        err.print(f"cannot write {output}: {error}", style="bold red", markup=False)
        err.print(f"no report written to {output}", style="red", markup=False)
        raise typer.Exit(ExitCode.UNWRITTEN) from error
    for note in built.notes:
        err.print(f"warning: {note}", style="yellow", markup=False, soft_wrap=True)
    totals = built.totals
    Console(highlight=False).print(
        f"wrote {output}: {totals.sessions} session(s), {totals.calls} call(s), "
        f"{totals.trims} trim(s), {totals.refusals} refusal(s), "
        f"{totals.overflows} overflow answer(s)"
        + (f" ({looks} look-alike(s))" if (looks := totals.overflow_counts.look_alike) else "")
        + f" from {totals.files} file(s)",
        markup=False,
        soft_wrap=True,
    )
    raise typer.Exit(ExitCode.OK)


def register(app: typer.Typer) -> None:
    app.command("report")(report)
