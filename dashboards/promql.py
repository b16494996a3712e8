"""PromQL for the dashboards, spelled from ``harness.telemetry.names`` only.

Every selector filters by the dashboard variables ``$job`` and ``$provider`` (regex
matchers, so "All" is ``.*``); ``$__rate_interval`` and ``$__range`` are Grafana's.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.telemetry import names as n

RATE_INTERVAL = "$__rate_interval"
RANGE = "$__range"
JOB = "$job"
PROVIDER = "$provider"


def selector(*extra: str, provider_label: str = n.LABEL_PROVIDER) -> str:
    """``{job=~"$job",provider=~"$provider",<extra>}``."""
    matchers = [f'job=~"{JOB}"', f'{provider_label}=~"{PROVIDER}"', *extra]
    return "{" + ",".join(matchers) + "}"


def job_selector(*extra: str) -> str:
    """``{job=~"$job",<extra>}``: for series without a provider label."""
    return "{" + ",".join([f'job=~"{JOB}"', *extra]) + "}"


def gen_ai_selector(*extra: str) -> str:
    """``$provider`` is a route alias: on the GenAI series it is ``trimscope_provider``
    (``gen_ai_provider_name`` holds the conventions' value, ``openai``)."""
    return selector(*extra, provider_label=n.LABEL_ROUTE)


def bucket(spec: n.MetricSpec) -> str:
    return f"{spec.name}_bucket"


def sum_of(spec: n.MetricSpec) -> str:
    return f"{spec.name}_sum"


def count_of(spec: n.MetricSpec) -> str:
    return f"{spec.name}_count"


def _by(labels: Sequence[str]) -> str:
    return f"sum by ({', '.join(labels)}) " if labels else "sum "


def rate(series: str, sel: str, by: Sequence[str] = ()) -> str:
    """Per-second rate summed by ``by``."""
    return f"{_by(by)}(rate({series}{sel}[{RATE_INTERVAL}]))"


def increase(series: str, sel: str, by: Sequence[str] = (), window: str = RANGE) -> str:
    """Total increase over the dashboard's range (or ``window``) summed by ``by``."""
    return f"{_by(by)}(increase({series}{sel}[{window}]))"


def quantile(q: float, spec: n.MetricSpec, sel: str, by: Sequence[str] = ()) -> str:
    """``histogram_quantile`` of a histogram's buckets, per ``by``."""
    return f"histogram_quantile({q}, {rate(bucket(spec), sel, ('le', *by))})"


def ratio(numerator: str, denominator: str) -> str:
    return f"({numerator}) / ({denominator})"


def latest(spec: n.MetricSpec, sel: str, by: Sequence[str]) -> str:
    """A gauge's value per ``by`` (max across instances)."""
    return f"max by ({', '.join(by)}) ({spec.name}{sel})"


SECONDS_PER_HOUR = 3600


def per_hour(per_second: str) -> str:
    """A per-second rate as a rate per hour (money reads better per hour than per second)."""
    return f"({per_second}) * {SECONDS_PER_HOUR}"
