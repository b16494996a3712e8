"""The metric families of ``names.METRICS``, created on an injected registry."""

from __future__ import annotations

from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from harness.telemetry import names as n

GAUGE_MULTIPROCESS_MODE: Final = "mostrecent"
"""A route's budget and window are the same in every worker: keep the latest value."""


class MetricSet:
    """Every family of ``names.METRICS``, registered on ``registry`` (never the global one)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self._counters: dict[str, Counter] = {}
        self._gauges: dict[str, Gauge] = {}
        self._histograms: dict[str, Histogram] = {}
        for spec in n.METRICS:
            self._create(spec)

    def _create(self, spec: n.MetricSpec) -> None:
        name, doc, labels, registry = spec.name, spec.help, spec.labels, self.registry
        if spec.type == "counter":
            self._counters[name] = Counter(name, doc, labels, registry=registry)
        elif spec.type == "gauge":
            self._gauges[name] = Gauge(
                name, doc, labels, registry=registry, multiprocess_mode=GAUGE_MULTIPROCESS_MODE
            )
        else:
            self._histograms[name] = Histogram(
                name, doc, labels, registry=registry, buckets=spec.buckets
            )

    def family(self, spec: n.MetricSpec) -> Counter | Gauge | Histogram:
        """The family of ``spec``, whatever its type."""
        name = spec.name
        if name in self._counters:
            return self._counters[name]
        return self._gauges[name] if name in self._gauges else self._histograms[name]

    def counter(self, spec: n.MetricSpec) -> Counter:
        return self._counters[spec.name]

    def gauge(self, spec: n.MetricSpec) -> Gauge:
        return self._gauges[spec.name]

    def histogram(self, spec: n.MetricSpec) -> Histogram:
        return self._histograms[spec.name]


class Children(dict[tuple[str, ...], Any]):
    """A family's children by label values, each looked up in the client once and kept
    (``labels()`` locks and validates on every call)."""

    __slots__ = ("_family",)

    def __init__(self, family: Any) -> None:
        super().__init__()
        self._family = family

    def __missing__(self, labels: tuple[str, ...]) -> Any:
        child = self[labels] = self._family.labels(*labels)
        return child
