"""Results of a scenario run: verdicts, the summary table and JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harness.atomic import atomic_write
from harness.scenarios.expect import run_counts
from harness.scenarios.junit_names import JunitNames
from harness.scenarios.runner import ScenarioRun

INTERRUPTED = "INTERRUPTED"


@dataclass(frozen=True, slots=True)
class Outcome:
    path: Path
    scenario_id: str
    title: str
    run: ScenarioRun | None
    failures: tuple[str, ...]
    duration_s: float
    crashed: str | None = None
    timed_out_s: float | None = None  # the timeout it ran into, when it was cancelled
    interrupted: str | None = None
    """The signal that stopped this scenario before it ended (``"SIGINT"``...)."""

    @property
    def passed(self) -> bool:
        return (
            not self.failures
            and self.crashed is None
            and self.timed_out_s is None
            and self.interrupted is None
        )

    @property
    def verdict(self) -> str:
        if self.interrupted is not None:
            return INTERRUPTED
        if self.timed_out_s is not None:
            return "TIMEOUT"
        if self.crashed is not None:
            return "ERROR"
        return "PASS" if self.passed else "FAIL"

    @property
    def timeout_message(self) -> str:
        return f"timeout: still running after {self.timed_out_s:g}s, cancelled"


def _count(outcome: Outcome, key: str) -> str:
    if outcome.run is None:
        return "-"
    value = run_counts(outcome.run)[key]
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in sorted(value.items())) or "0"
    return str(value)


def summary_table(
    outcomes: Sequence[Outcome], *, interrupted: str | None = None, not_run: int = 0
) -> Table:
    passed = sum(o.passed for o in outcomes)
    title = f"trimscope scenarios: {passed}/{len(outcomes)} passed"
    if interrupted is not None:
        title += f" (interrupted by {interrupted}; {not_run} not run)"
    table = Table(title=title)
    table.add_column("scenario", no_wrap=True)  # ids stay whole, even in a narrow pipe
    for column in ("verdict", "trims", "budget decisions", "capacity refusals", "recoveries"):
        table.add_column(column, overflow="fold")
    for o in outcomes:
        style = "green" if o.passed else "bold red"
        table.add_row(
            o.scenario_id,
            f"[{style}]{o.verdict}[/]",
            _count(o, "trims"),
            _count(o, "budget_decisions"),
            _count(o, "capacity_refusals"),
            _count(o, "recoveries"),
        )
    return table


def print_failures(console: Console, outcomes: Sequence[Outcome]) -> None:
    for o in outcomes:
        if o.passed or o.interrupted is not None:
            continue
        console.rule(f"[bold red]{o.scenario_id}[/] ({o.path})")
        if o.timed_out_s is not None:
            console.print(o.timeout_message, markup=False, highlight=False)
        if o.crashed:
            console.print(o.crashed, markup=False, highlight=False, soft_wrap=True)
        for failure in o.failures:
            console.print(failure, markup=False, highlight=False, soft_wrap=True)


def write_junit(
    path: Path,
    outcomes: Sequence[Outcome],
    *,
    not_run: Sequence[tuple[Path, str]] = (),
    interrupted: str | None = None,
    names: JunitNames | None = None,
) -> None:
    """JUnit XML, written atomically (``harness.atomic``): never half-written. ``names``:
    each case's ``classname`` and ``file``, relative to the library the run was given.

    An interrupted run says so: the suite carries an ``interrupted`` property, the scenario
    the signal stopped is an error (``interrupted by SIGINT``), and each scenario that never
    started (``not_run``: path and id) is skipped, so no consumer reads a clean suite."""
    suite = ET.Element(
        "testsuite",
        name="trimscope-scenarios",
        tests=str(len(outcomes) + len(not_run)),
        failures=str(sum(o.verdict == "FAIL" for o in outcomes)),
        errors=str(sum(o.verdict in ("ERROR", "TIMEOUT", INTERRUPTED) for o in outcomes)),
        skipped=str(len(not_run)),
        time=f"{sum(o.duration_s for o in outcomes):.3f}",
    )
    if interrupted is not None:
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="interrupted", value=interrupted)
    names = names or JunitNames()
    for o in outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=names.classname(o.path),
            name=o.scenario_id,
            file=names.file(o.path),
            time=f"{o.duration_s:.3f}",
        )
        if o.interrupted is not None:
            message = f"interrupted by {o.interrupted}"
            ET.SubElement(case, "error", message=message, type="interrupted").text = message
        elif o.timed_out_s is not None:
            ET.SubElement(case, "error", message=o.timeout_message, type="timeout")
        elif o.crashed is not None:
            ET.SubElement(case, "error", message="scenario crashed").text = o.crashed
        elif o.failures:
            failure = ET.SubElement(case, "failure", message=o.failures[0].splitlines()[0])
            failure.text = "\n\n".join(o.failures)
    for scenario_path, scenario_id in not_run:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=names.classname(scenario_path),
            name=scenario_id,
            file=names.file(scenario_path),
            time="0.000",
        )
        ET.SubElement(case, "skipped", message=f"not run: the run was stopped by {interrupted}")
    atomic_write(
        path, lambda out: ET.ElementTree(suite).write(out, encoding="utf-8", xml_declaration=True)
    )
