"""``trimscope load --sut CMD [--sut CMD2 ...] --scenario FILE``: the load workload through
runtimes under test (``harness.sut.load``), one after the other.

Exit codes: 0 every session of every runtime passed; 1 a session failed (an invariant
broken, a timeout, a crash, a protocol fault) or a runtime finished none; 2 an option, a
command or the scenario is invalid (nothing ran); 130 / 143 a signal stopped the run: the
sessions that finished are summarised (table and ``--json``), marked interrupted, every
runtime process is reaped. Options of the in-process workload (Locust, sweeps, telemetry,
prices, the built-in template's shape) are refused with ``--sut``, naming the option.
"""

from __future__ import annotations

import inspect
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import typer
from rich.console import Console

from harness.atomic import write_text_atomic
from harness.cli.sut_check import sut_argv
from harness.exit_codes import ExitCode
from harness.interrupt import (
    SIGNAL_EXIT_BASE,
    StopRequest,
    ignore_signals_once_written,
    stop_on_signals,
)
from harness.pricing.reading import read_pricing
from harness.progress import tracker
from harness.report.sweep_page import render_sweep_page
from harness.scenarios.loader import LoadedScenario, ScenarioError, load_all
from harness.sut.load import FAILED, MAX_RUNTIMES, SutLoadPlan, SutLoadSummary, run_sut_load
from harness.sut.load_report import (
    KEY,
    currency,
    figures,
    measures,
    runtime_rows,
    summary_table,
    write_summary_json,
)
from harness.sut.portable import not_portable
from harness.sut.settings import MAX_WORKERS
from harness.sut.suite import SutOutcome

PIPED_WIDTH: Final = 180
ALLOWED_WITH_SUT: Final = frozenset(
    {"sut", "scenario", "sessions", "concurrency", "duration", "json_path", "quiet"}
    | {"prices_path", "price_as", "html_path"}
)
"""``trimscope load``'s parameters a ``--sut`` run uses; any other given is refused."""


def _invalid(err: Console, message: str) -> typer.Exit:
    err.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(ExitCode.INVALID)


def _refused_options(given: Mapping[str, Any], command: Callable[..., None]) -> list[str]:
    """The options of ``command`` set to other than their default that a ``--sut`` load
    run does not use (compared with the typer declaration's default)."""
    refused = []
    for name, declared in inspect.signature(command).parameters.items():
        default = getattr(declared.default, "default", declared.default)
        if name not in ALLOWED_WITH_SUT and given.get(name, default) != default:
            spelled = getattr(declared.default, "param_decls", None) or ()
            flags = [flag for flag in spelled if flag.startswith("--")]
            refused.append(flags[0] if flags else f"--{name.replace('_', '-')}")
    return refused


def _portable_scenario(scenario: Path | None, err: Console) -> LoadedScenario:
    if scenario is None:
        raise _invalid(err, "--sut needs --scenario FILE: one portable scenario to load")
    try:
        loaded = load_all([scenario])
    except ScenarioError as error:
        raise _invalid(err, str(error)) from error
    if len(loaded) != 1:
        raise _invalid(err, f"--scenario {scenario}: expected one scenario, found {len(loaded)}")
    reason = not_portable(loaded[0].scenario)
    if reason is not None:
        item = loaded[0]
        raise _invalid(err, f"{item.path}:{item.id_line}: not portable: {reason}")
    return loaded[0]


def _write_outputs(summary: SutLoadSummary, json_path: Path | None, html: Path | None) -> None:
    """``--json``, then ``--html``: the side-by-side page (``harness.report.sweep_page``
    with ``load --sut``'s rows and measures)."""
    if json_path is not None:
        write_summary_json(summary, json_path)
    if html is not None:
        title = f"trimscope load --sut ({summary.scenario}, {summary.sessions} sessions)"
        if summary.interrupted_by is not None:
            title += f" interrupted by {summary.interrupted_by}"
        page = render_sweep_page(KEY, summary.scenario, runtime_rows(summary), currency(summary),
                                 measures=measures(summary), title=title)  # fmt: skip
        write_text_atomic(html, page)


def load_sut(given: Mapping[str, Any], command: Callable[..., None]) -> int:
    """``command``'s run with ``given`` parameters (``--sut`` among them): check
    everything, run, write ``--json`` (marked when interrupted), print the table; the
    exit code."""
    err = Console(stderr=True)
    refused = _refused_options(given, command)
    commands: list[str] = given["sut"]
    scenario: Path | None = given["scenario"]
    sessions: int = given["sessions"]
    concurrency: int = given["concurrency"]
    json_path: Path | None = given["json_path"]
    if refused:
        raise _invalid(err, f"{', '.join(refused)}: not with --sut (docs/sut-protocol.md)")
    if len(commands) > MAX_RUNTIMES:
        raise _invalid(err, f"--sut: expected at most {MAX_RUNTIMES}, found {len(commands)}")
    if concurrency > MAX_WORKERS:
        found = f"found {concurrency}"
        raise _invalid(err, f"--concurrency: with --sut at most {MAX_WORKERS} processes, {found}")
    resolved = [(command, sut_argv(command, err)) for command in commands]
    item = _portable_scenario(scenario, err)
    try:
        prices = read_pricing(given["prices_path"], given["price_as"])
    except ValueError as error:
        raise _invalid(err, str(error)) from error
    plan = SutLoadPlan(resolved, item, sessions, concurrency, given["duration"],
                       prices=prices, price_as=given["price_as"])  # fmt: skip
    shown = tracker("sessions", sessions * len(resolved), quiet=given["quiet"])

    def progress(outcome: SutOutcome) -> None:
        if outcome.verdict in FAILED:
            shown.note(f"[bold red]{outcome.verdict}[/] {outcome.detail[:120]}")
        shown.advance()

    stop = StopRequest()
    with stop_on_signals(stop), shown:
        summary = run_sut_load(plan, stop, progress)
    _write_outputs(summary, json_path, given["html_path"])
    ignore_signals_once_written()
    console = Console() if sys.stdout.isatty() else Console(width=PIPED_WIDTH)
    console.print(summary_table(summary))
    for r in summary.runtimes:
        note = figures(r, summary).note
        if note is not None:
            console.print(f"note: {r.command}: {note}", markup=False, highlight=False)
    if summary.interrupted_by is not None:
        err.print(f"interrupted by {summary.interrupted_by}: what finished is summarised")
        return SIGNAL_EXIT_BASE + signal.Signals[summary.interrupted_by]
    return ExitCode.FAILED if summary.failed else ExitCode.OK
