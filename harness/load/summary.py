"""The summary of a load run: a frozen record, its terminal tables and its JSON file.

Rates divide by the run's wall time (``elapsed_s``, from the first session's start to the
last session's end). Per-session figures divide by the sessions that started. The JSON
file (``--json FILE``) is ``dataclasses.asdict`` of the record, written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harness.atomic import write_text_atomic
from harness.load.fake import ServerStats
from harness.load.outputs import UnwrittenOutput
from harness.pricing.spend import CacheSummary, CostSummary, Spend, cache_summary, cost_summary
from harness.pricing.table import PriceTable
from harness.quantile import percentile
from harness.runtime.text import counted
from harness.sketch import Sketch


@dataclass(frozen=True, slots=True)
class Quantiles:
    """Milliseconds. ``approximate``: interpolated from histogram buckets (Locust mode);
    an asyncio run's are each within 0.5% of a sample of that rank (``of_sketch``)."""

    samples: int
    p50_ms: float | None
    p95_ms: float | None
    mean_ms: float | None = None
    approximate: bool = False

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Quantiles:
        if not seconds:
            return cls(0, None, None, None)
        p50, p95 = percentile(seconds, 0.5), percentile(seconds, 0.95)
        return cls(
            len(seconds),
            _ms(p50),
            _ms(p95),
            _ms(sum(seconds) / len(seconds)),
        )

    @classmethod
    def of_sketch(cls, sketch: Sketch) -> Quantiles:
        return cls(
            sketch.count,
            _ms(sketch.quantile(0.5)),
            _ms(sketch.quantile(0.95)),
            _ms(sketch.mean()),
        )


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 4)


@dataclass(frozen=True, slots=True)
class TrimRow:
    reason: str
    trigger: str
    count: int
    per_session: float


@dataclass(frozen=True, slots=True)
class ServerDeath:
    """A fake-server process that exited while the run was going on."""

    ref: str
    after_s: float
    """Seconds from the run's start to when the death was noticed (within ``WATCH_INTERVAL_S``)."""
    exit_code: int | None
    """The process's exit status; negative: killed by that signal (``-9``: SIGKILL)."""
    failed_calls_after: int
    """Provider calls that failed (see ``FAILED_CALL_OUTCOMES``) from then to the run's end."""


