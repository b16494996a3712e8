"""Accounting: each decision event is one counter increment and one span event."""

from __future__ import annotations

from harness.events import HistoryTrimmed
from harness.telemetry import Tally, account, counter_totals, unbalanced
from tests.telemetry.conftest import Harness
from tests.telemetry.scripted import every_kind_session, scripted_session


def test_every_decision_is_counted_once_and_recorded_once(harness: Harness) -> None:
    harness.publish(every_kind_session())  # the agent's, then a runtime's on the wire
    tallies = account(harness.published, harness.registry, harness.spans)
    assert tallies == {
        "HistoryTrimmed": Tally(6, 6.0, 6),
        "BudgetResolved": Tally(5, 5.0, 5),
        "CapacityChecked": Tally(5, 5.0, 5),
        "OverflowDetected": Tally(3, 3.0, 3),
        "RecoveryAttempted": Tally(2, 2.0, 2),
        "ProviderContextEdited": Tally(3, 3.0, 3),
        "WireFindingObserved": Tally(11, 11.0, 11),
    }
    assert unbalanced(tallies) == {}


def test_the_counter_delta_is_taken_from_a_baseline(harness: Harness) -> None:
    harness.publish(scripted_session("before"))
    baseline = counter_totals(harness.registry)
    harness.exporter.clear()
    events = scripted_session("during")
    harness.publish(events)
    tallies = account(events, harness.registry, harness.spans, baseline=baseline)
    assert unbalanced(tallies) == {}
    assert tallies["HistoryTrimmed"].metric == 5


def test_a_dropped_span_event_is_caught(harness: Harness) -> None:
    events = scripted_session()
    harness.publish(events)
    spans = [s for s in harness.spans if s.name != "trimscope.trim"]  # lose the seeding trim
    tallies = account(events, harness.registry, spans)
    assert unbalanced(tallies) == {"HistoryTrimmed": Tally(5, 5.0, 4)}


def test_an_event_recorded_twice_is_caught(harness: Harness) -> None:
    events = scripted_session()
    harness.publish(events)
    trim = next(e for e in events if isinstance(e, HistoryTrimmed))
    harness.prom.on_event(trim)  # a second observer path counting the same trim
    assert unbalanced(account(events, harness.registry, harness.spans)) == {
        "HistoryTrimmed": Tally(5, 6.0, 5)
    }
