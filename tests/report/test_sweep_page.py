"""The sweep page: the table's numbers, two plots, escaped text, nothing fetched."""

from __future__ import annotations

import re

from harness.report.assets import CONTENT_SECURITY_POLICY
from harness.report.svg import esc
from harness.report.sweep_page import plot, render_sweep_page

ROWS = [
    {
        "value": 1200,
        "trims_per_session": {"proactive": 8.0, "turn_limit": 4.0},
        "cache_hit_ratio": 0.0,
        "cost_per_session": 0.0039,
        "request_tokens_p95": 1735.0,
    },
    {
        "value": 0,
        "trims_per_session": {"proactive": 0.0, "turn_limit": 4.0},
        "cache_hit_ratio": 0.348,
        "cost_per_session": None,
        "request_tokens_p95": 1959.0,
    },
]


def test_the_page_carries_the_table_and_both_plots() -> None:
    page = render_sweep_page("budget", "default-openai", ROWS, "USD")
    # in numeric order whatever the order swept
    assert "<th>0</th><th>1200</th>" in page
    assert "<th>proactive trims/session</th><td>0</td><td>8.00</td>" in page
    assert "<th>cost/session (USD)</th><td>-</td><td>0.0039</td>" in page
    assert "<th>request tokens p95</th><td>1,959.00</td><td>1,735.00</td>" in page
    assert page.count("<svg") == 2
    assert "cost per session (USD) against budget" in page
    assert "cache hit ratio against budget" in page
    assert esc(CONTENT_SECURITY_POLICY) in page
    assert not re.search(r"(src|href)=\"(?!data:)", page)  # nothing to fetch


def test_a_missing_value_is_a_gap_not_a_zero() -> None:
    svg = plot("cost", ["a", "b", "c"], [1.0, None, 2.0])
    assert svg.count("<circle") == 2


def test_text_from_the_run_is_escaped() -> None:
    page = render_sweep_page("budget", "<script>x</script>", ROWS)
    assert "<script>x" not in page
    assert "&lt;script&gt;x" in page


SWEPT = [  # as a sweep's JSON rows read, in the order typed: budget=1200,2400,0
    {"value": 1200, "label": "1200", "turns": 600, "turns_ok": 600, "turns_failed": {},
     "cost_per_session": 0.012},
    {"value": 2400, "label": "2400", "turns": 600, "turns_ok": 600, "turns_failed": {},
     "cost_per_session": 0.014},
    {"value": 0, "label": "0 = off", "turns": 600, "turns_ok": 220,
     "turns_failed": {"ContextCapacityExceeded": 380}, "cost_per_session": 0.0052},
]  # fmt: skip


def test_turns_by_outcome_and_a_column_whose_turns_failed_is_marked() -> None:
    page = render_sweep_page("budget", "default-openai", SWEPT, "USD")
    badge = '<span class="badge alert">! 380 failed</span>'
    assert f"<th>budget</th><th>0 = off {badge}</th><th>1200</th><th>2400</th>" in page
    assert "<th>turns</th><td>600</td><td>600</td><td>600</td>" in page
    assert "<th>turns ok</th><td>220</td><td>600</td><td>600</td>" in page
    assert "<th>turns failed: ContextCapacityExceeded</th><td>380</td><td>0</td><td>0</td>" in page
    assert "cover less work than the others" in page


def test_the_plot_axis_is_in_numeric_order_with_off_labelled() -> None:
    page = render_sweep_page("budget", "default-openai", SWEPT, "USD")
    labels = re.findall(r'<text[^>]*text-anchor="middle"[^>]*>([^<]*)</text>', page)
    assert labels[:3] == ["0 = off", "1200", "2400"]
