"""A budget sweep as one self-contained HTML page: the table and two small plots.

The page takes plain rows (``harness.load.sweep.SweepRow`` as dicts: the report package
does not import the load package) and draws cost per session and cache hit ratio against
the swept value, one point per value in numeric order whatever order was typed (evenly
spaced: 0 means "no trimming", labelled ``0 = off``, and would crowd the others on a
linear axis). Turns by outcome come first in the table, and a column whose turns failed
is marked: it is cheap because it did less. Same stylesheet and Content-Security-Policy
as ``trimscope report``: nothing is fetched, no script runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.report.assets import CONTENT_SECURITY_POLICY, STYLE
from harness.report.svg import el, esc, num, void

WIDTH, HEIGHT, PAD = 360.0, 180.0, 36.0
Row = Mapping[str, object]
MEASURES: tuple[tuple[str, str], ...] = (
    ("overflows_per_session", "overflows/session"),
    ("recovery_rate", "overflows recovered"),
    ("capacity_refusals_per_session", "capacity refusals/session"),
    ("cache_hit_ratio", "cache hit ratio"),
    ("cache_loss_per_session", "cache loss/session (tokens)"),
    ("input_tokens_per_session", "input tokens/session"),
    ("cost_per_session", "cost/session"),
    ("request_tokens_p50", "request tokens p50"),
    ("request_tokens_p95", "request tokens p95"),
)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _cell(value: object) -> str:
    number = _number(value)
    if number is None:
        return "-"
    if isinstance(value, int):  # a count (sessions breaking an invariant), not a mean
        return f"{value:,}"
    return f"{number:,.6f}".rstrip("0").rstrip(".") if number < 1 else f"{number:,.2f}"


def plot(title: str, labels: Sequence[str], values: Sequence[float | None]) -> str:
    """A line plot of ``values`` over ordinal ``labels``; missing values are gaps."""
    known = [v for v in values if v is not None]
    top = max(known, default=0.0) or 1.0
    step = (WIDTH - 2 * PAD) / max(1, len(labels) - 1)

    def x(i: int) -> float:
        return PAD + i * step if len(labels) > 1 else WIDTH / 2

    def y(v: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * v / top

    points = [(x(i), y(v), v) for i, v in enumerate(values) if v is not None]
    parts = [
        void("line", x1=PAD, y1=HEIGHT - PAD, x2=WIDTH - PAD, y2=HEIGHT - PAD, stroke="#888"),
        void("line", x1=PAD, y1=PAD, x2=PAD, y2=HEIGHT - PAD, stroke="#888"),
        el("text", esc(f"{top:,.4g}"), x=2.0, y=PAD, font_size=10),
        el("text", "0", x=2.0, y=HEIGHT - PAD, font_size=10),
        *(
            el("text", esc(label), x=x(i), y=HEIGHT - PAD + 14, font_size=10, text_anchor="middle")
            for i, label in enumerate(labels)
        ),
    ]
    if points:
        path = " ".join(f"{num(px)},{num(py)}" for px, py, _ in points)
        parts.append(void("polyline", points=path, fill="none", stroke="#1f77b4", stroke_width=2))
        parts += [
            el("circle", el("title", esc(f"{v:,.6g}")), cx=px, cy=py, r=3.0, fill="#1f77b4")
            for px, py, v in points
        ]
    svg = el("svg", "".join(parts), viewBox=f"0 0 {num(WIDTH)} {num(HEIGHT)}", role="img",
             aria_label=title, width=WIDTH, height=HEIGHT)  # fmt: skip
    return el("figure", svg + el("figcaption", esc(title)))


def _failed(row: Row) -> Mapping[str, object]:
    failed = row.get("turns_failed")
    return failed if isinstance(failed, Mapping) else {}


def _failed_count(row: Row) -> int:
    return sum(int(count) for count in _failed(row).values() if isinstance(count, int))


def _head(key: str, labels: Sequence[str], rows: Sequence[Row]) -> str:
    cells = []
    for label, row in zip(labels, rows, strict=True):
        failed = _failed_count(row)
        marked = el("span", esc(f"! {failed:,} failed"), class_="badge alert") if failed else ""
        cells.append(el("th", esc(label) + (" " + marked if marked else "")))
    return el("tr", el("th", esc(key)) + "".join(cells))


def _turn_lines(rows: Sequence[Row]) -> list[str]:
    """turns, turns ok, then one line per error class some column failed with."""
    totals: dict[str, int] = {}
    for row in rows:
        for name, count in _failed(row).items():
            totals[name] = totals.get(name, 0) + (count if isinstance(count, int) else 0)
    lines = [
        el("tr", el("th", what) + "".join(el("td", esc(_count(row.get(field)))) for row in rows))
        for field, what in (("turns", "turns"), ("turns_ok", "turns ok"))
    ]
    for name in sorted(totals, key=lambda name: (-totals[name], name)):
        cells = "".join(el("td", esc(_count(_failed(row).get(name, 0)))) for row in rows)
        lines.append(el("tr", el("th", esc(f"turns failed: {name}")) + cells))
    return lines


def _count(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "-"


def _table(
    key: str,
    labels: Sequence[str],
    rows: Sequence[Row],
    currency: str | None,
    measures: Sequence[tuple[str, str]],
) -> str:
    lines = [_head(key, labels, rows), *_turn_lines(rows)]
    triggers = rows[0].get("trims_per_session", {}) if rows else {}
    for trigger in triggers if isinstance(triggers, Mapping) else {}:
        trims = [row.get("trims_per_session") for row in rows]
        counts = [t.get(trigger) if isinstance(t, Mapping) else None for t in trims]
        trim_cells = "".join(el("td", esc(_cell(count))) for count in counts)
        lines.append(el("tr", el("th", esc(f"{trigger} trims/session")) + trim_cells))
    for field, what in measures:
        shown = f"{what} ({currency})" if field == "cost_per_session" and currency else what
        cells = "".join(el("td", esc(_cell(row.get(field)))) for row in rows)
        lines.append(el("tr", el("th", esc(shown)) + cells))
    return el("table", "".join(lines))


def _label(row: Row) -> str:
    label = row.get("label")
    return label if isinstance(label, str) else f"{_number(row.get('value')) or 0:g}"


FAILED_NOTE = (
    "! some turns failed (rows 'turns failed'): that column's cost, cache and trim figures"
    " cover less work than the others'."
)


def render_sweep_page(
    key: str,
    template: str,
    rows: Sequence[Row],
    currency: str | None = None,
    *,
    measures: Sequence[tuple[str, str]] = MEASURES,
    title: str | None = None,
) -> str:
    """The page; ``measures`` (field, label) are the table's rows after the turns and
    trims, ``title`` the page's (``load --sut`` gives its own: a column per runtime)."""
    rows = sorted(rows, key=lambda row: _number(row.get("value")) or 0.0)
    labels = [_label(row) for row in rows]
    title = title or f"trimscope load --sweep {key} ({template})"
    cost = "cost per session" + (f" ({currency})" if currency else " (needs --prices)")
    head = "".join(
        [
            void("meta", charset="utf-8"),
            void("meta", http_equiv="Content-Security-Policy", content=CONTENT_SECURITY_POLICY),
            void("link", rel="icon", href="data:,"),
            el("title", esc(title)),
            f"<style>{STYLE}</style>",
        ]
    )
    costs = [_number(r.get("cost_per_session")) for r in rows]
    hits = [_number(r.get("cache_hit_ratio")) for r in rows]
    body = "".join(
        [
            el("h1", esc(title)),
            _table(key, labels, rows, currency, measures),
            el("p", esc(FAILED_NOTE)) if any(_failed_count(r) for r in rows) else "",
            plot(f"{cost} against {key}", labels, costs),
            plot(f"cache hit ratio against {key}", labels, hits),
        ]
    )
    return f'<!DOCTYPE html>\n<html lang="en"><head>{head}</head><body>{body}</body></html>\n'
