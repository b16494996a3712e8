"""The wire observer's findings as events: what the proxy publishes on the bus.

A runtime seen on the wire is reported with the events the reference agent emits, so the
existing metrics, spans and dashboards show it; ``source="wire"`` tells the two apart. Each
finding becomes, in this order:

- a ``trim`` → ``HistoryTrimmed`` with ``trigger=wire`` (which moment of the runtime's loop
  trimmed is not visible on the wire, so none of the reference's triggers is claimed) and
  ``reason="wire"`` (the reference's reason strings are its own; the metric label is
  ``other``); the budget is not known there (``None``); the cache loss is the trim
  finding's own (``harness.agent.cache_loss``'s definition, measured on the wire);
- an ``overflow`` → ``OverflowDetected``, with both classifiers' verdicts and the provider's
  error code read from the answer body, as the reference agent records them;
- a ``provider_edit`` whose detail starts with an edit the events know (``clear_tool_uses``,
  ``clear_thinking``, ``compaction``; e.g. ``clear_tool_uses_20250919``) →
  ``ProviderContextEdited`` with the detail as its wire type (other edits, such as Responses'
  ``truncation``, have no kind there and are reported by the finding only);
- then, every finding → ``WireFindingObserved``, the finding itself.

Wire events belong to no turn (``turn_id=None``: the proxy sees requests, not turns); a
call is named ``{session}:{call}``. ``provider`` is the name the proxy was given for its
upstream, else the wire format; the proxy publishes the calls' own events itself.

Pure: no I/O, the time is passed in. The only module that builds wire-sourced events, as
``harness.agent.announce`` is for the agent's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from harness.events import (
    Event,
    EventSource,
    HistoryTrimmed,
    OverflowDetected,
    ProviderContextEdited,
    ProviderEditKind,
    TrimTrigger,
    WireFindingObserved,
)
from harness.providers import classify_overflow
from harness.providers.overflow.failures import OVERFLOW_ERROR_TYPE, provider_error_type
from harness.wire import Finding, WireExchange

WIRE_TRIM_REASON: Final = "wire"
"""``HistoryTrimmed.reason`` of a trim read from the wire (labelled ``other``)."""
MAX_ERROR_BODY_BYTES: Final = 64 * 1024
"""Bytes of an overflow answer the classifiers read: an error body is small; a long stream
that ends in an error is cut to its start (its size must not become the proxy's cost)."""

MAX_MESSAGE_CHARS: Final = 2000
"""Of the answer body, when the finding has no detail, kept as an overflow's message."""


def wire_call_id(finding: Finding) -> str:
    """The call id of a finding's call: its session and its 1-based index there."""
    return f"{finding.session}:{finding.call}"


def events_for_findings(
    exchange: WireExchange,
    findings: Sequence[Finding],
    *,
    provider: str | None,
    model: str | None,
    at: float,
) -> tuple[Event, ...]:
    """The events of ``findings`` (read from ``exchange``), in finding order: for each, its
    reference counterpart when it has one, then its ``WireFindingObserved``."""
    route = provider or exchange.wire
    events: list[Event] = []
    for finding in findings:
        counterpart = _counterpart(exchange, finding, route, model, at)
        if counterpart is not None:
            events.append(counterpart)
        events.append(_observed(exchange, finding, provider, model, at))
    return tuple(events)


def _counterpart(
    exchange: WireExchange, finding: Finding, provider: str, model: str | None, at: float
) -> Event | None:
    match finding.kind:
        case "trim":
            return _trimmed(finding, provider, model, at)
        case "overflow":
            return _overflow(exchange, finding, provider, at)
        case "provider_edit":
            return _provider_edit(exchange, finding, provider, model, at)
        case _:
            return None


def _trimmed(finding: Finding, provider: str, model: str | None, at: float) -> HistoryTrimmed:
    return HistoryTrimmed(
        session_id=finding.session,
        turn_id=None,
        at=at,
        dropped_messages=finding.dropped_messages or 0,
        kept_turns=finding.kept_turns or 0,
        reason=WIRE_TRIM_REASON,
        dropped_turns=finding.dropped_turns or 0,
        trigger=TrimTrigger.WIRE,
        tokens_before=finding.tokens_before,
        tokens_after=finding.tokens_after,
        budget_tokens=None,
        provider=provider,
        model=model,
        cache_loss_tokens=finding.cache_loss_tokens,
        source=EventSource.WIRE,
    )


def _overflow(
    exchange: WireExchange, finding: Finding, provider: str, at: float
) -> OverflowDetected:
    body = exchange.response_body[:MAX_ERROR_BODY_BYTES].decode("utf-8", errors="replace")
    # the classifiers read the answer as the agent's transport would have: by wire format
    verdicts = classify_overflow(exchange.wire, finding.status, body)
    return OverflowDetected(
        session_id=finding.session,
        turn_id=None,
        at=at,
        call_id=wire_call_id(finding),
        provider=provider,
        provider_kind=exchange.wire,
        status_code=finding.status,
        error_type=provider_error_type(body) or OVERFLOW_ERROR_TYPE,
        reference_verdict=verdicts.reference,
        extended_verdict=verdicts.extended,
        message=finding.detail or body[:MAX_MESSAGE_CHARS],
        source=EventSource.WIRE,
    )


def _provider_edit(
    exchange: WireExchange, finding: Finding, provider: str, model: str | None, at: float
) -> ProviderContextEdited | None:
    edit = next((kind for kind in ProviderEditKind if finding.detail.startswith(kind)), None)
    if edit is None:
        return None
    return ProviderContextEdited(
        session_id=finding.session,
        turn_id=None,
        at=at,
        call_id=wire_call_id(finding),
        provider=provider,
        provider_kind=exchange.wire,
        model=model,
        edit=edit,
        wire_type=finding.detail,
        source=EventSource.WIRE,
    )


def _observed(
    exchange: WireExchange,
    finding: Finding,
    provider: str | None,
    model: str | None,
    at: float,
) -> WireFindingObserved:
    return WireFindingObserved(
        session_id=finding.session,
        turn_id=None,
        at=at,
        finding=finding.kind,
        wire=exchange.wire,
        call=finding.call,
        status_code=finding.status,
        provider=provider,
        model=model,
        dropped_messages=finding.dropped_messages,
        dropped_turns=finding.dropped_turns,
        kept_turns=finding.kept_turns,
        tokens_before=finding.tokens_before,
        tokens_after=finding.tokens_after,
        breadcrumb=finding.breadcrumb,
        on_turn_boundary=finding.on_turn_boundary,
        detail=finding.detail,
        source=EventSource.WIRE,
    )
