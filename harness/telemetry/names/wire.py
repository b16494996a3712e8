"""Names of the ``source`` of an event and of what the wire observer reports.

Part of ``harness.telemetry.names``, which re-exports every name here (observers, dashboards
and tests import ``names`` only); a module of its own to keep each module small.

The proxy (``trimscope proxy``) reports a runtime it watches on the wire with the same
events, spans and metrics as the reference agent; ``source`` tells the two apart: a label
on every metric those events feed, ``trimscope.source`` on their spans and span events.
What has no reference counterpart is a ``WireFindingObserved`` event, counted here.
"""

from __future__ import annotations

from typing import Final

from harness.telemetry.names.metric_spec import DROPPED_MESSAGES_BUCKETS, MetricSpec

LABEL_SOURCE: Final = "source"
"""``agent`` (the reference agent's loop) or ``wire`` (the wire observer, through the proxy):
``harness.events.EventSource``."""
SOURCE_AGENT: Final = "agent"
SOURCE_WIRE: Final = "wire"
LABEL_WIRE: Final = "wire"
"""The wire format a finding was read from (``harness.wire.WIRE_KINDS``, seven values)."""
LABEL_KIND: Final = "kind"
"""A wire finding's kind (``harness.wire.FINDING_KINDS``, fourteen values)."""

ATTR_SOURCE: Final = "trimscope.source"
ATTR_WIRE: Final = "trimscope.wire.format"
ATTR_WIRE_FINDING: Final = "trimscope.wire.finding"
ATTR_WIRE_CALL: Final = "trimscope.wire.call"
"""The finding's call, 1-based within its session (the proxy numbers a session's requests)."""
ATTR_WIRE_DETAIL: Final = "trimscope.wire.detail"
ATTR_WIRE_BREADCRUMB: Final = "trimscope.wire.breadcrumb"
ATTR_WIRE_ON_TURN_BOUNDARY: Final = "trimscope.wire.on_turn_boundary"
MAX_WIRE_DETAIL_CHARS: Final = 500

SPAN_WIRE_FINDING: Final = "trimscope.wire_finding"
"""The short span of a finding that arrives with no open span (the proxy opens none)."""

# The ``kind`` label values the dashboard and the alerts select: ``harness.wire``'s finding
# kinds, spelled again because dashboards import only ``names`` (a test holds them equal).
FINDING_COMPACTION: Final = "compaction"
FINDING_ORPHAN_TOOL_RESULT: Final = "orphan_tool_result"
FINDING_ORPHAN_TOOL_CALL: Final = "orphan_tool_call"
FINDING_OVERFLOW_RETRY: Final = "overflow_retry"
FINDING_POISONED_SESSION: Final = "poisoned_session"
FINDING_CACHE_BREAK: Final = "cache_break"
FINDING_UNOBSERVABLE: Final = "unobservable"
BROKEN_PAIR_FINDINGS: Final = (FINDING_ORPHAN_TOOL_RESULT, FINDING_ORPHAN_TOOL_CALL)
"""A tool result without its call, a call without its result: the request breaks pairing."""
LOST_ROW_FINDINGS: Final = ("system_dropped", "system_changed", "user_dropped", "turn_order")
"""Rows a trim must never touch, or their order: the system prompt, the user's messages."""

_FINDING = (LABEL_KIND, LABEL_WIRE, LABEL_SOURCE)

WIRE_FINDINGS: Final = MetricSpec(
    "trimscope_wire_findings_total",
    "counter",
    "Wire observer findings (one per WireFindingObserved event), by kind and wire format.",
    _FINDING,
)
WIRE_DROPPED_MESSAGES: Final = MetricSpec(
    "trimscope_wire_dropped_messages",
    "histogram",
    "Messages a runtime dropped between two requests, per finding that counts them.",
    _FINDING,
    DROPPED_MESSAGES_BUCKETS,
)
WIRE_REMOVED_TOKENS: Final = MetricSpec(
    "trimscope_wire_removed_tokens_total",
    "counter",
    "Estimated tokens a finding's requests lost (tokens_before - tokens_after).",
    _FINDING,
)
WIRE_METRICS: Final = (WIRE_FINDINGS, WIRE_DROPPED_MESSAGES, WIRE_REMOVED_TOKENS)
