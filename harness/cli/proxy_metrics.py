"""The proxy's Prometheus counters, as one more ``FindingSink`` (``--serve-metrics``,
``--metrics-out``). Here, in the composition root, because ``harness.proxy`` does not
import prometheus_client (the architecture table); the names are ``harness.proxy.names``.
Every series is a counter (or the hop's histogram) on an injected registry, never the
global one.
"""

from __future__ import annotations

from typing import Final

from prometheus_client import CollectorRegistry, Counter, Histogram

from harness.proxy import Outcome, Traffic
from harness.proxy import names as n
from harness.wire import FINDING_KINDS, Finding, WireExchange

STATUS_CLASSES: Final = ("1xx", "2xx", "3xx", "4xx", "5xx", "none")
ERROR_REASONS: Final[dict[Outcome, str]] = {
    "upstream_unreachable": "unreachable",
    "upstream_timeout": "timeout",
    "upstream_broken": "broken",
}


def status_class(status: int | None) -> str:
    return "none" if status is None else f"{status // 100}xx"


class ProxyMetrics:
    """Counts every exchange on ``registry``. Each label value is created at zero up
    front, so ``rate()`` and sums across proxies see the series before its first event."""

    def __init__(self, registry: CollectorRegistry) -> None:
        def counter(name: str, text: str, labels: tuple[str, ...] = ()) -> Counter:
            return Counter(name, text, list(labels), registry=registry)

        self.requests = counter(n.REQUESTS, "Exchanges completed.", (n.LABEL_STATUS_CLASS,))
        self.findings = counter(n.FINDINGS, "Findings of the wire observer.", (n.LABEL_KIND,))
        self.unobservable = counter(n.UNOBSERVABLE, "Exchanges the observer could not read.")
        self.upstream_errors = counter(
            n.UPSTREAM_ERRORS, "Exchanges the upstream failed.", (n.LABEL_REASON,)
        )
        self.client_disconnects = counter(
            n.CLIENT_DISCONNECTS, "Exchanges the client left before the answer's end."
        )
        self.bytes = counter(n.BYTES, "Body bytes relayed.", (n.LABEL_DIRECTION,))
        self.hop = Histogram(
            n.HOP_SECONDS, "Time the proxy added per exchange (upstream waits excluded).",
            buckets=n.HOP_BUCKETS_S, registry=registry,
        )  # fmt: skip
        for value in STATUS_CLASSES:
            self.requests.labels(value)
        for kind in FINDING_KINDS:
            self.findings.labels(kind)
        for reason in ERROR_REASONS.values():
            self.upstream_errors.labels(reason)
        for direction in ("request", "response"):
            self.bytes.labels(direction)

    def accept(
        self, exchange: WireExchange, findings: tuple[Finding, ...], traffic: Traffic
    ) -> None:
        self.requests.labels(status_class(exchange.status)).inc()
        for finding in findings:
            self.findings.labels(finding.kind).inc()
        if any(finding.kind == "unobservable" for finding in findings):
            self.unobservable.inc()
        reason = ERROR_REASONS.get(traffic.outcome)
        if reason is not None:
            self.upstream_errors.labels(reason).inc()
        if traffic.outcome == "client_left":
            self.client_disconnects.inc()
        self.bytes.labels("request").inc(traffic.request_bytes)
        self.bytes.labels("response").inc(traffic.response_bytes)
        self.hop.observe(max(0.0, traffic.duration_s - traffic.upstream_s))

    def close(self) -> None:
        """Nothing to close: the registry outlives the sink (``--metrics-out`` at exit)."""


__all__ = ["ERROR_REASONS", "STATUS_CLASSES", "ProxyMetrics", "status_class"]
