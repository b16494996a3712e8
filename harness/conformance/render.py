"""The report as a terminal table (rich), as Markdown, and as JSON files written
atomically (a reader never sees half a file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from rich.console import Group
from rich.table import Table
from rich.text import Text

from harness.atomic import write_text_atomic
from harness.conformance.budget import ProbeBudget
from harness.conformance.report import ConformanceReport, Verdict

_STYLE: Final = {
    Verdict.PASS: "green",
    Verdict.FAIL: "bold red",
    Verdict.INCONCLUSIVE: "yellow",
    Verdict.NOT_APPLICABLE: "dim",
}


def budget_line(budget: ProbeBudget) -> str:
    """The stated cost, printed before the first request."""
    return (
        f"budget: at most {budget.max_requests} requests and "
        f"{budget.max_input_tokens:,} input tokens (runtime estimate, raised to reported usage)"
    )


def _spent_line(report: ConformanceReport) -> str:
    s = report.spent
    return (
        f"spent: {s.requests}/{s.max_requests} requests, "
        f"{s.input_tokens:,}/{s.max_input_tokens:,} input tokens "
        f"({s.reported_input_tokens:,} reported by the endpoint)"
    )


def _verdict_line(report: ConformanceReport) -> str:
    if report.conforms:
        return f"{report.provider} endpoint CONFORMS"
    return f"{report.provider} endpoint DOES NOT CONFORM: " + "; ".join(report.reasons)


def table(report: ConformanceReport) -> Group:
    """The terminal view: a heading, the checks, the cost and the verdict."""
    grid = Table(title=f"trimscope conformance: {report.provider} · {report.model}")
    grid.add_column("Check")
    grid.add_column("Verdict")
    grid.add_column("Finding", overflow="fold")
    for check in report.checks:
        verdict = Text(check.verdict.value, _STYLE[check.verdict])
        grid.add_row(Text(check.title), verdict, Text(check.finding))
    style = "bold green" if report.conforms else "bold red"
    return Group(
        grid,
        Text(_spent_line(report)),
        Text(_verdict_line(report), style),
    )


def _status(status: int | None) -> str:
    return "in stream" if status is None else str(status)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: ConformanceReport) -> str:
    w = report.window
    lines = [
        f"# Conformance: {report.provider} · `{report.model}`",
        "",
        f"- Endpoint: `{report.base_url}`",
        f"- Result: **{'conforms' if report.conforms else 'does not conform'}** "
        f"(exit code {report.exit_code})",
        f"- {_spent_line(report)}",
        f"- Window: declared {w.declared}, measured {w.measured} "
        f"(fits ≥ {w.lower_bound}, does not fit {w.upper_bound}; search {w.stopped})",
        "",
        "| Check | Verdict | Finding |",
        "|---|---|---|",
        *(f"| {c.title} | {c.verdict.value} | {_cell(c.finding)} |" for c in report.checks),
        "",
        "## Overflow answers",
        "",
        *(
            f"- `{a.shape}` (status {_status(a.status)}, {a.estimate_tokens} tokens sent): "
            f"reference {a.reference}, extended {a.extended}; `{_cell(a.excerpt)}`"
            for a in report.overflow
        ),
        "",
        "## Exchanges",
        "",
        "| # | Purpose | Tokens sent | Status | Reported input | Error |",
        "|---|---|---|---|---|---|",
        *(
            f"| {e.index} | {e.purpose} | {e.estimate_tokens} | {e.status} | "
            f"{e.reported_input_tokens} | {e.error_class or ''} |"
            for e in report.exchanges
        ),
    ]
    return "\n".join(lines) + "\n"


def to_json_text(report: ConformanceReport) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through ``harness.atomic`` (temporary file, fsync, rename)."""
    write_text_atomic(path, text)
