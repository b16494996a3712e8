"""Cost observer: with a price table, events become money on an injected registry.

Fed by the same events as the Prometheus observer and priced by the one formula
(``harness.pricing.formula``) the load summary uses; the observer only counts what the
formula computes:

- ``ProviderCallFinished`` with reported input → ``trimscope_cost_usd_total`` by part,
  ``trimscope_cache_saved_usd_total`` and ``trimscope_cache_write_premium_usd_total``
  (saved minus premium is the summary's net "cache saved"; two counters because a
  counter never goes down and a write may cost more than it saves);
- ``HistoryTrimmed`` with ``cache_loss_tokens`` → ``trimscope_cache_loss_usd_total``.

A model the lookup cannot price is skipped (the load summary says which one); labels are
the route's provider and model as the other metrics have them, and the event's ``source``.
Only built with a table: without one, none of these series exists.
"""

from __future__ import annotations

import threading

from prometheus_client import CollectorRegistry, Counter

from harness.events import Event, HistoryTrimmed, ProviderCallFinished
from harness.pricing.formula import PriceOf, Usage, lost
from harness.telemetry import names as n


class CostObserver:
    """Counts ``names.COST_METRICS`` into ``registry``; thread-safe."""

    def __init__(self, registry: CollectorRegistry, price_of: PriceOf) -> None:
        self._price_of = price_of
        self._lock = threading.Lock()
        family = {
            spec.name: Counter(spec.name, spec.help, spec.labels, registry=registry)
            for spec in n.COST_METRICS
        }
        self._cost = family[n.COST.name]
        self._saved = family[n.CACHE_SAVED.name]
        self._premium = family[n.CACHE_WRITE_PREMIUM.name]
        self._loss = family[n.CACHE_LOSS_COST.name]

    def on_event(self, event: Event) -> None:
        if isinstance(event, ProviderCallFinished):
            self._call(event)
        elif isinstance(event, HistoryTrimmed) and event.cache_loss_tokens is not None:
            self._trim(event, event.cache_loss_tokens)

    def _call(self, event: ProviderCallFinished) -> None:
        price = self._price_of(event.model)
        if event.input_tokens is None or price is None:
            return
        usage = Usage.reported(
            event.input_tokens,
            event.cache_read_input_tokens or 0,
            event.cache_creation_input_tokens or 0,
            event.output_tokens or 0,
        )
        route = (event.provider, event.model or n.UNKNOWN, event.source)
        saved, premium = usage.saved_and_premium(price)
        with self._lock:
            for part, amount in zip(n.COST_PARTS, usage.parts(price), strict=True):
                self._cost.labels(*route[:2], part, event.source).inc(amount)
            self._saved.labels(*route).inc(saved)
            self._premium.labels(*route).inc(premium)

    def _trim(self, event: HistoryTrimmed, tokens: int) -> None:
        price = self._price_of(event.model)
        if price is None:
            return
        labels = (str(event.trigger), event.provider or n.UNKNOWN, event.source)
        with self._lock:
            # cached input dearer than input would make a negative loss: nothing was lost
            self._loss.labels(*labels).inc(max(0.0, lost(tokens, price)))
