"""A runtime on the wire is reported like the reference agent, told apart by ``source``.

``events_for_findings`` (``harness.proxy.events``) turns the wire observer's findings into
events; published on a bus with the real observers (the harness fixture: an in-memory span
exporter and a fresh registry), they feed the reference's metrics under ``source="wire"``,
the wire-finding families, and span events carrying ``trimscope.source``.
"""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from harness.events import (
    EventSource,
    HistoryTrimmed,
    OverflowDetected,
    ProviderContextEdited,
    ProviderEditKind,
    TrimTrigger,
    WireFindingObserved,
)
from harness.proxy.events import events_for_findings, wire_call_id
from harness.telemetry import TranscriptWriter, event_from_record, event_to_record, prom
from harness.telemetry import names as n
from harness.wire import Finding, FindingKind
from tests.telemetry.conftest import Harness
from tests.telemetry.metrics_text import label_sets, value
from tests.telemetry.scripted import (
    WIRE,
    WIRE_MODEL,
    WIRE_PROVIDER,
    scripted_session,
    wire_findings,
    wire_session,
)

SOURCED = [spec for spec in n.METRICS if n.LABEL_SOURCE in spec.labels]


def _series(harness: Harness) -> dict[str, list[dict[str, str]]]:
    """Every sourced family's label sets (histograms by their count series)."""
    found: dict[str, list[dict[str, str]]] = {}
    for spec in SOURCED:
        name = f"{spec.name}_count" if spec.type == "histogram" else spec.name
        found[spec.name] = label_sets(harness.registry, name)
    return found


def test_a_wire_trim_is_counted_in_the_trims_of_the_wire_source(harness: Harness) -> None:
    harness.publish(wire_session())
    trims = n.TRIMS.name
    assert value(harness.registry, trims, source="wire", trigger="wire", provider=WIRE_PROVIDER)
    assert value(harness.registry, trims, source="wire") == 1
    assert value(harness.registry, trims, source="agent") == 0
    dropped = f"{n.DROPPED_MESSAGES.name}_sum"
    assert value(harness.registry, dropped, source="wire") == 4
    assert value(harness.registry, n.TRIMMED_TOKENS.name, source="wire") == 4000


def test_every_series_the_agent_feeds_is_labelled_agent(harness: Harness) -> None:
    harness.publish(scripted_session())
    series = _series(harness)
    assert all(series[spec.name] for spec in SOURCED if spec not in n.WIRE_METRICS)
    assert {labels[n.LABEL_SOURCE] for found in series.values() for labels in found} == {"agent"}


def test_every_series_the_wire_feeds_is_labelled_wire(harness: Harness) -> None:
    harness.publish(wire_session())
    series = _series(harness)
    fed = {name for name, found in series.items() if found}
    assert {n.TRIMS.name, n.OVERFLOW_VERDICTS.name, n.PROVIDER_EDITS.name} <= fed
    assert {spec.name for spec in n.WIRE_METRICS} <= fed
    assert {labels[n.LABEL_SOURCE] for found in series.values() for labels in found} == {"wire"}


def test_one_finding_is_one_wire_finding_count_by_kind_and_wire(harness: Harness) -> None:
    events = wire_session()
    harness.publish(events)
    findings = [f for _, found in wire_findings("w1") for f in found]
    assert sum(isinstance(e, WireFindingObserved) for e in events) == len(findings)
    for kind in {f.kind for f in findings}:
        expected = sum(f.kind == kind for f in findings)
        got = value(harness.registry, n.WIRE_FINDINGS.name, kind=kind, wire=WIRE, source="wire")
        assert got == expected, kind
    # dropped messages by the trim (4), the compaction (10) and the dropped user row (1);
    # tokens lost by the trim and the cache break (9000 - 5000 each)
    assert value(harness.registry, f"{n.WIRE_DROPPED_MESSAGES.name}_sum") == 15
    assert value(harness.registry, f"{n.WIRE_DROPPED_MESSAGES.name}_count") == 3
    assert value(harness.registry, n.WIRE_REMOVED_TOKENS.name, kind="cache_break") == 4000
    assert value(harness.registry, n.WIRE_REMOVED_TOKENS.name) == 8000


