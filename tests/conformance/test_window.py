"""The window search: calibration, growth then bisection, truncation, and a tokenizer that
disagrees with the estimate (as every real one does)."""

from __future__ import annotations

import pytest

from fakes.pytest_plugin import FakeServerFactory
from harness.conformance.window import Calibration
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
