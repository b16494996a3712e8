"""``trimscope load --sweep``: parsing, what each key changes, and the table's numbers."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from harness.cli import app
from harness.cli.bounds import MAX_CONTEXT_WINDOW_TOKENS
from harness.interrupt import SIGNAL_EXIT_BASE, StopRequest
from harness.load import LoadPlan, LoadSummary, Quantiles, TrimRow, default_template
from harness.load.sweep import (
    Sweep,
    SweepSummary,
    parse_sweep,
    render_sweep,
    sweep_row,
    swept,
    value_label,
)
from harness.pricing.spend import CacheSummary, CostSummary


@pytest.mark.parametrize(
    ("text", "sweep"),
    [
        ("budget=1000,2000", Sweep("budget", (1000, 2000))),
        ("ratio=0.5, 0.75,1", Sweep("ratio", (0.5, 0.75, 1.0))),
        ("turn_limit=0,6", Sweep("turn_limit", (0, 6))),
    ],
)
def test_a_sweep_names_a_key_and_its_values(text: str, sweep: Sweep) -> None:
    assert parse_sweep(text) == sweep


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("window=1,2", "expected KEY=V1,V2,... with KEY one of budget, ratio, turn_limit"),
        ("budget", "expected KEY=V1,V2"),
        ("budget=1,,2", "expected KEY=V1,V2"),
        ("budget=1.5", "budget values are a whole number, found '1.5'"),
        ("ratio=0,0.5", "a ratio is above 0 and at most 1, found '0'"),
        ("turn_limit=-1", "at least 0, found '-1'"),
        ("budget=5,5", "each value once"),
        ("budget=" + ",".join(str(v) for v in range(21)), "at most 20 values, found 21"),
    ],
)
def test_a_bad_sweep_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match="--sweep: ") as caught:
        parse_sweep(text)
    assert problem in str(caught.value)


def test_each_key_changes_only_its_setting() -> None:
    template = default_template()
    base = template.profile
    budget = swept(template, "budget", 1500).profile
    assert (budget.max_context_tokens, budget.context_compact_ratio) == (1500, None)
    ratio = swept(template, "ratio", 0.5).profile
    assert (ratio.context_compact_ratio, ratio.max_context_tokens) == (0.5, base.max_context_tokens)
    limit = swept(template, "turn_limit", 3).profile
    assert limit.max_history_messages == 3
    assert limit.context_compact_ratio == base.context_compact_ratio
    assert swept(template, "ratio", 0.5).name == f"{template.name} ratio=0.5"


def _summary(**fields: object) -> LoadSummary:
    base: dict[str, object] = {
        "mode": "asyncio",
        "template": "t",
        "provider_kinds": ["openai"],
        "sessions_requested": 4,
        "concurrency": 2,
        "turns": 3,
        "duration_limit_s": 60.0,
        "stopped_by": "count",
        "elapsed_s": 1.0,
        "sessions_started": 4,
        "sessions_completed": 4,
        "sessions_interrupted": 0,
        "sessions_per_s": 4.0,
        "provider_calls": 20,
        "provider_calls_per_s": 20.0,
        "calls_by_outcome": {"ok": 18, "overflow": 2},
        "turns_by_outcome": {"ok": 12},
        "turn_errors": {},
        "trims": [
            TrimRow("token_budget", "proactive", 6, 1.5),
            TrimRow("token_budget", "reactive", 2, 0.5),
            TrimRow("turn_limit", "turn_limit", 1, 0.25),
        ],
        "trims_total": 9,
        "trims_per_session": 2.25,
        "recoveries": {"retrying": 1, "only_one_turn_left": 1},
        "overflows_detected": 2,
        "capacity_refusals": 3,
        "tool_calls": 12,
        "overhead": Quantiles.of([]),
        "round_trip": Quantiles.of([]),
        "peak_rss_mb": 1.0,
        "harness_cpu_s": 1.0,
    }
    base.update(fields)
    return LoadSummary(**base)  # type: ignore[arg-type]


def test_a_row_is_the_run_per_session_hand_worked() -> None:
    cache = CacheSummary(
        input_tokens=40_000,
        cache_read_tokens=10_000,
        cache_write_tokens=0,
        uncached_tokens=30_000,
        output_tokens=900,
        hit_ratio=0.25,
        cache_loss_tokens={"proactive": 6_000},
        cache_loss_per_session=1_500.0,
        input_tokens_per_session=10_000.0,
        request_tokens_p50=1_900.0,
        request_tokens_p95=2_400.0,
    )
    cost = CostSummary("USD", "2026-12-01", {"m": "m"}, 0.04, 0.01, 0.002, 0.001)
    row = sweep_row(1500, _summary(cache=cache, cost=cost))
    # 4 sessions: 6 proactive, 0 reported-usage, 2 reactive, 1 turn-limit trims
    assert row.trims_per_session == {
        "proactive": 1.5,
        "reported_usage": 0.0,
        "reactive": 0.5,
        "turn_limit": 0.25,
    }
    assert (row.overflows_per_session, row.recovery_rate) == (0.5, 0.5)  # 1 of 2 retried
    assert row.capacity_refusals_per_session == 0.75
    assert (row.cache_hit_ratio, row.cache_loss_per_session) == (0.25, 1_500.0)
    assert (row.input_tokens_per_session, row.cost_per_session) == (10_000.0, 0.01)
    assert (row.request_tokens_p50, row.request_tokens_p95) == (1_900.0, 2_400.0)


def test_a_row_without_overflows_or_prices_leaves_those_empty() -> None:
    row = sweep_row(0, _summary(overflows_detected=0, recoveries={}))
    assert (row.recovery_rate, row.cost_per_session, row.cache_hit_ratio) == (None, None, None)


def test_a_row_counts_turns_by_outcome_and_failed_ones_by_error_class() -> None:
    summary = _summary(
        turns_by_outcome={"ok": 220, "error": 375, "max_iterations": 5},
        turn_errors={"ContextCapacityExceeded": 370, "ProviderTimeout": 5},
    )
    row = sweep_row(0, summary)
    assert (row.turns, row.turns_ok, row.label) == (600, 220, "0 = off")
    assert row.turns_failed == {
        "ContextCapacityExceeded": 370,
        "ProviderTimeout": 5,
        "no error class": 5,  # the iteration limit names none
    }
    assert sweep_row(1200, _summary()).turns_failed == {}


def test_only_budget_0_is_off() -> None:
    assert value_label("budget", 0) == "0 = off"
    assert value_label("turn_limit", 0) == "0"  # an explicit 0 is authoritative there
    assert value_label("ratio", 0.5) == "0.5"


def test_the_table_shows_turns_in_numeric_order_and_marks_failed_columns() -> None:
    failing = _summary(
        turns_by_outcome={"ok": 2, "error": 10}, turn_errors={"ContextCapacityExceeded": 10}
    )
    rows = [sweep_row(2400, _summary()), sweep_row(0, failing), sweep_row(1200, _summary())]
    console = Console(width=250, record=True)
    render_sweep(SweepSummary("budget", "t", None, rows, []), console)
    text = console.export_text()
    head = next(line for line in text.splitlines() if "budget" in line and "1200" in line)
    assert head.index("0 = off ! 10 failed") < head.index("1200") < head.index("2400")
    turns_failed = next(line for line in text.splitlines() if "turns failed:" in line)
    assert turns_failed.split() == ["│", "turns", "failed:", "ContextCapacityExceeded", "│",
                                    "10", "│", "0", "│", "0", "│"]  # fmt: skip
    assert "some turns failed" in text


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", *args])
    return result.exit_code, result.output


def test_sweep_options_are_checked_before_anything_runs() -> None:
    code, output = _invoke("--sweep", "window=1")
    assert code == 2
    assert "--sweep: expected" in output
    code, output = _invoke("--sweep", "budget=1", "--locust")
    assert code == 2
    assert "not with --locust" in output
    code, output = _invoke("--html", "page.html")
    assert code == 2
    assert "it needs --sweep" in output


@pytest.mark.integration
def test_a_sweep_runs_each_value_and_its_json_rows_match_its_runs(tmp_path: Path) -> None:
    out, page = tmp_path / "sweep.json", tmp_path / "sweep.html"
    code, output = _invoke(
        *("--sessions", "2", "--concurrency", "2", "--turns", "3", "--quiet"),
        *("--sweep", "budget=0,1200", "--json", str(out), "--html", str(page)),
    )
    assert code == 0, output
    assert page.read_text(encoding="utf-8").count("<svg") == 2
    assert "trimscope load --sweep budget" in output
    sweep = json.loads(out.read_text(encoding="utf-8"))
    assert [row["value"] for row in sweep["rows"]] == [0, 1200]
    assert [run["template"] for run in sweep["runs"]] == [
        "default-openai budget=0",
        "default-openai budget=1200",
    ]
    unlimited, tight = sweep["rows"]
    for row in sweep["rows"]:  # 2 sessions of 3 turns, each ended one way or another
        assert row["turns"] == 6 == row["turns_ok"] + sum(row["turns_failed"].values())
    assert unlimited["label"] == "0 = off"
    # budget 0 is the "no trimming" sentinel: no proactive or reported-usage trims
    assert unlimited["trims_per_session"]["proactive"] == 0
    assert tight["trims_per_session"]["proactive"] > 0
    for row, run in zip(sweep["rows"], sweep["runs"], strict=True):
        assert row["input_tokens_per_session"] == run["cache"]["input_tokens_per_session"]


def test_a_swept_budget_or_turn_limit_above_the_largest_window_exits_2_naming_sweep() -> None:
    for key in ("budget", "turn_limit"):
        code, output = _invoke("--sweep", f"{key}=1,{MAX_CONTEXT_WINDOW_TOKENS + 1}")
        assert code == 2, output
        assert f"--sweep: {key} values are at most {MAX_CONTEXT_WINDOW_TOKENS}" in output


def test_a_signal_ends_the_sweep_after_the_run_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []

    def one_run(plan: LoadPlan, *rest: object) -> LoadSummary:
        stop = next(a for a in rest if isinstance(a, StopRequest))
        ran.append(plan.template.name)
        stop.request(signal.SIGTERM)  # as the handler does, mid-run
        return _summary(template=plan.template.name)

    monkeypatch.setattr("harness.cli.load._run_asyncio", one_run)
    out = tmp_path / "sweep.json"
    code, _ = _invoke("--quiet", "--sweep", "budget=0,1200,2400", "--json", str(out))
    assert code == SIGNAL_EXIT_BASE + signal.SIGTERM
    assert ran == ["default-openai budget=0"]
    sweep = json.loads(out.read_text(encoding="utf-8"))
    assert [row["value"] for row in sweep["rows"]] == [0]
    assert [run["interrupted_by"] for run in sweep["runs"]] == ["SIGTERM"]
