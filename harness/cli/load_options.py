"""``trimscope load``'s options (the shared ones are in ``harness.cli.options``), their
bounds, and the checks of options taken together."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased

from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.cli.paths import MAX_PORT
from harness.cli.provider_lists import KINDS_HELP, unknown_kind
from harness.load import FAKE_FOR_KIND, SessionTemplate
from harness.load.template import DEFAULT_HTTP_TIMEOUT_S, DEFAULT_WINDOW, MAX_HTTP_TIMEOUT_S

DEFAULT_TURNS = 10
DEFAULT_MAX_FAILED_CALLS = 0.05
"""The share of provider calls that may fail (5xx, timeouts, broken answers, refused
connections: ``FAILED_CALL_OUTCOMES``) before the run exits 1: a few transient failures
are measured; more mean the endpoint, not the harness, is what was measured."""
MAX_SESSIONS, MAX_CONCURRENCY, MAX_TURNS, MAX_DURATION_S = 1_000_000, 2_000, 1_000, 86_400.0

SESSIONS = typer.Option(100, min=1, max=MAX_SESSIONS, help="Sessions to run.")
CONCURRENCY = typer.Option(10, min=1, max=MAX_CONCURRENCY, help="Sessions at once (Locust: users).")
TURNS = typer.Option(
    None,
    min=1,
    max=MAX_TURNS,
    help=f"Turns per session (default {DEFAULT_TURNS}, or the scenario's user turns).",
)
SCENARIO = typer.Option(
    None, "--scenario", help="Use this scenario's runtime, providers and conversation."
)
DURATION = typer.Option(
    300.0, min=0.5, max=MAX_DURATION_S, help="Wall-time cap in seconds; the run stops."
)
SERVE_METRICS = typer.Option(
    None, "--serve-metrics", min=0, max=MAX_PORT, help="Serve metrics on 127.0.0.1:PORT."
)
JSON_PATH = typer.Option(None, "--json", help="Write the summary as JSON.")
TRACE_SAMPLE = typer.Option(
    None,
    "--trace-sample",
    min=0.0,
    max=1.0,
    help="Share of turns traced, 0-1 (default: OTEL_TRACES_SAMPLER, else all); "
    "metrics count every event either way.",
)
PROVIDER = typer.Option(
    None, help=f"Built-in workload's client kind (default openai): {KINDS_HELP}"
)
CONTEXT_WINDOW = typer.Option(
    None,
    min=64,
    max=MAX_CONTEXT_WINDOW_TOKENS,
    help=f"Declared window in tokens (built-in default {DEFAULT_WINDOW}).",
)
LATENCY_MS = typer.Option(0, min=0, max=60_000, help="The fake's answer delay.")
LOCUST = typer.Option(False, "--locust", help="Run the sessions as Locust users.")
WORKERS = typer.Option(2, min=1, max=64, help="Locust worker processes.")
PROCESSES = typer.Option(
    False, "--processes", help="Locust forks its workers (--processes N) instead."
)
WRITE_PLAN = typer.Option(
    None, "--write-plan", help="Write the Locust plan for remote workers, then exit."
)
MAX_FAILED_CALLS = typer.Option(
    DEFAULT_MAX_FAILED_CALLS,
    "--max-failed-calls",
    min=0.0,
    max=1.0,
    help="Share of provider calls (0-1) that may fail (5xx, timeouts, refused or broken"
    " answers; not overflows or rate limits) before the run exits 1.",
)
PRICES = typer.Option(
    None, "--prices", help="Price table (YAML, per model per 1M tokens): cost per session."
)
SWEEP = typer.Option(
    None,
    "--sweep",
    help="Run the workload at each value: budget=, ratio= or turn_limit=V1,V2,...",
)
HTML = typer.Option(
    None, "--html", help="With --sweep: write the table and plots as one HTML page."
)
REQUEST_TIMEOUT = typer.Option(
    DEFAULT_HTTP_TIMEOUT_S,
    "--request-timeout",
    min=0.001,
    max=MAX_HTTP_TIMEOUT_S,
    help="Seconds a provider call may take (connect, read, write) before it times out.",
)
METRICS_OUT = typer.Option(
    None,
    "--metrics-out",
    help="Write the run's metrics (Prometheus text) here at its end, also when stopped.",
)
APPEND = typer.Option(
    False, "--append", help="Append to the --otel-jsonl file instead of emptying it."
)
TRANSCRIPT = typer.Option(
    None, "--transcript", help="Folder for the run's transcript (trimscope report reads it)."
)
WIRE_FINDINGS = typer.Option(
    None, "--wire-findings", help="Observe the requests as trimscope proxy would: FILE."
)


@dataclass(frozen=True, slots=True)
class LoadRequest:
    """``trimscope load``'s options, as given (``load`` checks them, then runs)."""

    sessions: int
    concurrency: int
    turns: int | None
    scenario: Path | None
    duration: float
    serve_metrics: int | None
    json_path: Path | None
    otel_jsonl: Path | None
    otlp: bool
    trace_sample: float | None
    provider: str | None
    context_window: int | None
    latency_ms: int
    locust: bool
    workers: int
    processes: bool
    write_plan_path: Path | None
    quiet: bool
    max_failed_calls: float
    prices_path: Path | None
    price_as: str | None
    sweep_text: str | None
    html_path: Path | None
    request_timeout: float
    metrics_out: Path | None
    append: bool
    transcript: Path | None
    limit: tuple[str, ...]
    wire_findings: Path | None
    sut: tuple[str, ...] = ()


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
