"""The ``--sut`` half of ``trimscope run`` (``trimscope sut reference`` is in ``sut.py``).

``run --sut CMD`` runs the portable scenarios through the runtime ``CMD`` starts and judges
each from the requests its fakes received (``harness.sut``). Exit codes as ``run``: 0 every
scenario passed or was skipped; 1 one failed, timed out, crashed or broke the protocol; 2
the command or an option is invalid (nothing started); 130 / 143 a signal stopped the run
and every output says so.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import typer
from rich.console import Console

from harness.exit_codes import ExitCode
from harness.interrupt import (
    SIGNAL_EXIT_BASE,
    StopRequest,
    ignore_signals_once_written,
    stop_on_signals,
)
from harness.progress import tracker
from harness.scenarios.junit_names import JunitNames
from harness.scenarios.loader import LoadedScenario
from harness.sut.report import FAILED_VERDICTS, summary_table, write_json, write_junit
from harness.sut.suite import SutOutcome, SutSuite, run_sut_suite

PIPED_WIDTH = 180


def run_sut(
    argv: list[str],
    loaded: list[LoadedScenario],
    *,
    json_out: Path | None,
    junit_xml: Path | None,
    op_timeout_s: float,
    scenario_timeout_s: float,
    workers: int,
    quiet: bool,
    names: JunitNames | None = None,
    stop: StopRequest | None = None,
) -> None:
    """Run, write the outputs (marked when interrupted), print the table, exit."""
    err = Console(stderr=True)
    shown = tracker("scenarios", len(loaded), quiet=quiet)

    def progress(outcome: SutOutcome) -> None:
        if outcome.verdict in FAILED_VERDICTS:
            shown.note(f"[bold red]{outcome.verdict}[/] {outcome.scenario_id}")
        shown.advance()

    suite = SutSuite(
        argv, op_timeout_s=op_timeout_s, scenario_timeout_s=scenario_timeout_s, workers=workers
    )
    stop = stop or StopRequest()  # it may hold a signal of the setup: then none runs
    with stop_on_signals(stop), shown:
        outcomes = run_sut_suite(suite, loaded, progress, stop)  # in the scenarios' order
    interrupted = stop.name
    if interrupted is not None:
        err.print(f"[bold yellow]interrupted by {interrupted}[/]: writing outputs")
    finished = {o.scenario_id for o in outcomes}
    not_run = [(i.path, i.scenario.id) for i in loaded if i.scenario.id not in finished]
    if json_out is not None:
        write_json(json_out, suite.hello, outcomes, [i for _, i in not_run], interrupted)
    if junit_xml is not None:
        write_junit(junit_xml, outcomes, not_run, interrupted, names)
    ignore_signals_once_written()  # every output is written: the verdict stands
    console = Console() if sys.stdout.isatty() else Console(width=PIPED_WIDTH)
    console.print(summary_table(outcomes, interrupted))
    if interrupted is not None:
        raise typer.Exit(SIGNAL_EXIT_BASE + signal.Signals[interrupted])
    failed = any(o.verdict in FAILED_VERDICTS for o in outcomes)
    raise typer.Exit(ExitCode.FAILED if failed else ExitCode.OK)