@dataclass(frozen=True, slots=True)
class LoadSummary:
    mode: str  # "asyncio" or "locust"
    template: str
    provider_kinds: list[str]
    sessions_requested: int
    concurrency: int
    turns: int
    duration_limit_s: float
    stopped_by: str
    """"count": every session ran; "duration": the time cap; "signal"; "server_died": a
    fake server exited and the sessions were stopped at once."""
    elapsed_s: float
    sessions_started: int
    sessions_completed: int
    sessions_interrupted: int
    sessions_per_s: float
    provider_calls: int
    provider_calls_per_s: float
    calls_by_outcome: dict[str, int]
    turns_by_outcome: dict[str, int]
    turn_errors: dict[str, int]
    trims: list[TrimRow]
    trims_total: int
    trims_per_session: float
    recoveries: dict[str, int]
    overflows_detected: int
    capacity_refusals: int
    tool_calls: int
    overhead: Quantiles
    round_trip: Quantiles
    peak_rss_mb: float
    harness_cpu_s: float | None
    servers: list[ServerStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    locust_requests: list[dict[str, object]] = field(default_factory=list)
    """Locust mode: Locust's own request table (type, name, requests, failures, p50, p95)."""
    interrupted: bool = False
    """SIGINT or SIGTERM stopped the run; what finished before is summarised."""
    interrupted_by: str | None = None
    failed_calls: int = 0
    """Provider calls that failed for a reason other than the workload's own overflows and
    rate limits (``FAILED_CALL_OUTCOMES``): the endpoint or the transport misbehaved."""
    server_deaths: list[ServerDeath] = field(default_factory=list)
    cache: CacheSummary | None = None
    """Cache reads, writes and loss (Locust mode: without the request-size quantiles)."""
    cost: CostSummary | None = None
    """With ``--prices``: cost per session and what the cache saved and lost."""
    sessions_failed: int = 0
    """Sessions that ran every turn and had every turn fail: not counted as completed."""
    unwritten_outputs: list[UnwrittenOutput] = field(default_factory=list)
    """Outputs that could not be written (a full disk): known when this summary was."""
    provider_waits: Quantiles | None = None
    """Waits the provider asked for (Retry-After), slept and timed apart from ``overhead``
    (asyncio mode; ``None`` in Locust mode)."""

    @property
    def failed_call_share(self) -> float:
        return self.failed_calls / self.provider_calls if self.provider_calls else 0.0


FAILED_CALL_OUTCOMES: frozenset[str] = frozenset(
    {"server_error", "connect_error", "timeout", "protocol_error", "rejected"}
)
"""``ProviderCallFinished.outcome`` values that count as failed calls. ``overflow`` and
``rate_limited`` are not: the built-in workload provokes overflows on purpose, and a
scenario may script both."""


def failed_calls(calls_by_outcome: Mapping[str, int]) -> int:
    return sum(
        count for outcome, count in calls_by_outcome.items() if outcome in FAILED_CALL_OUTCOMES
    )


def with_costs(
    summary: LoadSummary,
    spend: Spend,
    prices: PriceTable | None,
    price_as: str | None = None,
) -> LoadSummary:
    """The summary with its cache section, and its cost section when priced (both modes:
    per session is per session started)."""
    started = summary.sessions_started
    summary = replace(summary, cache=cache_summary(spend, started))
    if prices is None:
        return summary
    cost, note = cost_summary(spend, started, prices, price_as)
    notes = [*summary.notes, note] if note else summary.notes
    return replace(summary, cost=cost, notes=notes)


def trim_rows(trims: Mapping[tuple[str, str], int], sessions: int) -> list[TrimRow]:
    return [
        TrimRow(reason, trigger, count, round(count / sessions, 4) if sessions else 0.0)
        for (reason, trigger), count in sorted(trims.items())
    ]


def rate(count: int, seconds: float) -> float:
    return round(count / seconds, 3) if seconds > 0 else 0.0


def write_json(summary: LoadSummary, path: Path) -> None:
    """Write ``summary`` to ``path`` atomically (a temporary file in the folder, renamed)."""
    write_text_atomic(path, json.dumps(asdict(summary), indent=2, sort_keys=False) + "\n")


def _fmt(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:,.3f}{unit}"


def _counts(values: Mapping[str, int]) -> str:
    return ", ".join(f"{k}: {v:,}" for k, v in sorted(values.items())) or "none"


_LOCUST_KEYS = ("type", "name", "requests", "failures", "p50_ms", "p95_ms")


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return "-" if value is None else str(value)


def _cache_rows(s: LoadSummary) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    if s.cache is not None:
        c = s.cache
        rows.append(
            (
                "input tokens",
                f"{c.input_tokens:,} ({c.input_tokens_per_session:,.0f}/session): cache read"
                f" {c.cache_read_tokens:,}, write {c.cache_write_tokens:,},"
                f" uncached {c.uncached_tokens:,}; hit ratio {c.hit_ratio:.3f}",
            )
        )
        rows.append(
            (
                "cache loss",
                f"{sum(c.cache_loss_tokens.values()):,} tokens"
                f" ({c.cache_loss_per_session:,.0f}/session; {_counts(c.cache_loss_tokens)})",
            )
        )
    if s.cost is not None:
        k = s.cost
        rows.append(
            (
                "cost",
                f"{k.total:,.4f} {k.currency} ({k.per_session:,.6f}/session; cache saved"
                f" {k.cache_saved:,.4f}, lost {k.cache_lost:,.4f}; prices of {k.prices_date})",
            )
        )
    return rows


def _wait_rows(waits: Quantiles | None) -> list[tuple[str, str]]:
    if waits is None or not waits.samples:
        return []
    return [
        (
            "provider-asked waits",
            f"{waits.samples:,} (Retry-After), p50 {_fmt(waits.p50_ms, ' ms')},"
            f" mean {_fmt(waits.mean_ms, ' ms')}; not in the overhead above",
        )
    ]


def _stopped(s: LoadSummary) -> str:
    if s.interrupted_by is not None:
        return f"{s.interrupted_by} after {s.elapsed_s:,.2f} s (interrupted)"
    if s.stopped_by == "server_died":
        return f"fake server died; stopped after {s.elapsed_s:,.2f} s"
    return f"{s.stopped_by} after {s.elapsed_s:,.2f} s"


def _unanswered(count: int) -> str:
    return f", {count:,} unanswered: stopped first" if count else ""


def _server_rows(s: LoadSummary) -> list[tuple[str, str]]:
    """Each fake server's line, and a line for each that died."""
    rows = [
        (
            f"fake {server.ref}",
            f"{server.generation_requests:,} requests ({_counts(server.outcomes)}"
            f"{_unanswered(server.unanswered)}), CPU {server.cpu_s:,.2f} s,"
            f" peak RSS {server.peak_rss_mb:,.1f} MiB;"
            f" counter {server.counter}",
        )
        for server in s.servers
    ]
    rows += [
        (
            f"fake {death.ref} DIED",
            f"after {death.after_s:,.2f} s (exit {death.exit_code}); "
            f"{counted(death.failed_calls_after, 'call')} failed after it",
        )
        for death in s.server_deaths
    ]
    return rows


def _unwritten_rows(s: LoadSummary) -> list[tuple[str, str]]:
    """An output a full disk stopped: its option, file and error."""
    return [
        (
            f"UNWRITTEN {u.option}",
            f"{u.path}: {u.error}"
            + (f"; {u.lines_dropped:,} lines not written" if u.lines_dropped is not None else ""),
        )
        for u in s.unwritten_outputs
    ]


def _run_rows(s: LoadSummary) -> list[tuple[str, str]]:
    """The run table's rows: how it stopped, sessions, calls, turns, trims, timings, then
    the servers, cache and cost, and any output left unwritten."""
    approx = "≈ " if s.overhead.approximate else ""
    rows = [
        ("stopped by", _stopped(s)),
        (
            "sessions",
            f"{s.sessions_completed:,} completed, {s.sessions_failed:,} failed,"
            f" {s.sessions_interrupted:,} interrupted of {s.sessions_requested:,}"
            f" (concurrency {s.concurrency}, {counted(s.turns, 'turn')})",
        ),
        ("sessions/s", f"{s.sessions_per_s:,.2f}"),
        ("provider calls", f"{s.provider_calls:,} ({_counts(s.calls_by_outcome)})"),
        ("provider calls/s", f"{s.provider_calls_per_s:,.1f}"),
        ("failed calls", f"{s.failed_calls:,} ({s.failed_call_share:.1%})"),
        ("turns", _counts(s.turns_by_outcome)),
        ("turn errors", _counts(s.turn_errors)),
        ("trims per session", f"{s.trims_per_session:,.3f} ({counted(s.trims_total, 'trim')})"),
        ("recoveries", _counts(s.recoveries)),
        ("overflows detected", f"{s.overflows_detected:,}"),
        ("capacity refusals", f"{s.capacity_refusals:,}"),
        (
            "harness overhead/call",
            f"{approx}p50 {_fmt(s.overhead.p50_ms, ' ms')}, p95 {_fmt(s.overhead.p95_ms, ' ms')}"
            f" ({counted(s.overhead.samples, 'call')})",
        ),
        (
            "HTTP round trip/call",
            f"{approx}p50 {_fmt(s.round_trip.p50_ms, ' ms')},"
            f" p95 {_fmt(s.round_trip.p95_ms, ' ms')}",
        ),
        *_wait_rows(s.provider_waits),
        ("peak memory (RSS)", f"{s.peak_rss_mb:,.1f} MiB"),
        ("harness CPU", _fmt(s.harness_cpu_s, " s")),
    ]
    return rows + _server_rows(s) + _cache_rows(s) + _unwritten_rows(s)


def _trims_table(s: LoadSummary) -> Table:
    trims = Table(title="trims by reason and trigger")
    for column in ("reason", "trigger", "trims", "per session"):
        trims.add_column(column, justify="left" if column in ("reason", "trigger") else "right")
    for row in s.trims:
        trims.add_row(row.reason, row.trigger, f"{row.count:,}", f"{row.per_session:,.3f}")
    if not s.trims:
        trims.add_row("(none)", "", "0", "0")
    return trims


def _locust_table(s: LoadSummary) -> Table:
    requests = Table(title="Locust requests")
    for column in ("type", "name", "requests", "failures", "p50 ms", "p95 ms"):
        requests.add_column(column, justify="left" if column in ("type", "name") else "right")
    for entry in s.locust_requests:
        requests.add_row(*(_cell(entry.get(key)) for key in _LOCUST_KEYS))
    return requests


def render(summary: LoadSummary, console: Console) -> None:
    """The summary as two terminal tables (run, trims) and the fake servers' line."""
    s = summary
    table = Table(title=f"trimscope load ({s.mode}, {s.template})", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    for what, value in _run_rows(s):
        table.add_row(what, value)
    console.print(table)
    console.print(_trims_table(s))
    if s.locust_requests:
        console.print(_locust_table(s))
    for note in s.notes:
        console.print(f"note: {note}", highlight=False)
