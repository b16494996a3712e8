"""Reading a registry the way a scraper does: parse ``generate_latest`` output."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

Labels = frozenset[tuple[str, str]]


def samples(registry: CollectorRegistry) -> dict[tuple[str, Labels], float]:
    text = generate_latest(registry).decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when none)."""
    wanted = set(labels.items())
    return sum(
        v for (sample, got), v in samples(registry).items() if sample == name and wanted <= got
    )


def label_sets(registry: CollectorRegistry, name: str) -> list[dict[str, str]]:
    return [dict(got) for (sample, got) in samples(registry) if sample == name]
