"""The portable battery: which invariants each portable scenario *exercises*, per wire.

A scenario exercises an invariant when the reference's own run of it gives the judge
something a runtime could get wrong there (``docs/sut-protocol.md``, "The battery"),
read from the requests its fake logged, as the judge reads them:

- ``tool_pairing``: a request carries a tool result;
- ``recovers_from_overflow``: the provider answered a request with its overflow;
- ``session_survives_failure``: a turn failed and another turn followed;
- ``no_trim_on_lookalike``: a request failed for another reason and another followed;
- ``system_kept`` (with a system prompt), ``current_user_kept``, ``wire_order`` and
  ``event_honest``: the history was cut (a user message of the previous request is no
  longer sent), where a runtime drops the wrong rows, reorders them or does not say so;
- ``within_window``: the history was cut or overflowed: it reached the window.

``python -m harness.sut.battery`` prints the table of ``docs/sut-protocol.md``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from fakes.rows import Row
from fakes.serving.log import Exchange
from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import LoadedScenario, load_all
from harness.sut.inprocess import ReferenceRun, reference_run
from harness.sut.judge import ERROR_STATUS, INVARIANTS, OVERFLOW, Invariant
from harness.sut.portable import not_portable, wire_of
from harness.sut.wires import KIND_OF_WIRE
from harness.wire.model import WireKind

CUT_INVARIANTS: tuple[Invariant, ...] = ("current_user_kept", "wire_order", "event_honest")


def _users(rows: Sequence[Row]) -> list[str]:
    return [row.content for row in rows if row.role == "user"]


def _cut(before: Sequence[Row], after: Sequence[Row]) -> bool:
    """A user message of ``before`` is in no user row of ``after`` (a wire that merges
    consecutive user rows, or the breadcrumb, keeps it inside another)."""
    kept = _users(after)
    return any(not any(text in row for row in kept) for text in _users(before))


def _failed_otherwise(exchange: Exchange) -> bool:
    return exchange.outcome != OVERFLOW and (
        exchange.status >= ERROR_STATUS or exchange.outcome == "fault"
    )


def exercised(run: ReferenceRun, system: str | None) -> frozenset[Invariant]:
    """The invariants the scenario gives the judge something to look at (module doc)."""
    calls = run.exchanges
    pairs = list(itertools.pairwise(calls))
    cut = any(_cut(a.rows, b.rows) for a, b in pairs if a.rows and b.rows)
    overflow = any(c.outcome == OVERFLOW for c in calls)
    found: set[Invariant] = set(CUT_INVARIANTS) if cut else set()
    if cut and system:
        found.add("system_kept")
    if cut or overflow:
        found.add("within_window")
    if overflow:
        found.add("recovers_from_overflow")
    if any(row.role == "tool" for c in calls for row in c.rows):
        found.add("tool_pairing")
    if any(turn < run.turns for turn in run.failed_turns):
        found.add("session_survives_failure")
    if any(_failed_otherwise(a) for a, _ in pairs):
        found.add("no_trim_on_lookalike")
    return frozenset(found)


def coverage(loaded: Sequence[LoadedScenario]) -> dict[WireKind, Counter[str]]:
    """Per wire: how many portable scenarios there are (``"scenarios"``) and how many
    exercise each invariant."""

    async def each() -> dict[WireKind, Counter[str]]:
        table: dict[WireKind, Counter[str]] = {wire: Counter() for wire in KIND_OF_WIRE}
        for item in loaded:
            scenario = item.scenario
            if not_portable(scenario) is not None:
                continue
            run = await reference_run(scenario)
            counts = table[wire_of(scenario)]
            counts["scenarios"] += 1
            counts.update(exercised(run, scenario.system_prompt))
        return table

    return asyncio.run(each())


def render(table: dict[WireKind, Counter[str]]) -> str:
    """The Markdown table: a row per invariant, a column per wire, then the totals."""
    wires = list(table)
    lines = [
        "| invariant | " + " | ".join(f"`{w}`" for w in wires) + " | wires |",
        "| --- | " + " | ".join("---:" for _ in wires) + " | ---: |",
        "| portable scenarios | "
        + " | ".join(str(table[w]["scenarios"]) for w in wires)
        + f" | {sum(table[w]['scenarios'] for w in wires)} |",
    ]
    for invariant in INVARIANTS:
        cells = [str(table[w][invariant]) for w in wires]
        on = sum(table[w][invariant] > 0 for w in wires)
        lines.append(f"| `{invariant}` | " + " | ".join(cells) + f" | {on} |")
    return "\n".join(lines)


def main(folder: Path | None = None) -> None:
    print(render(coverage(load_all([folder or scenario_library()]))))


if __name__ == "__main__":
    main()
