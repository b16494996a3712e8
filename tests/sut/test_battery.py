"""The portable battery: large enough, spread over the wires, every invariant exercised on
several of them (OpenAI Chat Completions among them), and its table in the docs current."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fakes.rows import Row
from fakes.serving.log import Exchange, Outcome
from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import load_all
from harness.sut.battery import coverage, exercised, render
from harness.sut.inprocess import ReferenceRun
from harness.sut.judge import INVARIANTS
from harness.wire.model import WireKind

DOCS = Path(__file__).resolve().parents[2] / "docs" / "sut-protocol.md"
START, END = "<!-- battery-table:start -->\n", "\n<!-- battery-table:end -->"
MIN_PORTABLE = 60
"""Issue 24: at least 60 portable scenarios."""
MIN_WIRES = 3
"""'Every invariant exercised on several wires.'"""


@pytest.fixture(scope="module")
def table() -> dict[WireKind, Counter[str]]:
    return coverage(load_all([scenario_library()]))


@pytest.mark.slow
def test_the_battery_has_sixty_portable_scenarios_not_mostly_one_wire(
    table: dict[WireKind, Counter[str]],
) -> None:
    sizes = {wire: counts["scenarios"] for wire, counts in table.items()}
    assert sum(sizes.values()) >= MIN_PORTABLE
    assert all(size > 0 for size in sizes.values()), sizes
    assert max(sizes.values()) * 2 < sum(sizes.values()), sizes  # no wire is the majority


@pytest.mark.slow
def test_every_invariant_is_exercised_on_several_wires_openai_chat_among_them(
    table: dict[WireKind, Counter[str]],
) -> None:
    for invariant in INVARIANTS:
        wires = {wire for wire, counts in table.items() if counts[invariant] > 0}
        assert "openai_chat" in wires, invariant
        assert len(wires) >= MIN_WIRES, (invariant, wires)


@pytest.mark.slow
def test_the_table_in_the_docs_is_current(table: dict[WireKind, Counter[str]]) -> None:
    text = DOCS.read_text(encoding="utf-8")
    committed = text[text.index(START) + len(START) : text.index(END)]
    assert committed == render(table), "run `python -m harness.sut.battery` into the docs"


def _call(rows: list[tuple[str, str]], outcome: Outcome = "reply", status: int = 200) -> Exchange:
    return Exchange(
        1, "POST", "/v1/chat/completions", {}, {}, "heuristic", 1000, None, outcome, status,
        {}, {}, rows=tuple(Row(role, text) for role, text in rows),
    )  # fmt: skip


def test_a_question_merged_into_the_next_row_is_no_cut_a_dropped_one_is() -> None:
    first = _call([("system", "s"), ("user", "q1")])
    merged = _call([("system", "s"), ("user", "q1\n\nq2")])
    dropped = _call([("system", "s"), ("user", "[crumb]q2")])
    assert exercised(ReferenceRun((first, merged), (), 2), "s") == frozenset()
    cut = exercised(ReferenceRun((first, dropped), (), 2), "s")
    assert cut == {
        "system_kept",
        "current_user_kept",
        "within_window",
        "wire_order",
        "event_honest",
    }
    assert "system_kept" not in exercised(ReferenceRun((first, dropped), (), 2), None)


def test_failures_exercise_the_failure_invariants_only_when_something_follows() -> None:
    ok = _call([("user", "q1")])
    refused = _call([("user", "q1")], "fault", 429)
    overflow = _call([("user", "q1")], "overflow", 400)
    assert exercised(ReferenceRun((ok, refused, ok), (), 2), None) == {"no_trim_on_lookalike"}
    assert exercised(ReferenceRun((ok, refused), (2,), 2), None) == frozenset()
    assert exercised(ReferenceRun((ok, refused, ok), (1,), 2), None) == {
        "no_trim_on_lookalike",
        "session_survives_failure",
    }
    assert exercised(ReferenceRun((ok, overflow), (), 2), None) == {
        "recovers_from_overflow",
        "within_window",
    }
    tool = _call([("user", "q"), ("assistant", "{}"), ("tool", "{}")])
    assert exercised(ReferenceRun((tool,), (), 1), None) == {"tool_pairing"}
