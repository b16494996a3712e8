"""Issue 28: the fake counts a request from its cached row costs where the counter allows
it (``prefix_chain.counted_rows``), the same number as counting every row again."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.counting.counters import get_counter
from fakes.rows import Row
from fakes.simulations.prefix_chain import RowCosts, counted_rows

COUNTERS = [get_counter(name) for name in ("provider", "o200k_base", "heuristic")]
ATTACHED = json.dumps({"output": "ok", "attachments": [{"kind": "image", "ref": "a.png"}]})
TEXTS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["[IMAGE:cat.png] look", ATTACHED, 'héllo 😀 {"a": 1}', ""]),
)
ROWS = st.lists(
    st.builds(Row, st.sampled_from(["system", "user", "assistant", "tool"]), TEXTS),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(ROWS, min_size=1, max_size=4), st.integers(1, 6))
def test_a_count_from_cached_row_costs_is_the_counters_own(
    requests: list[list[Row]], limit: int
) -> None:
    """Requests that share rows, through one small cache (emptied when full, even in the
    middle of a request): every count equals ``count_rows``, for each counter."""
    for counter in COUNTERS:
        costs = RowCosts(limit)
        for rows in requests:
            assert counted_rows(counter, rows, costs) == counter.count_rows(rows)
            assert counted_rows(counter, rows, costs) == counter.count_rows(rows)  # cached
