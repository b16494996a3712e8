"""The wire observer's findings as metrics: ``names.WIRE_METRICS``, for the Prometheus
observer (a module of its own by event family, to keep ``prom.py`` small).

One ``WireFindingObserved`` → one increment of ``trimscope_wire_findings_total``; a finding
that counts dropped messages also → one observation of their histogram, and one with both
token counts → the tokens its requests lost (never negative: a counter only grows, and a
request that grew lost nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.events import WireFindingObserved
from harness.telemetry import names as n


class WireFindingMetrics:
    """Updates the wire families; ``children`` are the Prometheus observer's, by name."""

    __slots__ = ("_dropped", "_findings", "_removed")

    def __init__(self, children: Mapping[str, Any]) -> None:
        self._findings = children[n.WIRE_FINDINGS.name]
        self._dropped = children[n.WIRE_DROPPED_MESSAGES.name]
        self._removed = children[n.WIRE_REMOVED_TOKENS.name]

    def record(self, event: WireFindingObserved, exemplar: Mapping[str, str] | None) -> None:
        labels = (event.finding, event.wire, event.source)
        self._findings[labels].inc(1, exemplar)
        if event.dropped_messages is not None:
            self._dropped[labels].observe(event.dropped_messages, exemplar)
        if event.tokens_before is not None and event.tokens_after is not None:
            self._removed[labels].inc(max(0, event.tokens_before - event.tokens_after))