def test_a_finding_whose_requests_grew_removes_no_tokens(harness: Harness) -> None:
    finding = next(e for e in wire_session() if isinstance(e, WireFindingObserved))
    grew = dataclasses.replace(finding, tokens_before=100, tokens_after=900)
    harness.publish([grew])
    assert value(harness.registry, n.WIRE_REMOVED_TOKENS.name) == 0
    assert value(harness.registry, n.WIRE_FINDINGS.name) == 1


def test_wire_overflows_settle_under_the_wire_source(harness: Harness) -> None:
    harness.publish(wire_session())
    harness.prom.close()  # no call of the session followed: not recovered
    overflows = n.OVERFLOWS.name
    assert value(harness.registry, overflows, source="wire", recovered="false") == 1
    assert value(harness.registry, overflows, source="agent") == 0


def test_wire_span_events_carry_the_wire_source(harness: Harness) -> None:
    harness.publish(wire_session())
    events = [event for span in harness.spans for event in span.events]
    assert events
    assert {(e.attributes or {}).get(n.ATTR_SOURCE) for e in events} == {"wire"}
    findings = [e for e in events if e.name == n.EVENT_WIRE_FINDING_OBSERVED]
    assert len(findings) == sum(isinstance(e, WireFindingObserved) for e in wire_session())
    # no turn or call span is open on the proxy: each gets a short span of its own
    assert len(harness.spans_named(n.SPAN_WIRE_FINDING)) == len(findings)
    poisoned = next(
        e for e in findings if (e.attributes or {})[n.ATTR_WIRE_FINDING] == "poisoned_session"
    )
    assert (poisoned.attributes or {})[n.ATTR_WIRE] == WIRE
    assert (poisoned.attributes or {})[n.HTTP_RESPONSE_STATUS_CODE] == 400


def test_agent_spans_and_span_events_carry_the_agent_source(harness: Harness) -> None:
    harness.publish(scripted_session())
    calls = [s for s in harness.spans if s.name.startswith(n.OPERATION_CHAT)]
    assert calls
    assert {(s.attributes or {}).get(n.ATTR_SOURCE) for s in calls} == {"agent"}
    sourced = {n.EVENT_HISTORY_TRIMMED, n.EVENT_OVERFLOW_DETECTED, n.EVENT_PROVIDER_CONTEXT_EDITED}
    events = [e for s in harness.spans for e in s.events if e.name in sourced]
    assert {e.name for e in events} == sourced
    assert {(e.attributes or {}).get(n.ATTR_SOURCE) for e in events} == {"agent"}


def test_a_transcript_line_without_source_reads_as_the_agents() -> None:
    """Transcripts written before ``source`` existed stay readable, as the agent's."""
    sourced = (HistoryTrimmed, OverflowDetected, ProviderContextEdited)
    events = [e for e in scripted_session() if isinstance(e, sourced)]
    assert events
    for event in events:
        record = event_to_record(event)
        assert record.pop("source") == "agent"
        read = event_from_record(record)
        assert isinstance(read, sourced)
        assert read.source is EventSource.AGENT


def test_a_wire_finding_is_one_transcript_line_that_reads_back() -> None:
    stream = io.StringIO()
    writer = TranscriptWriter(stream)
    events = wire_session()
    for event in events:
        writer.on_event(event)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert len(lines) == len(events)
    finding = next(line for line in lines if line["kind"] == "WireFindingObserved")
    assert (finding["finding"], finding["wire"], finding["source"]) == ("trim", WIRE, "wire")
    assert [event_from_record(line) for line in lines] == events


# --- the mapping ----------------------------------------------------------------------------


def _mapped(*findings: Finding, provider: str | None = WIRE_PROVIDER) -> list[object]:
    exchange, _ = wire_findings("w1")[2]  # the overflow's answer
    return list(
        events_for_findings(exchange, findings, provider=provider, model=WIRE_MODEL, at=7.0)
    )


