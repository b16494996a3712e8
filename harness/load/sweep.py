"""Budget sweeps: the same workload at each value of one runtime setting, one table.

``--sweep KEY=V1,V2,...`` with KEY one of:

- ``budget``: an absolute budget in tokens (``max_context_tokens``; the compact ratio is
  unset so the absolute value decides; 0 is the reference's "no trimming" sentinel);
- ``ratio``: ``context_compact_ratio`` (0 < ratio <= 1), the absolute budget kept;
- ``turn_limit``: ``max_history_messages`` (turns kept by the turn-limit trim).

Only the swept setting changes; the reference rules are the ones that run. Each value is
a full run (fresh fake servers, so fresh provider caches); its row is read off that run's
summary (``sweep_row``), so the table and ``--json`` agree with the per-run summaries.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Final, Literal, TypeAlias, cast

from rich.console import Console
from rich.table import Table

from harness.atomic import write_text_atomic
from harness.load.summary import LoadSummary
from harness.load.template import SessionTemplate

SweepKey: TypeAlias = Literal["budget", "ratio", "turn_limit"]
SWEEP_KEYS: Final[tuple[SweepKey, ...]] = ("budget", "ratio", "turn_limit")
MAX_SWEEP_VALUES: Final = 20
OFF: Final[dict[SweepKey, float]] = {"budget": 0}
"""The value that turns the swept setting off (budget 0: the reference's "no trimming")."""
NO_ERROR_CLASS: Final = "no error class"
"""A failed turn's class when its ``TurnFinished`` named none (an iteration limit)."""
TRIGGERS: Final = ("proactive", "reported_usage", "reactive", "turn_limit")
_FORMAT: Final = f"KEY=V1,V2,... with KEY one of {', '.join(SWEEP_KEYS)}"


@dataclass(frozen=True, slots=True)
class Sweep:
    key: SweepKey
    values: tuple[float, ...]


def _value(key: SweepKey, text: str) -> float:
    try:
        value = float(text) if key == "ratio" else int(text)
    except ValueError:
        kind = "a number" if key == "ratio" else "a whole number"
        raise ValueError(f"--sweep: {key} values are {kind}, found {text!r}") from None
    if key == "ratio" and not 0 < value <= 1:
        raise ValueError(f"--sweep: a ratio is above 0 and at most 1, found {text!r}")
    if value < 0:
        raise ValueError(f"--sweep: {key} values are at least 0, found {text!r}")
    return value


def parse_sweep(text: str) -> Sweep:
    """``KEY=V1,V2,...``; ``ValueError`` names what is wrong."""
    name, sep, listed = text.partition("=")
    if not sep or name.strip() not in SWEEP_KEYS:
        raise ValueError(f"--sweep: expected {_FORMAT}, found {text!r}")
    key = cast(SweepKey, name.strip())
    parts = [p.strip() for p in listed.split(",")]
    if not listed.strip() or any(not p for p in parts):
        raise ValueError(f"--sweep: expected {_FORMAT}, found {text!r}")
    if len(parts) > MAX_SWEEP_VALUES:
        raise ValueError(f"--sweep: at most {MAX_SWEEP_VALUES} values, found {len(parts)}")
    values = tuple(_value(key, p) for p in parts)
    if len(set(values)) != len(values):
        raise ValueError(f"--sweep: each value once, found {text!r}")
    return Sweep(key, values)


def swept(template: SessionTemplate, key: SweepKey, value: float) -> SessionTemplate:
    """``template`` with the swept setting at ``value`` (module doc)."""
    profile = template.profile
    if key == "budget":
        profile = replace(profile, max_context_tokens=int(value), context_compact_ratio=None)
    elif key == "ratio":
        profile = replace(profile, context_compact_ratio=value)
    else:
        profile = replace(profile, max_history_messages=int(value))
    label = f"{int(value)}" if key != "ratio" else f"{value:g}"
    return replace(template, profile=profile, name=f"{template.name} {key}={label}")


def value_label(key: SweepKey, value: float) -> str:
    """``1200``, ``0.5``; ``0 = off`` for the value that turns the setting off."""
    label = f"{int(value)}" if key != "ratio" else f"{value:g}"
    return f"{label} = off" if OFF.get(key) == value else label


@dataclass(frozen=True, slots=True)
class SweepRow:
    value: float
    label: str
    sessions: int
    turns: int
    turns_ok: int
    turns_failed: dict[str, int]
    """Failed turns by error class (``ContextCapacityExceeded``...), most first: a
    column whose turns failed is cheap because it did less, not because it trimmed well."""
    trims_per_session: dict[str, float]
    overflows_per_session: float
    recovery_rate: float | None
    capacity_refusals_per_session: float
    cache_hit_ratio: float | None
    cache_loss_per_session: float | None
    input_tokens_per_session: float | None
    cost_per_session: float | None
    request_tokens_p50: float | None
    request_tokens_p95: float | None


def _per(count: float, sessions: int) -> float:
    return round(count / sessions, 4) if sessions else 0.0


def turns_failed(summary: LoadSummary) -> dict[str, int]:
    """The turns that did not end ``ok``, by error class, most first."""
    failed = sum(c for outcome, c in summary.turns_by_outcome.items() if outcome != "ok")
    classes = dict(sorted(summary.turn_errors.items(), key=lambda item: (-item[1], item[0])))
    unnamed = failed - sum(classes.values())
    if unnamed > 0:
        classes[NO_ERROR_CLASS] = unnamed
    return classes


def sweep_row(value: float, summary: LoadSummary, key: SweepKey = "budget") -> SweepRow:
    """One row: per-session figures over the sessions that started. The recovery rate is
    the share of detected overflows whose reactive trim retried (``retrying``)."""
    n = summary.sessions_started
    by_trigger = dict.fromkeys(TRIGGERS, 0)
    for row in summary.trims:
        by_trigger[row.trigger] = by_trigger.get(row.trigger, 0) + row.count
    overflows = summary.overflows_detected
    retried = summary.recoveries.get("retrying", 0)
    cache, cost = summary.cache, summary.cost
    return SweepRow(
        value=value,
        label=value_label(key, value),
        sessions=n,
        turns=sum(summary.turns_by_outcome.values()),
        turns_ok=summary.turns_by_outcome.get("ok", 0),
        turns_failed=turns_failed(summary),
        trims_per_session={t: _per(c, n) for t, c in by_trigger.items()},
        overflows_per_session=_per(overflows, n),
        recovery_rate=round(retried / overflows, 4) if overflows else None,
        capacity_refusals_per_session=_per(summary.capacity_refusals, n),
        cache_hit_ratio=cache.hit_ratio if cache else None,
        cache_loss_per_session=cache.cache_loss_per_session if cache else None,
        input_tokens_per_session=cache.input_tokens_per_session if cache else None,
        cost_per_session=cost.per_session if cost else None,
        request_tokens_p50=cache.request_tokens_p50 if cache else None,
        request_tokens_p95=cache.request_tokens_p95 if cache else None,
    )


@dataclass(frozen=True, slots=True)
class SweepSummary:
    key: SweepKey
    template: str
    currency: str | None
    rows: list[SweepRow]
    runs: list[LoadSummary]


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def failed_classes(rows: Sequence[SweepRow]) -> list[str]:
    """Every error class some column's turns failed with, most failed turns first."""
    totals: dict[str, int] = {}
    for row in rows:
        for name, count in row.turns_failed.items():
            totals[name] = totals.get(name, 0) + count
    return sorted(totals, key=lambda name: (-totals[name], name))


def in_numeric_order(rows: Sequence[SweepRow]) -> list[SweepRow]:
    """The table's and the plots' order: by value (0 = off first), whatever was typed."""
    return sorted(rows, key=lambda row: row.value)


def _lines(row: SweepRow, classes: Sequence[str]) -> list[tuple[str, str]]:
    return [
        ("turns", f"{row.turns:,}"),
        ("turns ok", f"{row.turns_ok:,}"),
        *((f"turns failed: {name}", f"{row.turns_failed.get(name, 0):,}") for name in classes),
        *((f"{t} trims/session", _num(row.trims_per_session[t])) for t in TRIGGERS),
        ("overflows/session", _num(row.overflows_per_session)),
        ("overflows recovered", _num(row.recovery_rate, 3)),
        ("capacity refusals/session", _num(row.capacity_refusals_per_session)),
        ("cache hit ratio", _num(row.cache_hit_ratio, 3)),
        ("cache loss/session (tokens)", _num(row.cache_loss_per_session, 0)),
        ("input tokens/session", _num(row.input_tokens_per_session, 0)),
        ("cost/session", _num(row.cost_per_session, 6)),
        ("request tokens p50", _num(row.request_tokens_p50, 0)),
        ("request tokens p95", _num(row.request_tokens_p95, 0)),
    ]


def column_head(row: SweepRow) -> str:
    """The column's value, marked when some of its turns failed."""
    failed = row.turns - row.turns_ok
    return f"{row.label} ! {failed:,} failed" if failed else row.label


FAILED_NOTE: Final = (
    "! some turns failed (rows 'turns failed'): that column's cost, cache and trim figures"
    " cover less work than the others'"
)


def render_sweep(sweep: SweepSummary, console: Console) -> None:
    """One table: a column per swept value (in numeric order), a row per measure."""
    rows = in_numeric_order(sweep.rows)
    marked = any(row.turns_failed for row in rows)
    table = Table(
        title=f"trimscope load --sweep {sweep.key} ({sweep.template})",
        caption=FAILED_NOTE if marked else None,
    )
    table.add_column(sweep.key, style="bold")
    for row in rows:
        style = "bold red" if row.turns_failed else None
        table.add_column(column_head(row), justify="right", header_style=style)
    classes = failed_classes(rows)
    columns = [_lines(row, classes) for row in rows]
    for index, (what, _) in enumerate(columns[0] if columns else []):
        shown = f"{what} ({sweep.currency})" if what == "cost/session" and sweep.currency else what
        table.add_row(shown, *(column[index][1] for column in columns))
    console.print(table)


def write_sweep_json(sweep: SweepSummary, path: Path) -> None:
    """Write ``sweep`` (rows and every run's summary) to ``path`` atomically."""
    write_text_atomic(path, json.dumps(asdict(sweep), indent=2) + "\n")


def sweep_summary(
    sweep: Sweep, template: str, runs: Sequence[LoadSummary], currency: str | None
) -> SweepSummary:
    """The rows of the values that ran, in order: a signal ends a sweep after the run it
    stopped, so ``runs`` may cover only the first values (the last one marked interrupted)."""
    values = sweep.values[: len(runs)]
    rows = [sweep_row(v, s, sweep.key) for v, s in zip(values, runs, strict=True)]
    return SweepSummary(sweep.key, template, currency, rows, list(runs))
