"""Issue 28: a load run's memory is flat in its calls and sessions: quantiles from a bounded
sketch, and the fake's per-session state bounded by the sessions at once."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes.counting.counters import TokenCount, get_counter
from fakes.rows import CanonicalRequest, Row
from fakes.simulations import prefix_chain
from fakes.simulations.caching import PrefixStore, simulate
from fakes.simulations.prefix_chain import RowCosts
from harness.load import build_load_fake, default_template
from harness.load.fake import MIN_CACHE_KEYS, ROWS_PER_CACHE_KEY
from harness.quantile import percentile
from harness.sketch import RELATIVE_ACCURACY, Sketch

values = st.lists(
    st.one_of(
        st.just(0.0),
        st.floats(min_value=1e-7, max_value=1e4, allow_nan=False, allow_infinity=False),
    ),
    min_size=1,
    max_size=300,
)


def _near(value: float, exact: float) -> bool:
    return math.isclose(value, exact, rel_tol=RELATIVE_ACCURACY * 1.0001, abs_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from([0.0, 0.05, 0.5, 0.95, 0.99, 1.0]))
def test_a_sketch_quantile_is_within_its_accuracy_of_the_exact_one(
    samples: list[float], q: float
) -> None:
    """Each rank's value within α, interpolated as ``percentile`` does: within α too;
    count, mean, least and greatest exact."""
    sketch = Sketch()
    for value in samples:
        sketch.add(value)
    exact = percentile(samples, q)
    assert exact is not None
    found = sketch.quantile(q)
    assert found is not None
    assert _near(found, exact), (found, exact)
    assert sketch.count == len(samples)
    assert math.isclose(sketch.mean() or 0.0, sum(samples) / len(samples), rel_tol=1e-9)
    assert sketch.quantile(0.0) == min(samples)
    assert sketch.quantile(1.0) == max(samples)


def test_a_sketch_holds_a_bounded_number_of_buckets_however_many_values() -> None:
    sketch = Sketch()
    for i in range(200_000):
        sketch.add(1e-6 * 1.0001**i)  # 1 µs to ~5 × 10^2 s, every one a new value
    assert sketch.count == 200_000
    assert sketch.buckets <= sketch.max_buckets < 7_000


def test_the_load_fake_cache_is_sized_by_the_sessions_at_once() -> None:
    """500 sessions one after another, 2 at a time: the fake keeps the caches of the last
    ``MIN_CACHE_KEYS`` (an unbounded store kept all 500) and a bounded row-cost cache."""
    provider = default_template().providers[0]
    fake = build_load_fake(provider, counting=True, sessions_at_once=2)
    shared = len(prefix_chain._row_costs)  # the process-wide cache, which must not grow
    store = fake.cache_store
    assert store.max_keys == MIN_CACHE_KEYS
    counter = get_counter("heuristic")
    for session in range(500):
        rows = tuple(Row("user", f"session {session} says {'word ' * 400}{i}") for i in range(3))
        request = CanonicalRequest("gpt-x", rows)
        tokens = TokenCount(counter.count_rows(rows), 0)
        headers = {"x-trimscope-load-session": f"load-{session}"}
        simulate("openai", store, counter, request, tokens, headers=headers, now=0.0)
    assert store.key_count() == MIN_CACHE_KEYS
    assert store.row_costs is not None
    assert 0 < len(store.row_costs) <= MIN_CACHE_KEYS * ROWS_PER_CACHE_KEY
    assert len(prefix_chain._row_costs) in (shared, 0)  # untouched (or emptied elsewhere)


def test_a_row_cost_cache_is_emptied_when_full() -> None:
    costs = RowCosts(limit=3)
    counter = get_counter("heuristic")
    rows = [Row("user", f"row {i}") for i in range(5)]
    assert costs.of(counter, rows) == [counter.count_rows((row,)) for row in rows]
    assert len(costs) <= 3
    assert PrefixStore().row_costs is None  # a plain fake shares the process-wide one
