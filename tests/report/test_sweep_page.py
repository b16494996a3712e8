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
    assert "<th>1200</th><th>0</th>" in page
    assert "<th>proactive trims/session</th><td>8.00</td><td>0</td>" in page
    assert "<th>cost/session (USD)</th><td>0.0039</td><td>-</td>" in page
    assert "<th>request tokens p95</th><td>1,735.00</td><td>1,959.00</td>" in page
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
