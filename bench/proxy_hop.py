"""The proxy's own hop as it measures it: ``trimscope_proxy_hop_seconds``, read from its
``--serve-metrics`` endpoint before and after each proxied run.

The end-to-end figure (proxied latency minus direct latency, from the client) is what the
issue's goal names, but on a machine shared with other work it also counts every wait
for a core at the three processes the request crosses. The hop is what the proxy itself
adds per request: from the request's arrival in its app to the answer's end, less the time
awaiting the upstream (``harness.proxy.sinks.Traffic.upstream_s``). It leaves out what
happens before the app sees the request (uvicorn reading and parsing it) and the delay
between the upstream's answer reaching the socket and the event loop reading it; those
are in the end-to-end figure.

The histogram's buckets (``harness.proxy.names.HOP_BUCKETS_S``) give each percentile as
the bucket it falls in ("≤ 1 ms"), and the share of requests at most 2 ms exactly (2 ms is
a bucket bound).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import httpx
from prometheus_client.parser import text_string_to_metric_families

from harness.proxy.names import HOP_SECONDS

Buckets = dict[float, float]
"""Cumulative counts by upper bound (seconds; ``inf`` the total)."""


def read_hop(metrics_url: str) -> Buckets:
    """The hop histogram's cumulative buckets now."""
    text = httpx.get(metrics_url, timeout=10, trust_env=False).text
    buckets: Buckets = {}
    for family in text_string_to_metric_families(text):
        if family.name != HOP_SECONDS:
            continue
        for sample in family.samples:
            if sample.name == HOP_SECONDS + "_bucket":
                buckets[float(sample.labels["le"])] = sample.value
    if not buckets:
        raise RuntimeError(f"{metrics_url} has no {HOP_SECONDS}")
    return buckets


def added(before: Mapping[float, float], after: Mapping[float, float]) -> Buckets:
    """The observations between two readings."""
    return {bound: after[bound] - before.get(bound, 0.0) for bound in after}


def merged(runs: list[Buckets]) -> Buckets:
    total: Buckets = {}
    for run in runs:
        for bound, count in run.items():
            total[bound] = total.get(bound, 0.0) + count
    return total


@dataclass(frozen=True)
class Hop:
    requests: int
    p50_bound_s: float
    p99_bound_s: float
    share_within: dict[float, float]
    """Share of requests whose hop was at most each bound."""

    def within(self, bound_s: float) -> float:
        return self.share_within[bound_s]


def hop(buckets: Mapping[float, float]) -> Hop:
    """Percentiles (as bucket bounds) and shares of one set of observations."""
    total = buckets[float("inf")]
    ordered = sorted(buckets)
    shares = {bound: (buckets[bound] / total if total else 0.0) for bound in ordered}

    def bound_of(share: float) -> float:
        return next(bound for bound in ordered if shares[bound] >= share)

    return Hop(int(total), bound_of(0.5), bound_of(0.99), shares)


def bound_text(bound_s: float) -> str:
    return "> 1 s" if bound_s == float("inf") else f"≤ {bound_s * 1000:g} ms"


__all__ = ["Buckets", "Hop", "added", "bound_text", "hop", "merged", "read_hop"]
