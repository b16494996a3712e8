"""Locust mode's cache and cost sections: read from the workers' aggregated metrics, they
equal what the asyncio mode's tally counts for the same events, token for token.

The request-size quantiles are the one figure Locust mode cannot know (null, with a note).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import astuple, replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from harness.events import CallOutcome, Event, ProviderCallFinished, TrimTrigger
from harness.load.launcher_summary import locust_summary
from harness.load.registry_spend import REQUEST_SIZES_NOTE, registry_spend
from harness.load.template import LoadPlan, default_template
from harness.pricing.formula import Usage
from harness.pricing.spend import CacheSummary, Spend, cache_summary, cost_summary
from harness.pricing.table import ModelPrice, PriceTable
from harness.telemetry import PrometheusObserver, reset_multiprocess_dir
from harness.telemetry.names import UNKNOWN
from tests.load.spend_events import call, tally_of, trim, worker_events

ROOT = Path(__file__).resolve().parents[2]
PRICE = ModelPrice(input=2.0, cached_input=0.5, cache_write=2.5, output=10.0)
TABLE = PriceTable.model_validate(
    {"date": "2026-12-01", "models": {"m-a": PRICE, "m-b": PRICE, "unknown": PRICE}}
)

WORKER = textwrap.dedent(
    """
    import sys
    from prometheus_client import CollectorRegistry
    from harness.load.metrics import LoadMetrics
    from harness.telemetry import PrometheusObserver, multiprocess_enabled
    from tests.load.spend_events import worker_events

    assert multiprocess_enabled()
    registry = CollectorRegistry()
    observer = PrometheusObserver(registry, multiprocess=True)
    for event in worker_events(int(sys.argv[1])):
        observer.on_event(event)
    LoadMetrics(registry).session_ended("completed")
    """
)


def _without_request_sizes(cache: CacheSummary) -> CacheSummary:
    return replace(cache, request_tokens_p50=None, request_tokens_p95=None)


def test_two_workers_aggregate_to_the_asyncio_cache_and_cost(tmp_path: Path) -> None:
    shared = tmp_path / "prometheus"
    reset_multiprocess_dir(shared)
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared), "PYTHONPATH": str(ROOT)}
    for worker in (0, 1):
        command = [sys.executable, "-c", WORKER, str(worker)]
        subprocess.run(command, env=env, check=True, timeout=60)
    plan = LoadPlan(default_template(), sessions=2, concurrency=2, turns=1, duration_s=5.0)
    summary = locust_summary(plan, 2, shared, 1.0, locust_stats=[], log="", prices=TABLE)
    counted = Spend.of(tally_of([*worker_events(0), *worker_events(1)]))
    assert summary.sessions_started == 2
    assert summary.cache == _without_request_sizes(cache_summary(counted, 2))
    assert summary.cost == cost_summary(counted, 2, TABLE)[0]
    assert REQUEST_SIZES_NOTE in summary.notes
    # hand-worked anchors: every reported input and output, every known loss, once
    assert summary.cache is not None
    assert summary.cache.input_tokens == 3_000 + 2_500 + 1_800 + 4_100 + 900
    assert summary.cache.output_tokens == 40 + 35 + 12 + 51 + 7
    assert summary.cache.cache_loss_tokens == {"proactive": 950, "reactive": 1_300, "turn_limit": 0}
    assert (summary.cache.request_tokens_p50, summary.cache.request_tokens_p95) == (None, None)
    # a model the table lacks: no cost, and the note the asyncio mode gives
    unpriced = locust_summary(
        plan, 2, shared, 1.0, locust_stats=[], log="", prices=TABLE, price_as="nope"
    )
    assert unpriced.cost is None
    assert cost_summary(counted, 2, TABLE, "nope")[1] in unpriced.notes


_calls = st.builds(
    call,
    st.sampled_from(["m-a", "m-b", None]),
    st.none() | st.integers(0, 50_000),
    st.none() | st.integers(0, 50_000),
    st.none() | st.integers(0, 50_000),
    st.none() | st.integers(0, 5_000),
    provider=st.sampled_from(["p", "q"]),
    outcome=st.sampled_from([CallOutcome.OK, CallOutcome.OVERFLOW, CallOutcome.SERVER_ERROR]),
)
_trims = st.builds(
    trim,
    st.none() | st.integers(0, 20_000),
    st.sampled_from(list(TrimTrigger)),
    provider=st.sampled_from(["p", "q"]),
)


def _reported(events: list[Event]) -> dict[str, Usage]:
    """Per model, the calls' ``Usage.reported`` summed (the cost observer's split of each
    call): output counted even where input is not reported, as the counters count it."""
    totals: dict[str, list[int]] = {}
    for event in events:
        if not isinstance(event, ProviderCallFinished):
            continue
        if event.input_tokens is None and event.output_tokens is None:
            continue
        sums = totals.setdefault(event.model or UNKNOWN, [0, 0, 0, 0])
        usage = Usage(output=event.output_tokens or 0)
        if event.input_tokens is not None:
            read, write = event.cache_read_input_tokens, event.cache_creation_input_tokens
            usage = Usage.reported(event.input_tokens, read or 0, write or 0, usage.output)
        for index, part in enumerate(astuple(usage)):
            sums[index] += part
    return {model: Usage(*sums) for model, sums in totals.items()}


@settings(max_examples=60, deadline=None)
@given(events=st.lists(_calls | _trims, max_size=25))
def test_the_metrics_hold_the_same_spend_as_the_tally(events: list[Event]) -> None:
    """Whatever the calls report (or leave out) and whatever the trims lose, the token
    counters read back give the tally's usage per model and loss per trigger exactly,
    so both modes' cache and cost sections are equal but for the request sizes."""
    registry = CollectorRegistry()
    observer = PrometheusObserver(registry)
    for event in events:
        observer.on_event(event)
    tally = tally_of(events)
    spend, counted = registry_spend(registry), Spend.of(tally)
    assert spend.usage == counted.usage == _reported(events)
    assert spend.cache_loss == counted.cache_loss
    assert cache_summary(spend, 3) == _without_request_sizes(cache_summary(counted, 3))
    assert cost_summary(spend, 3, TABLE) == cost_summary(counted, 3, TABLE)
