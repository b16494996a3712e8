"""``load --sut``'s outputs: the ``--json`` summary, the side-by-side table and the rows of
the ``--html`` page, one column per runtime (strategies side by side, as ``load --sweep``
puts one column per swept value).

The table and the page are drawn from the same rows (``runtime_rows``): per runtime, its
turns by how they ended, then per finished session its requests, overflows, trims,
compactions, the sessions that broke each invariant (a row for each invariant some
runtime broke), its cache hit ratio, cache loss and input tokens (the answers' own usage,
``harness.sut.load_spend``), its cost (with ``--prices``) and sessions per second. The
page is ``harness.report.sweep_page``'s, given these measures: its plots draw cost per
session and cache hit ratio per runtime.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from rich.table import Table

from harness.atomic import write_text_atomic
from harness.pricing.spend import CacheSummary, CostSummary, Spend, cache_summary, cost_summary
from harness.sut.judge import INVARIANTS
from harness.sut.load import RuntimeLoad, SutLoadSummary

KEY: Final = "runtime"
"""The page's and the table's first column: what the columns are."""
BROKE: Final = "broke:"
"""A row's field for the sessions that broke an invariant: ``broke:tool_pairing``."""
PER_SESSION: Final[tuple[tuple[str, str], ...]] = (
    ("requests_per_session", "requests/session"),
    ("overflows_per_session", "overflows/session"),
    ("trims_per_session", "trims/session"),
    ("compactions_per_session", "compactions/session"),
)
SPEND: Final[tuple[tuple[str, str], ...]] = (
    ("cache_hit_ratio", "cache hit ratio"),
    ("cache_loss_per_session", "cache loss/session (tokens)"),
    ("input_tokens_per_session", "input tokens/session"),
    ("tokens_sent_per_session", "tokens sent/session (fake's count)"),
    ("cost_per_session", "cost/session"),
    ("sessions_per_s", "sessions/s"),
)


@dataclass(frozen=True, slots=True)
class RuntimeFigures:
    """One runtime's cache section, its cost (``None`` without ``--prices``, or when a
    model has no price: ``note`` says which)."""

    cache: CacheSummary | None
    cost: CostSummary | None
    note: str | None


def figures(row: RuntimeLoad, summary: SutLoadSummary) -> RuntimeFigures:
    """Priced by the pricing room as ``load`` prices its own sessions (per finished one)."""
    spend = Spend.of(row.spend)
    cache = cache_summary(spend, row.finished) if spend.usage else None
    if summary.prices is None:
        return RuntimeFigures(cache, None, None)
    cost, note = cost_summary(spend, row.finished, summary.prices, summary.price_as)
    return RuntimeFigures(cache, cost, note)


def display_name(row: RuntimeLoad) -> str:
    return row.command if row.name is None else f"{row.name} {row.version}"


def _per(count: float, sessions: int) -> float | None:
    return round(count / sessions, 4) if sessions else None


def runtime_rows(summary: SutLoadSummary) -> list[dict[str, object]]:
    """One plain row per runtime, in the order run (``value`` its index)."""
    rows: list[dict[str, object]] = []
    for index, r in enumerate(summary.runtimes):
        seen, n = figures(r, summary), r.finished
        failed = {kind: count for kind, count in r.turns.most_common() if kind != "ok"}
        cache, cost = seen.cache, seen.cost
        rows.append(
            {
                "value": index,
                "label": display_name(r),
                "finished": n,
                "turns": sum(r.turns.values()),
                "turns_ok": r.turns["ok"],
                "turns_failed": failed,
                "requests_per_session": _per(r.requests, n),
                "overflows_per_session": _per(r.overflows, n),
                "trims_per_session": _per(r.trims, n),
                "compactions_per_session": _per(r.spend.compactions, n),
                **{f"{BROKE}{name}": r.violations[name] for name in INVARIANTS},
                "cache_hit_ratio": cache.hit_ratio if cache else None,
                "cache_loss_per_session": cache.cache_loss_per_session if cache else None,
                "input_tokens_per_session": cache.input_tokens_per_session if cache else None,
                "tokens_sent_per_session": _per(r.tokens_sent, n),
                "cost_per_session": cost.per_session if cost else None,
                "sessions_per_s": round(n / r.wall_s, 2) if r.wall_s > 0 else None,
            }
        )
    return rows


