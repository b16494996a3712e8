"""The span state ``harness.telemetry.otel`` keeps per session, what it keeps per decision
event type, and two rules it applies: how a finished span records its outcome, and which
open call a follow-up event belongs to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.context import Context
from opentelemetry.trace import Span, Status, StatusCode

from harness.events import OverflowDetected, ProviderContextEdited, RecoveryAttempted, event_kind
from harness.telemetry import names as n
from harness.telemetry.attributes import Attributes, Decision, decision_attributes_of


@dataclass(slots=True)
class CallSpan:
    """An open inference span and what a further attempt copies from it."""

    call_id: str
    span: Span
    name: str
    attributes: Attributes
    trace_id: int  # the span's, for the trace id lookup of span events put on it
    end_ns: int | None = None  # set at ProviderCallFinished; the span ends when superseded
    attempt: int = 1


@dataclass(slots=True)
class SessionSpans:
    """The spans a session has open."""

    agent: Span | None = None
    agent_trace: int = 0  # the agent span's trace id
    parent: Context | None = None  # the agent span's context, for its children
    call: CallSpan | None = None
    tools: dict[str, Span] = field(default_factory=dict)


def set_outcome(span: Span, attributes: Attributes, error_type: str | None) -> None:
    """A finished span's closing attributes, with ``error.type`` and an error status when
    it failed."""
    if error_type:
        attributes[n.ERROR_TYPE] = error_type
    span.set_attributes(attributes)
    if error_type:
        span.set_status(Status(StatusCode.ERROR, error_type))


def names_its_call(event: Decision) -> bool:
    """Whether events of this type name the call they follow (overflows, recoveries and
    provider edits do; a reactive or reported-usage trim follows the finished call)."""
    return isinstance(event, OverflowDetected | RecoveryAttempted | ProviderContextEdited)


def caused_by(event: Decision, call: CallSpan, names_call: bool) -> bool:
    """Whether a follow-up event belongs to the open call; ``names_call`` is
    ``names_its_call(event)``, asked once per event type."""
    if names_call:
        return event.call_id == call.call_id  # type: ignore[union-attr]
    return call.end_ns is not None


@dataclass(frozen=True, slots=True)
class DecisionKind:
    """What every decision event of one type shares, looked up once per type."""

    span_event: str
    outside_span: str  # the short span of one that arrives with no open span
    attributes: Callable[[Any], Attributes]
    names_call: bool  # whether it names the call it follows (see ``caused_by``)

    @classmethod
    def of(cls, event: Decision) -> DecisionKind:
        kind = event_kind(event)
        return cls(
            n.SPAN_EVENT_OF_KIND[kind],
            n.OUTSIDE_TURN_SPANS[kind],
            decision_attributes_of(event),
            names_its_call(event),
        )
