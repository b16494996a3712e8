"""``trimscope load``'s option bounds and the checks of options taken together."""

from __future__ import annotations

from pathlib import Path

from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased

from harness.cli.provider_lists import unknown_kind
from harness.load import FAKE_FOR_KIND, SessionTemplate

DEFAULT_TURNS = 10
DEFAULT_MAX_FAILED_CALLS = 0.05
"""The share of provider calls that may fail (5xx, timeouts, broken answers, refused
connections: ``FAILED_CALL_OUTCOMES``) before the run exits 1: a few transient failures
are measured; more mean the endpoint, not the harness, is what was measured."""
MAX_SESSIONS, MAX_CONCURRENCY, MAX_TURNS, MAX_DURATION_S = 1_000_000, 2_000, 1_000, 86_400.0


def turns_of(turns: int | None, template: SessionTemplate, scenario: Path | None) -> int:
    """``--turns``, else the scenario's user turns, else ``DEFAULT_TURNS``; a scenario with
    more user turns than a session runs needs ``--turns`` (``ValueError``)."""
    if turns is not None:
        return turns
    if scenario is None:
        return DEFAULT_TURNS
    if len(template.user_texts) > MAX_TURNS:
        raise ValueError(
            f"--turns: {scenario} has more than {MAX_TURNS} user turns, more than a load"
            f" session runs; pass --turns N (1..{MAX_TURNS}) to run its first N"
        )
    return len(template.user_texts)


def trace_sampler(share: float | None) -> Sampler | None:
    """``--trace-sample``: that share of turns traced, whole (each turn is one trace; its
    spans follow the turn's agent span). ``None``: the SDK's, from ``OTEL_TRACES_SAMPLER``."""
    return None if share is None else ParentBased(TraceIdRatioBased(share))


def refused_combination(
    provider: str | None,
    *,
    locust: bool,
    otel_jsonl: Path | None,
    otlp: bool,
    sample: float | None,
    append: bool,
    transcript: bool,
) -> str | None:
    """What is wrong with these options together, or ``None``."""
    tracing = otel_jsonl is not None or otlp
    if provider is not None and provider not in FAKE_FOR_KIND:
        return unknown_kind(provider)
    if locust and tracing:
        return "--otel-jsonl and --otlp trace asyncio runs; Locust runs serve metrics"
    if sample is not None and not tracing:
        return "--trace-sample needs --otel-jsonl or --otlp: nothing is traced"
    if locust and transcript:
        return "--transcript records asyncio runs; Locust runs serve metrics"
    if append and otel_jsonl is None:
        return "--append appends spans to the --otel-jsonl file: it needs one"
    return None
