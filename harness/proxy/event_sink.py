"""The sink that puts a proxied runtime on the dashboards: each exchange's findings become
the events the reference agent emits (``harness.proxy.events``, ``source="wire"``) and are
published on the bus the telemetry observers sit on, so the existing metrics, spans and
dashboards show the runtime without edits."""

from __future__ import annotations

import time
from collections.abc import Callable

from harness.events import Event
from harness.proxy.events import events_for_findings
from harness.proxy.sinks import Traffic
from harness.wire import Finding, WireExchange


class EventSink:
    """``publish`` is the bus's (``EventBus.publish``); ``provider`` names the upstream in
    the events (``None``: the wire format); ``clock`` stamps them (seconds)."""

    def __init__(
        self,
        publish: Callable[[Event], None],
        *,
        provider: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._publish = publish
        self._provider = provider
        self._clock = clock

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        if not findings:
            return
        at = self._clock()
        for event in events_for_findings(
            exchange, findings, provider=self._provider, model=None, at=at
        ):
            self._publish(event)

    def close(self) -> None:
        """Nothing of its own: the telemetry's shutdown ends spans and writes outputs."""
