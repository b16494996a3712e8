"""The proxy's Prometheus metric and label names, each defined once.

They live here until the telemetry package takes them over (``harness.telemetry.names``
holds the harness's own); dashboards and alerts should read them from here meanwhile.
Every series is a counter or a histogram (itself counters), so several proxies behind a
balancer are summed by Prometheus (``sum without (instance) (...)``, see docs/proxy.md).
"""

from __future__ import annotations

from typing import Final

REQUESTS: Final = "trimscope_proxy_requests"
"""Exchanges completed, by the upstream's status class (``2xx`` ... ``5xx``; ``none`` when no
answer came: upstream down or hung, or the client left before the headers)."""
FINDINGS: Final = "trimscope_proxy_findings"
"""Findings the wire observer reported, by kind (``harness.wire.FINDING_KINDS``)."""
UNOBSERVABLE: Final = "trimscope_proxy_unobservable_exchanges"
"""Exchanges the observer could not read (at least one ``unobservable`` finding)."""
UPSTREAM_ERRORS: Final = "trimscope_proxy_upstream_errors"
"""Exchanges the upstream failed, by reason: ``unreachable``, ``timeout``, ``broken``."""
CLIENT_DISCONNECTS: Final = "trimscope_proxy_client_disconnects"
"""Exchanges the client left before the answer's end (the upstream stream is closed)."""
BYTES: Final = "trimscope_proxy_bytes"
"""Body bytes relayed, by direction: ``request`` (client → upstream), ``response``."""
HOP_SECONDS: Final = "trimscope_proxy_hop_seconds"
"""Per exchange, the time the proxy itself added: from the request's arrival in the proxy's
app to the answer's end, less the time awaiting the upstream (``Traffic.upstream_s``)."""
HOP_BUCKETS_S: Final = (
    0.00025, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
)  # fmt: skip
"""Fine below a few ms, where a proxy's hop should be; 2 ms is one (issue 23's goal)."""

LABEL_STATUS_CLASS: Final = "status_class"
LABEL_KIND: Final = "kind"
LABEL_REASON: Final = "reason"
LABEL_DIRECTION: Final = "direction"

ALL_METRICS: Final = (
    REQUESTS, FINDINGS, UNOBSERVABLE, UPSTREAM_ERRORS, CLIENT_DISCONNECTS, BYTES, HOP_SECONDS,
)  # fmt: skip

__all__ = [
    "ALL_METRICS",
    "BYTES",
    "CLIENT_DISCONNECTS",
    "FINDINGS",
    "HOP_BUCKETS_S",
    "HOP_SECONDS",
    "LABEL_DIRECTION",
    "LABEL_KIND",
    "LABEL_REASON",
    "LABEL_STATUS_CLASS",
    "REQUESTS",
    "UNOBSERVABLE",
    "UPSTREAM_ERRORS",
]
