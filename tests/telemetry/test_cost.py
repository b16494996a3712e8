"""The cost observer (``telemetry.cost``): hand-worked money, and the same money as the
load summary for the same events (one pricing formula, ``harness.pricing.formula``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from harness.events import Event, EventSource, ProviderCallFinished, TrimTrigger
from harness.load.tally import LoadTally
from harness.pricing.spend import Spend, cost_summary
from harness.pricing.table import ModelPrice, PriceTable
from harness.telemetry import names as n
from harness.telemetry.cost import CostObserver
from harness.telemetry.setup import TelemetryOptions, build_telemetry
from tests.telemetry.scripted import MODEL, PROVIDER, Script, scripted_session

PRICE = ModelPrice(input=2.0, cached_input=0.5, cache_write=2.5, output=8.0)


def _finished(script: Script, input_tokens: int, read: int, write: int, output: int) -> None:
    """A successful call of ``script`` with exactly this usage."""
    script.call(input_tokens)
    last = script.events[-1]
    assert isinstance(last, ProviderCallFinished)
    script.events[-1] = ProviderCallFinished(
        session_id=last.session_id,
        turn_id=last.turn_id,
        at=last.at,
        call_id=last.call_id,
        provider=last.provider,
        provider_kind=last.provider_kind,
        model=last.model,
        outcome=last.outcome,
        duration_s=last.duration_s,
        input_tokens=input_tokens,
        output_tokens=output,
        cache_read_input_tokens=read,
        cache_creation_input_tokens=write,
    )


def _observe(events: Sequence[Event], price: ModelPrice | None = PRICE) -> CollectorRegistry:
    registry = CollectorRegistry()
    observer = CostObserver(registry, lambda model: price if model == MODEL else None)
    for event in events:
        observer.on_event(event)
    return registry


def _value(registry: CollectorRegistry, spec: n.MetricSpec, **labels: str) -> float:
    value = registry.get_sample_value(spec.name, labels)
    assert value is not None, (spec.name, labels)
    return value


def _total(registry: CollectorRegistry, spec: n.MetricSpec) -> float:
    return sum(s.value for f in registry.collect() for s in f.samples if s.name == spec.name)


def test_a_small_run_costs_the_hand_worked_amounts() -> None:
    script = Script()
    script.turn()
    # input 3,000 of which 2,000 written: 1,000 uncached × $2 + 2,000 × $2.5; 100 out × $8
    _finished(script, 3000, read=0, write=2000, output=100)
    # input 3,000 of which 2,000 read: 1,000 uncached × $2 + 2,000 × $0.5; 200 out × $8
    _finished(script, 3000, read=2000, write=0, output=200)
    script.trim(TrimTrigger.PROACTIVE)  # 1,500 tokens lost × ($2 − $0.5)
    script.trim(TrimTrigger.TURN_LIMIT)  # no cache loss measured: no money
    script.call(500, outcome="overflow")  # no usage reported: no money
    registry = _observe(script.events)
    route = {n.LABEL_PROVIDER: PROVIDER, n.LABEL_MODEL: MODEL, n.LABEL_SOURCE: n.SOURCE_AGENT}
    expected = {"input": 0.004, "cached_input": 0.001, "cache_write": 0.005, "output": 0.0024}
    for part, usd in expected.items():
        assert _value(registry, n.COST, **route, part=part) == pytest.approx(usd)
    assert _value(registry, n.CACHE_SAVED, **route) == pytest.approx(0.003)  # 2,000 × $1.5
    assert _value(registry, n.CACHE_WRITE_PREMIUM, **route) == pytest.approx(0.001)  # × $0.5
    loss = {
        n.LABEL_TRIGGER: "proactive",
        n.LABEL_PROVIDER: PROVIDER,
        n.LABEL_SOURCE: n.SOURCE_AGENT,
    }
    assert _value(registry, n.CACHE_LOSS_COST, **loss) == pytest.approx(0.00225)
    assert _total(registry, n.CACHE_LOSS_COST) == pytest.approx(0.00225)


def test_cost_of_a_call_seen_on_the_wire_is_labelled_with_the_wire_source() -> None:
    script = Script()
    script.turn()
    _finished(script, 3000, read=2000, write=0, output=200)
    wire = [dataclasses.replace(e, source=EventSource.WIRE) for e in script.events
            if isinstance(e, ProviderCallFinished)]  # fmt: skip
    registry = _observe(wire)
    route = {n.LABEL_PROVIDER: PROVIDER, n.LABEL_MODEL: MODEL, n.LABEL_SOURCE: n.SOURCE_WIRE}
    assert _value(registry, n.CACHE_SAVED, **route) == pytest.approx(0.003)
    assert _total(registry, n.CACHE_SAVED) == pytest.approx(0.003)  # nothing under agent


def test_an_unpriced_model_costs_nothing_rather_than_a_guess() -> None:
    registry = _observe(scripted_session(), price=None)
    assert all(_total(registry, spec) == 0 for spec in n.COST_METRICS)


def test_reads_dearer_and_writes_cheaper_than_input_swap_premium_and_saving() -> None:
    # a table may say so: a counter never goes down, so each lands on the other counter
    odd = ModelPrice(input=1.0, cached_input=3.0, cache_write=0.5, output=1.0)
    script = Script()
    script.turn()
    _finished(script, 1000, read=1000, write=0, output=0)
    _finished(script, 1000, read=0, write=1000, output=0)
    script.trim(TrimTrigger.REACTIVE)
    registry = _observe(script.events, odd)
    assert _total(registry, n.CACHE_SAVED) == pytest.approx(0.0005)  # 1,000 × $0.5
    assert _total(registry, n.CACHE_WRITE_PREMIUM) == pytest.approx(0.002)  # 1,000 × $2
    assert _total(registry, n.CACHE_LOSS_COST) == 0  # nothing lost


_usage = st.tuples(
    st.integers(0, 200_000), st.integers(0, 200_000), st.integers(0, 200_000),
    st.integers(0, 20_000),
)  # fmt: skip


_rate = st.floats(0, 20, allow_nan=False)
_prices = st.builds(ModelPrice, input=_rate, cached_input=_rate, cache_write=_rate, output=_rate)


@settings(max_examples=60, deadline=None)
@given(calls=st.lists(_usage, min_size=1, max_size=12), trims=st.integers(0, 4), price=_prices)
def test_the_counters_sum_to_the_load_summarys_cost(
    calls: list[tuple[int, int, int, int]], trims: int, price: ModelPrice
) -> None:
    """Events ↔ counters: the same events through the load tally and its summary, and
    through the cost observer, give the same money (total, net cache saved, loss), whatever
    the rates (reads dearer than input, writes cheaper: the counters swap, the net holds).
    A run with no call prices no loss in the summary, hence at least one call."""
    script = Script()
    script.turn()
    for input_tokens, read, write, output in calls:
        _finished(script, input_tokens, read=read, write=write, output=output)
    for _ in range(trims):
        script.trim(TrimTrigger.PROACTIVE)
    tally = LoadTally()
    for event in script.events:
        tally.on_event(event)
    registry = _observe(script.events, price)
    table = PriceTable.model_validate({"date": "2026-12-01", "models": {MODEL: price}})
    summary, note = cost_summary(Spend.of(tally), 1, table)
    assert note is None
    assert summary is not None
    assert _total(registry, n.COST) == pytest.approx(summary.total, abs=1e-6)
    net = _total(registry, n.CACHE_SAVED) - _total(registry, n.CACHE_WRITE_PREMIUM)
    assert net == pytest.approx(summary.cache_saved, abs=1e-6)
    # a loss priced below zero (cached dearer than input) is no loss to a counter
    lost = max(0.0, summary.cache_lost)
    assert _total(registry, n.CACHE_LOSS_COST) == pytest.approx(lost, abs=1e-6)


def _cost_series(registry: CollectorRegistry) -> set[str]:
    names = {spec.name for spec in n.COST_METRICS}
    return {s.name for f in registry.collect() for s in f.samples if s.name in names}


@pytest.mark.parametrize("priced", [False, True])
def test_cost_series_exist_only_with_a_price_table(priced: bool) -> None:
    registry = CollectorRegistry()
    telemetry = build_telemetry(
        TelemetryOptions(registry=registry, price_of=(lambda _: PRICE) if priced else None)
    )
    for event in scripted_session():
        for observer in telemetry.observers:
            observer.on_event(event)
    telemetry.shutdown()
    assert _cost_series(registry) == ({spec.name for spec in n.COST_METRICS} if priced else set())