def measures(summary: SutLoadSummary) -> list[tuple[str, str]]:
    """The rows after the turns: per session, the invariants some runtime broke, spend."""
    broken = [n for n in INVARIANTS if any(r.violations[n] for r in summary.runtimes)]
    return [
        *PER_SESSION,
        *((f"{BROKE}{name}", f"sessions breaking {name}") for name in broken),
        *SPEND,
    ]


def currency(summary: SutLoadSummary) -> str | None:
    return summary.prices.currency if summary.prices is not None else None


def summary_json(summary: SutLoadSummary) -> dict[str, object]:
    """The ``--json`` document (``docs/sut-protocol.md``, "Under load", says each key)."""
    runtimes = []
    for r in summary.runtimes:
        seen = figures(r, summary)
        runtimes.append(
            {
                "command": r.command,
                "sut": {"name": r.name, "version": r.version},
                "finished": r.finished,
                "stopped_by": r.stopped_by,
                "verdicts": dict(sorted(r.verdicts.items())),
                "violations": {name: r.violations[name] for name in INVARIANTS},
                "turns": dict(sorted(r.turns.items())),
                "requests": r.requests,
                "overflows": r.overflows,
                "trims": r.trims,
                "compactions": r.spend.compactions,
                "tokens_sent": r.tokens_sent,
                "cache": asdict(seen.cache) if seen.cache else None,
                "cost": asdict(seen.cost) if seen.cost else None,
                "cost_note": seen.note,
                "wall_s": round(r.wall_s, 3),
            }
        )
    return {
        "scenario": summary.scenario,
        "sessions": summary.sessions,
        "concurrency": summary.concurrency,
        "interrupted": summary.interrupted_by,
        "runtimes": runtimes,
    }


def write_summary_json(summary: SutLoadSummary, path: Path) -> None:
    write_text_atomic(path, json.dumps(summary_json(summary), indent=2) + "\n")


DIGITS: Final = {"cache_hit_ratio": 3, "cost_per_session": 6}
"""Decimals a measure is shown with (2 for the others)."""


def _cell(value: object, digits: int = 2) -> str:
    if isinstance(value, bool) or value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _turn_lines(rows: Sequence[dict[str, object]]) -> list[tuple[str, list[str]]]:
    kinds: dict[str, int] = {}
    for row in rows:
        failed = row["turns_failed"]
        assert isinstance(failed, dict)
        for kind, count in failed.items():
            kinds[kind] = kinds.get(kind, 0) + count
    lines = [("turns", [_cell(r["turns"]) for r in rows]),
             ("turns ok", [_cell(r["turns_ok"]) for r in rows])]  # fmt: skip
    for kind in sorted(kinds, key=lambda k: (-kinds[k], k)):
        cells = [_cell(r["turns_failed"].get(kind, 0)) for r in rows]  # type: ignore[attr-defined]
        lines.append((f"turns failed: {kind}", cells))
    return lines


def summary_table(summary: SutLoadSummary) -> Table:
    """A column per runtime (marked when a session failed), a row per measure."""
    title = f"load --sut: {summary.scenario}, {summary.sessions} sessions"
    title += f", {summary.concurrency} at once"
    if summary.interrupted_by is not None:
        title += f" (interrupted by {summary.interrupted_by})"
    table = Table(title=title, caption="'sessions breaking' rows: sessions, not requests")
    table.add_column(KEY, style="bold")
    rows = runtime_rows(summary)
    for r, row in zip(summary.runtimes, rows, strict=True):
        failed = sum(n for verdict, n in r.verdicts.items() if verdict != "PASS")
        head = f"{row['label']} ! {failed:,} failed" if failed else str(row["label"])
        table.add_column(head, justify="right", header_style="bold red" if failed else None)
    finished = [f"{r.finished:,}" + (f" (stopped: {r.stopped_by})" if r.stopped_by else "")
                for r in summary.runtimes]  # fmt: skip
    verdicts = [", ".join(f"{n} {v}" for v, n in sorted(r.verdicts.items())) or "none"
                for r in summary.runtimes]  # fmt: skip
    table.add_row("sessions finished", *finished)
    table.add_row("verdicts", *verdicts)
    for what, cells in _turn_lines(rows):
        table.add_row(what, *cells)
    money = currency(summary)
    for field, what in measures(summary):
        shown = f"{what} ({money})" if field == "cost_per_session" and money else what
        table.add_row(shown, *(_cell(row[field], DIGITS.get(field, 2)) for row in rows))
    return table