def test_a_trim_finding_is_a_wire_trim_then_the_finding() -> None:
    trim = Finding(session="w", call=2, kind="trim", status=200, dropped_messages=4,
                   dropped_turns=2, kept_turns=3, tokens_before=9000,
                   tokens_after=5000, cache_loss_tokens=4200)  # fmt: skip
    trimmed, observed = _mapped(trim)
    assert isinstance(trimmed, HistoryTrimmed)
    assert (trimmed.trigger, trimmed.source) == (TrimTrigger.WIRE, EventSource.WIRE)
    assert (trimmed.dropped_messages, trimmed.dropped_turns, trimmed.kept_turns) == (4, 2, 3)
    assert (trimmed.tokens_before, trimmed.tokens_after) == (9000, 5000)
    assert (trimmed.provider, trimmed.model, trimmed.at) == (WIRE_PROVIDER, WIRE_MODEL, 7.0)
    assert (trimmed.session_id, trimmed.turn_id, trimmed.budget_tokens) == ("w", None, None)
    assert trimmed.cache_loss_tokens == 4200  # the wire's measure feeds the cache-loss series
    assert isinstance(observed, WireFindingObserved)
    assert (observed.finding, observed.call, observed.source) == ("trim", 2, EventSource.WIRE)


def test_an_overflow_finding_carries_both_classifiers_verdicts_and_the_error_code() -> None:
    overflow, observed = _mapped(Finding(session="w", call=4, kind="overflow", status=400))
    assert isinstance(overflow, OverflowDetected)
    assert overflow.call_id == wire_call_id(Finding(session="w", call=4, kind="overflow",
                                                    status=400)) == "w:4"  # fmt: skip
    assert (overflow.reference_verdict, overflow.extended_verdict) == (True, True)
    assert overflow.error_type == "invalid_request_error"
    assert (overflow.status_code, overflow.provider_kind) == (400, WIRE)
    assert "prompt is too long" in overflow.message
    assert overflow.source is EventSource.WIRE
    assert isinstance(observed, WireFindingObserved)


def test_a_provider_edit_finding_maps_only_an_edit_the_events_know() -> None:
    known = Finding(session="w", call=3, kind="provider_edit", status=200,
                    detail="clear_tool_uses_20250919")  # fmt: skip
    edited, _ = _mapped(known)
    assert isinstance(edited, ProviderContextEdited)
    assert (edited.edit, edited.wire_type) == (ProviderEditKind.CLEAR_TOOL_USES, known.detail)
    assert edited.source is EventSource.WIRE
    unknown = dataclasses.replace(known, detail="truncation")
    assert [type(e) for e in _mapped(unknown)] == [WireFindingObserved]


def test_a_finding_without_a_reference_event_is_the_finding_only() -> None:
    kinds: tuple[FindingKind, ...] = (
        "compaction", "orphan_tool_call", "poisoned_session", "cache_break", "unobservable"
    )  # fmt: skip
    for kind in kinds:
        finding = Finding(session="w", call=5, kind=kind, status=200)
        assert [type(e) for e in _mapped(finding)] == [WireFindingObserved]


def test_without_a_provider_name_the_route_is_the_wire_format() -> None:
    trimmed, observed = _mapped(Finding(session="w", call=2, kind="trim", status=200),
                                provider=None)  # fmt: skip
    assert isinstance(trimmed, HistoryTrimmed)
    assert trimmed.provider == WIRE
    assert isinstance(observed, WireFindingObserved)
    assert observed.provider is None  # the finding says what is known, no more


def test_pending_overflows_of_too_many_sessions_settle_oldest_first(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runtime on the wire has no turn to end: an abandoned session's overflow would wait
    for ``close``; past the bound the oldest settle, not recovered, each exactly once."""
    monkeypatch.setattr(prom, "MAX_PENDING_OVERFLOW_SESSIONS", 2)
    overflow = next(e for e in wire_session() if isinstance(e, OverflowDetected))
    sessions = [dataclasses.replace(overflow, session_id=f"w{i}") for i in range(3)]
    harness.publish(sessions)
    settled = n.OVERFLOWS.name
    assert value(harness.registry, settled, recovered="false", source="wire") == 1
    harness.prom.close()
    assert value(harness.registry, settled, recovered="false", source="wire") == 3
