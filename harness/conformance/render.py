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
from harness.runtime.text import counted

_STYLE: Final = {
    Verdict.PASS: "green",
    Verdict.FAIL: "bold red",
    Verdict.INCONCLUSIVE: "yellow",
    Verdict.NOT_APPLICABLE: "dim",
}


def budget_line(budget: ProbeBudget, request_timeout_s: float | None = None) -> str:
    """The stated cost (and how long each request may wait), printed before the first
    request."""
    wait = (
        "" if request_timeout_s is None else f"; each request waits at most {request_timeout_s:g} s"
    )
    return (
        f"budget: at most {counted(budget.max_requests, 'request')} and "
        f"{budget.max_input_tokens:,} input tokens (runtime estimate, raised to reported "
        f"usage){wait}"
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
        Text(_window_line(report)),
        Text(ratio_line(report)),
        Text(counter_line(report)),
        Text(_verdict_line(report), style),
    )


def _yes(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "no")


def _count(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def _answer_status(status: int | None, streamed: bool, ok: bool) -> str:
    """What came back, in words: never a bare ``None``."""
    if status is not None:
        return str(status)
    if ok:
        return "answered"
    return "error in stream" if streamed else "no HTTP answer"


def _window_line(report: ConformanceReport) -> str:
    w = report.window
    declared = "no claim" if w.declared is None else f"declared {w.declared:,}"
    measured = "not settled" if w.measured is None else f"measured {w.measured:,}"
    fits = "nothing fit" if w.lower_bound is None else f"fits ≥ {w.lower_bound:,}"
    misses = "no refusal seen" if w.upper_bound is None else f"does not fit {w.upper_bound:,}"
    return f"Window: {declared}, {measured} ({fits}, {misses}; search {w.stopped})"


def ratio_line(report: ConformanceReport) -> str:
    r = report.estimate_ratio
    if r is None:
        return "estimate accuracy: no answered request reported its input tokens"
    return (
        f"estimate accuracy: reported input ÷ runtime estimate = {r.overall:.2f} overall "
        f"(median {r.median:.2f}, {r.low:.2f}–{r.high:.2f} over {r.samples} replies)"
    )


def counter_line(report: ConformanceReport) -> str:
    """Which counter the endpoint's token figures came from (``report.counter``)."""
    return f"counter: {report.counter}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _outcomes(report: ConformanceReport) -> list[str]:
    return [
        f"- {o.probe}: {o.outcome}"
        + ("" if o.status is None else f" (HTTP {o.status})")
        + (f"; `{_cell(o.excerpt)}`" if o.excerpt else "")
        for o in (*report.pairing, *report.row_shapes)
    ]


def markdown(report: ConformanceReport) -> str:
    lines = [
        f"# Conformance: {report.provider} · `{report.model}`",
        "",
        f"- Endpoint: `{report.base_url}`",
        f"- Result: **{'conforms' if report.conforms else 'does not conform'}** "
        f"(exit code {report.exit_code})",
        f"- {_spent_line(report)}",
        f"- {_window_line(report)}",
        f"- {ratio_line(report)}",
        f"- {counter_line(report)}",
        "",
        "| Check | Verdict | Finding |",
        "|---|---|---|",
        *(f"| {c.title} | {c.verdict.value} | {_cell(c.finding)} |" for c in report.checks),
        "",
        "## Overflow answers",
        "",
        *(
            f"- `{a.shape}` (status {_answer_status(a.status, a.streamed, False)}, "
            f"{a.estimate_tokens} tokens sent): reference {_yes(a.reference)}, "
            f"extended {_yes(a.extended)}; `{_cell(a.excerpt)}`"
            for a in report.overflow
        ),
        "",
        "## Tool rows",
        "",
        *_outcomes(report),
        "",
        "## Exchanges",
        "",
        "| # | Purpose | Tokens sent | Status | Reported input | Error |",
        "|---|---|---|---|---|---|",
        *(
            f"| {e.index} | {e.purpose} | {e.estimate_tokens} | "
            f"{_answer_status(e.status, e.streamed, e.ok)} | "
            f"{_count(e.reported_input_tokens)} | {e.error_class or ''} |"
            for e in report.exchanges
        ),
    ]
    return "\n".join(lines) + "\n"


def to_json_text(report: ConformanceReport) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through ``harness.atomic`` (temporary file, fsync, rename)."""
    write_text_atomic(path, text)
