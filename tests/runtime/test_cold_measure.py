"""The cold path of the estimate (C-level passes over a batch of rows never measured) gives
what the one-row-at-a-time definitions give, and what it remembers on rows is the same."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.history_window import HistoryWindow
from harness.runtime import ChatMessage, message_tokens
from harness.runtime.estimate import older_costs, row_tokens, rows_tokens
from harness.runtime.turns import is_turn_boundary

# Fragments that steer every branch: carriers (with and without leading whitespace),
# loadable and placeholder image markers, 2-, 3- and 4-byte characters, a lone surrogate
# (counted as 3 bytes, as the reference's lossy strings would not be: surrogatepass).
_FRAGMENTS = st.sampled_from(
    [
        "[Tool results]",
        "  [Tool results]\n",
        "\u2003[Tool results]",
        "[Tool attachments: 1]\n[IMAGE:/a.png]\n",
        "[IMAGE:/a.png]",
        "[IMAGE:https://x/y.png]",
        "[IMAGE:placeholder]",
        "[IMAGE:",
        "abc ",
        "é",
        "→",
        "🦀",
        "\ud800",
        "\n",
        "[",
    ]
)
_CONTENTS = st.lists(_FRAGMENTS, max_size=6).map("".join)
_ROWS = st.lists(
    st.builds(ChatMessage, st.sampled_from(["system", "user", "assistant", "tool"]), _CONTENTS),
    max_size=30,
)


def _fresh(rows: list[ChatMessage]) -> list[ChatMessage]:
    return [ChatMessage(row.role, row.content) for row in rows]


@given(_ROWS)
def test_batch_measure_matches_the_row_definitions(rows: list[ChatMessage]) -> None:
    costs, opens = older_costs(_fresh(rows))
    assert costs == [message_tokens(row, current_carrier=False) for row in rows]
    assert opens == [is_turn_boundary(row) for row in rows]


@given(_ROWS, st.integers(min_value=0, max_value=30))
def test_remembered_costs_equal_measured_ones(rows: list[ChatMessage], measured: int) -> None:
    """A batch where a prefix was measured before (an agent's old rows plus new ones)."""
    fresh = _fresh(rows)
    older_costs(fresh[:measured])
    assert older_costs(fresh) == older_costs(_fresh(rows))


@given(_ROWS, st.integers(min_value=0, max_value=2_000))
def test_window_on_measured_rows_equals_window_on_fresh_rows(
    rows: list[ChatMessage], budget: int
) -> None:
    measured = _fresh(rows)
    older_costs(measured)
    assert HistoryWindow(measured).trim_to_recent_turns(budget) == HistoryWindow(
        _fresh(rows)
    ).trim_to_recent_turns(budget)


@given(st.lists(st.integers(min_value=0, max_value=100_000), max_size=30))
def test_batch_row_cost_is_the_row_cost_formula(sizes: list[int]) -> None:
    assert rows_tokens(sizes) == [row_tokens(size) for size in sizes]
