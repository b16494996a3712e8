"""The stated cost is never exceeded: ``Ledger.admit`` is the one gate every request
passes, the recovery session's included."""

from __future__ import annotations

import pytest

from fakes.pytest_plugin import FakeServerFactory
from harness.conformance import (
    BudgetExhausted,
    ConformanceConfigError,
    Ledger,
    ProbeBudget,
    plan,
    request_cost,
    run_conformance,
)
from harness.conformance.payloads import small_request
from tests.conformance.support import conform, options, serve

pytestmark = pytest.mark.anyio


def test_ledger_admits_until_the_request_cap_and_counts_nothing_it_refuses() -> None:
    ledger = Ledger(ProbeBudget(max_requests=2, max_input_tokens=1000))
    ledger.admit(100)
    ledger.admit(100)
    with pytest.raises(BudgetExhausted, match="2/2 requests"):
        ledger.admit(1)
    assert (ledger.requests, ledger.input_tokens) == (2, 200)


def test_ledger_refuses_a_request_that_would_pass_the_token_cap() -> None:
    ledger = Ledger(ProbeBudget(max_requests=10, max_input_tokens=1000))
    ledger.admit(600)
    assert ledger.can_afford(400)
    assert not ledger.can_afford(401)
    with pytest.raises(BudgetExhausted):
        ledger.admit(401)
    assert ledger.input_tokens == 600


def test_reported_usage_above_the_estimate_is_charged() -> None:
    ledger = Ledger(ProbeBudget(max_requests=10, max_input_tokens=1000))
    ledger.admit(100)
    ledger.settle(100, 250)
    ledger.settle(100, 40)  # below the estimate: the estimate stands
    assert (ledger.input_tokens, ledger.estimated_tokens, ledger.reported_tokens) == (
        250,
        100,
        290,
    )


def test_default_budget_scales_with_the_claim() -> None:
    assert ProbeBudget.resolve(None, None, 4000) == ProbeBudget(40, 64_000)
    assert ProbeBudget.resolve(None, None, None) == ProbeBudget(40, 256_000)
    assert ProbeBudget.resolve(7, 999, 4000) == ProbeBudget(7, 999)


@pytest.mark.parametrize(
    ("max_requests", "max_input_tokens", "enough"),
    [
        (1, 100_000, False),
        (3, 100_000, False),
        (8, 100_000, False),
        (40, 200, False),
        (40, 3000, False),
        (12, 9000, False),
        (40, 24_000, True),
    ],
)
async def test_no_run_sends_past_its_budget(
    max_requests: int, max_input_tokens: int, enough: bool, fake_server: FakeServerFactory
) -> None:
    result = await conform(
        fake_server,
        "openai",
        2000,
        max_requests=max_requests,
        max_input_tokens=max_input_tokens,
    )
    report = result.report
    calls = result.fake.log.calls()
    assert len(calls) == report.spent.requests == len(report.exchanges) <= max_requests
    # The fake counts with the runtime's estimate: each request it decoded is exactly what
    # the ledger charged for it (requests it rejected undecoded carry no count). The
    # ``content: ""`` row-shape probe is the exception: the fake re-encodes its call row
    # as the runtime writes one, with ``null`` (2 bytes more).
    for call, exchange in zip(calls, report.exchanges, strict=True):
        if call.tokens is not None and exchange.purpose != "row_shape_empty":
            assert call.tokens.total == exchange.estimate_tokens
    charged = sum(e.estimate_tokens for e in report.exchanges)
    assert charged == report.spent.estimated_input_tokens
    assert charged <= report.spent.input_tokens <= max_input_tokens
    assert report.conforms is enough
    assert ("inconclusive" in report.verdicts().values()) is not enough


async def test_budget_that_cannot_pay_for_the_small_request_is_an_option_error(
    fake_server: FakeServerFactory,
) -> None:
    _, base_url = serve(fake_server, "openai", 2000)
    cost = request_cost(small_request("m"))
    run = plan(options("openai", base_url, declared=2000, max_input_tokens=cost - 1))
    with pytest.raises(ConformanceConfigError, match="cannot pay for the small request"):
        await run_conformance(run)


async def test_recovery_session_is_charged_to_the_same_budget(
    fake_server: FakeServerFactory,
) -> None:
    result = await conform(fake_server, "anthropic", 2000)
    purposes = [e.purpose for e in result.report.exchanges]
    assert purposes.count("recovery") == result.report.recovery.provider_calls == 2
    assert len(result.fake.log.calls()) == result.report.spent.requests == len(purposes)


async def test_a_tight_budget_skips_recovery_rather_than_overspend(
    fake_server: FakeServerFactory,
) -> None:
    result = await conform(fake_server, "openai", 2000, max_input_tokens=12_000)
    report = result.report
    assert report.spent.input_tokens <= 12_000
    assert report.check("recovery").verdict in ("inconclusive", "pass")
    if report.check("recovery").verdict == "inconclusive":
        assert "budget" in report.check("recovery").finding or "not found" in (
            report.check("recovery").finding
        )
