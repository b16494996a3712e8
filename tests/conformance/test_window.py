"""The window search: calibration, growth then bisection, truncation, and a tokenizer that
disagrees with the estimate (as every real one does)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.pytest_plugin import FakeServerFactory
from harness.conformance.budget import Ledger, ProbeBudget
from harness.conformance.payloads import PROBE_MAX_TOKENS
from harness.conformance.window import (
    MIN_GROWTH,
    START_TOKENS,
    Calibration,
    SearchPlan,
    WindowSearch,
    claim_edges,
    next_growth,
)
from harness.events import Event, HistoryTrimmed, OverflowDetected, RecoveryAttempted
from tests.conformance.support import ALL_PASS, conform, failing

pytestmark = pytest.mark.anyio


def test_calibration_is_a_line_through_the_first_two_reports() -> None:
    line = Calibration.fit([(31, 41), (256, 191)])
    assert line.measured
    assert line.expected(31) == pytest.approx(41)
    assert line.expected(1256) == pytest.approx(41 + 1225 * (150 / 225))


def test_calibration_without_reports_is_the_identity() -> None:
    assert Calibration.fit([]) == Calibration()
    assert Calibration.fit([]).expected(500) == 500


@pytest.mark.parametrize("window", [1000, 2500, 3333])
async def test_measured_window_is_within_one_percent(
    window: int, fake_server: FakeServerFactory
) -> None:
    report = (await conform(fake_server, "openai", window)).report
    assert report.window.stopped == "bracketed"
    assert report.window.measured is not None
    assert 0.99 * window <= report.window.measured <= window
    assert report.window.upper_bound is not None
    assert report.window.upper_bound > window


async def test_a_tokenizer_that_disagrees_with_the_estimate_still_conforms(
    fake_server: FakeServerFactory,
) -> None:
    result = await conform(fake_server, "openai", 3000, counter="provider")
    assert result.report.verdicts() == ALL_PASS, result.report.reasons


async def test_truncation_is_seen_through_a_disagreeing_tokenizer(
    fake_server: FakeServerFactory,
) -> None:
    result = await conform(fake_server, "ollama", 3000, counter="provider")
    assert failing(result.report) == {"overflow_recognised", "silent_truncation", "recovery"}


async def test_recovery_session_runs_the_runtime_end_to_end(
    fake_server: FakeServerFactory,
) -> None:
    seen: list[Event] = []

    class Collect:
        def on_event(self, event: Event) -> None:
            seen.append(event)

    result = await conform(fake_server, "openai", 2000, observers=(Collect(),))
    recovery = result.report.recovery
    assert (recovery.answered, recovery.overflows_detected, recovery.recoveries) == (
        True,
        1,
        ("retrying",),
    )
    assert recovery.pushed_tokens > 2000
    overflow = next(e for e in seen if isinstance(e, OverflowDetected))
    assert (overflow.extended_verdict, overflow.status_code) == (True, 400)
    assert [e.trigger for e in seen if isinstance(e, HistoryTrimmed)] == ["reactive"]
    attempt = next(e for e in seen if isinstance(e, RecoveryAttempted))
    assert attempt.target_budget_tokens == attempt.estimate_tokens * 2 // 3
    outcomes = [c.outcome for c in result.fake.log.calls()[-2:]]
    assert outcomes == ["overflow", "reply"]


def test_growth_steps_from_the_lower_claim_edge_to_the_upper_one() -> None:
    """A minimum growth step must not jump over the upper edge: the two edges are only
    ``WINDOW_TOLERANCE`` apart, and probing both is what settles a right claim."""
    search = WindowSearch(calibration=Calibration(0.66, 15.0, measured=True))
    plan = SearchPlan(reserve_factor=2.0, claim=512)
    ledger = Ledger(ProbeBudget(40, 100_000))
    low, high = claim_edges(search.calibration, 512)
    assert next_growth(search, plan, 256, ledger) == low  # within reach: no doubling first
    assert next_growth(search, plan, low, ledger) == high
    assert next_growth(search, plan, high, ledger) == high * 2
    assert next_growth(search, plan, 64, ledger) == 128  # the edges are out of reach


def test_growth_past_the_edges_is_at_least_the_minimum_step() -> None:
    search = WindowSearch(calibration=Calibration(1.0, 0.0, measured=True))
    plan = SearchPlan(reserve_factor=1.0, claim=100_000)
    ledger = Ledger(ProbeBudget(40, 3000))  # affords 1500 per probe with its reserve
    assert next_growth(search, plan, 1400, ledger) == math.ceil(1400 * MIN_GROWTH)


@pytest.mark.parametrize("kind", ["llamacpp", "anthropic", "openai-responses"])
@pytest.mark.parametrize("window", [512, 777, 2048])
async def test_a_right_claim_settles_within_the_default_budget(
    kind: str, window: int, fake_server: FakeServerFactory
) -> None:
    """The provider counter disagrees with the estimate (as a real tokenizer does), so
    the claim edges fall between growth steps; streamed kinds reserve the most budget."""
    report = (await conform(fake_server, kind, window, counter="provider")).report
    assert report.window.stopped == "bracketed", report.window
    assert report.window.measured is not None
    # Anthropic's fake refuses input plus max_tokens past the window (its max_tokens
    # answer): the largest prompt that fits is the window less the probes' output budget.
    limit = window - PROBE_MAX_TOKENS if kind == "anthropic" else window
    assert abs(report.window.measured - limit) <= 0.02 * limit
    assert report.check("window").verdict == "pass"


@given(
    slope=st.floats(0.3, 3.0),
    intercept=st.floats(-50, 50),
    claim=st.integers(300, 2_000_000),
    size=st.integers(START_TOKENS, 4_000_000),
)
def test_growth_never_steps_over_a_claim_edge(
    slope: float, intercept: float, claim: int, size: int
) -> None:
    """With the budget to pay, each step grows, and no claim edge lies strictly between a
    size and the next: the probes either side of the claim are always sent."""
    search = WindowSearch(calibration=Calibration(slope, intercept, measured=True))
    plan = SearchPlan(reserve_factor=3.0, claim=claim)
    ledger = Ledger(ProbeBudget(40, 10**12))
    grown = next_growth(search, plan, size, ledger)
    assert grown > size
    assert not [e for e in claim_edges(search.calibration, claim) if size < e < grown]
