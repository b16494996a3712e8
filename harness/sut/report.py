"""What a ``--sut`` run writes: the JSON result, JUnit XML and the summary table.

The JSON is ``{"sut": {"name", "version"}, "interrupted": SIGNAL|null, "scenarios": [{"id",
"verdict", "violations": [{"invariant", "call", "detail"}], "skipped_reason", "detail",
"requests", "identical_to_reference", "reference_requests", "overflows", "trims",
"side_requests"}],
"not_run": [ids]}``; both files are written atomically, marked when a signal stopped the
run.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from rich.table import Table

from harness.atomic import atomic_write, write_text_atomic
from harness.scenarios.junit_names import JunitNames
from harness.sut.protocol import RuntimeHello
from harness.sut.suite import SutOutcome

FAILED_VERDICTS: Final = frozenset({"FAIL", "TIMEOUT", "CRASH", "PROTOCOL"})
ERROR_VERDICTS: Final = frozenset({"TIMEOUT", "CRASH", "PROTOCOL"})
VERDICT_STYLE: Final = {"PASS": "green", "FAIL": "bold red"}
VERDICT_ORDER: Final = ("PASS", "FAIL", "TIMEOUT", "CRASH", "PROTOCOL", "SKIP")


def outcome_json(outcome: SutOutcome) -> dict[str, object]:
    return {
        "id": outcome.scenario_id,
        "verdict": outcome.verdict,
        "violations": [
            {"invariant": v.invariant, "call": v.call, "detail": v.detail}
            for v in outcome.violations
        ],
        "skipped_reason": outcome.skipped_reason,
        "detail": outcome.detail,
        "requests": outcome.requests,
        "identical_to_reference": outcome.identical,
        "reference_requests": outcome.reference_requests,
        "overflows": outcome.overflows,
        "trims": outcome.trims,
        "side_requests": outcome.side_requests,
        "duration_s": round(outcome.duration_s, 3),
    }


def write_json(
    path: Path,
    hello: RuntimeHello | None,
    outcomes: Sequence[SutOutcome],
    not_run: Sequence[str],
    interrupted: str | None,
) -> None:
    document = {
        "sut": {"name": hello.name if hello else None, "version": hello.version if hello else None},
        "interrupted": interrupted,
        "scenarios": [outcome_json(o) for o in outcomes],
        "not_run": list(not_run),
    }
    write_text_atomic(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _case_message(outcome: SutOutcome) -> str:
    if outcome.violations:
        first = outcome.violations[0]
        return f"{first.invariant} (call {first.call}): {first.detail}"
    return outcome.detail


def write_junit(
    path: Path,
    outcomes: Sequence[SutOutcome],
    not_run: Sequence[tuple[Path, str]],
    interrupted: str | None,
    names: JunitNames | None = None,
) -> None:
    names = names or JunitNames()
    suite = ET.Element(
        "testsuite",
        name="trimscope-sut",
        tests=str(len(outcomes) + len(not_run)),
        failures=str(sum(o.verdict == "FAIL" for o in outcomes)),
        errors=str(sum(o.verdict in ERROR_VERDICTS for o in outcomes)),
        skipped=str(sum(o.verdict == "SKIP" for o in outcomes) + len(not_run)),
        time=f"{sum(o.duration_s for o in outcomes):.3f}",
    )
    if interrupted is not None:
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="interrupted", value=interrupted)
    for o in outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=names.classname(o.path),
            name=o.scenario_id,
            file=names.file(o.path),
            time=f"{o.duration_s:.3f}",
        )
        if o.side_requests:  # judged apart from the conversation: say how many
            properties = ET.SubElement(case, "properties")
            ET.SubElement(properties, "property", name="side_requests", value=str(o.side_requests))
        if o.verdict == "SKIP":
            ET.SubElement(case, "skipped", message=o.skipped_reason or "")
        elif o.verdict == "FAIL":
            failure = ET.SubElement(case, "failure", message=_case_message(o))
            failure.text = "\n".join(
                f"{v.invariant} call {v.call}: {v.detail}" for v in o.violations
            )
        elif o.verdict in ERROR_VERDICTS:
            ET.SubElement(case, "error", message=o.detail, type=o.verdict.lower())
    for scenario_path, scenario_id in not_run:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=names.classname(scenario_path),
            name=scenario_id,
            file=names.file(scenario_path),
        )
        ET.SubElement(case, "skipped", message=f"not run: the run was stopped by {interrupted}")
    atomic_write(
        path, lambda out: ET.ElementTree(suite).write(out, encoding="utf-8", xml_declaration=True)
    )


def summary_table(outcomes: Sequence[SutOutcome], interrupted: str | None) -> Table:
    """One row per scenario run; skipped ones are counted in the caption (their reasons
    are in the JSON and the JUnit XML)."""
    counts = Counter(o.verdict for o in outcomes)
    title = "runtime under test" + (f" (interrupted by {interrupted})" if interrupted else "")
    caption = ", ".join(f"{counts[v]} {v}" for v in VERDICT_ORDER if counts[v])
    table = Table(title=title, caption=caption or "no scenario finished")
    for column in (
        "scenario",
        "verdict",
        "requests",
        "same as ref",
        "overflows",
        "trims",
        "side requests",
        "why",
    ):
        table.add_column(column)
    for o in outcomes:
        if o.verdict == "SKIP":
            continue
        style = VERDICT_STYLE.get(o.verdict, "bold red")
        table.add_row(
            o.scenario_id,
            f"[{style}]{o.verdict}[/]",
            str(o.requests),
            f"{o.identical}/{o.reference_requests}",
            str(o.overflows),
            str(o.trims),
            str(o.side_requests),
            _case_message(o),
        )
    return table
