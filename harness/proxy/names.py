"""The proxy's Prometheus metric and label names, each defined once.

They live here until the telemetry package takes them over (``harness.telemetry.names``
holds the harness's own); dashboards and alerts should read them from here meanwhile.
Every series is a counter, so several proxies behind a balancer are summed by Prometheus
(``sum without (instance) (...)``, see docs/proxy.md).
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

LABEL_STATUS_CLASS: Final = "status_class"
LABEL_KIND: Final = "kind"
LABEL_REASON: Final = "reason"
LABEL_DIRECTION: Final = "direction"

ALL_METRICS: Final = (REQUESTS, FINDINGS, UNOBSERVABLE, UPSTREAM_ERRORS, CLIENT_DISCONNECTS, BYTES)

__all__ = [
    "ALL_METRICS",
    "BYTES",
    "CLIENT_DISCONNECTS",
    "FINDINGS",
    "LABEL_DIRECTION",
    "LABEL_KIND",
    "LABEL_REASON",
    "LABEL_STATUS_CLASS",
    "REQUESTS",
    "UNOBSERVABLE",
    "UPSTREAM_ERRORS",
]
