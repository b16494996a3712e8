"""The sink that puts a proxied runtime on the dashboards: each generation call becomes the
call events the reference agent emits (``harness.proxy.calls``) and its findings the events
of ``harness.proxy.events``, all ``source="wire"``, published on the bus the telemetry
observers sit on, so the existing metrics, spans and dashboards show the runtime without
edits. Order per exchange, as the agent's loop emits them: ``ProviderCallStarted``,
``ProviderCallFinished``, then the findings' events (an ``OverflowDetected`` after the
failed call's finish, so the next call of the session settles it)."""

from __future__ import annotations

import time
from collections.abc import Callable

from harness.events import Event
from harness.proxy.calls import call_events
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
        call = traffic.call
        if not findings and call is None:
            return
        at = self._clock()
        provider, events = self._provider, list[Event]()
        if call is not None:
            events += call_events(exchange, call, traffic, provider=provider, at=at) or ()
        model = call.model if call is not None else None
        events += events_for_findings(exchange, findings, provider=provider, model=model, at=at)
        for event in events:
            self._publish(event)

    def close(self) -> None:
        """Nothing of its own: the telemetry's shutdown ends spans and writes outputs."""
