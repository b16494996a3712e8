"""``--provider-side``: each claimed option is probed and said honoured, rejected, ignored or
inconclusive (issue 17), against fakes told to honour, drop or refuse the fields."""

from __future__ import annotations

import pytest

from fakes import ProviderSide
from fakes.pytest_plugin import FakeServerFactory
from harness.conformance import ConformanceConfigError, plan
from tests.conformance.support import conform, options

pytestmark = pytest.mark.anyio

WINDOW = 3000


def outcomes(finding: str) -> dict[str, str]:
    """``option: outcome (detail)`` pairs of the check's finding."""
    parts = (p.split(" (", 1)[0] for p in finding.split("; "))
    return dict(tuple(p.split(": ", 1)) for p in parts)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kind", "option"),
    [
        ("anthropic", "clear_tool_uses"),
        ("anthropic", "clear_thinking"),
        ("openai-responses", "truncation"),
        ("openai-responses", "compaction"),
    ],
)
async def test_an_honoured_option_passes(
    kind: str, option: str, fake_server: FakeServerFactory
) -> None:
    result = await conform(fake_server, kind, WINDOW, provider_side=(option,))
    check = result.report.check("provider_side")
    assert (check.verdict, outcomes(check.finding)) == ("pass", {option: "honoured"})
    assert any(e.purpose.startswith(f"provider_side_{option}") for e in result.report.exchanges)


@pytest.mark.parametrize(("handling", "said"), [("ignore", "ignored"), ("reject", "rejected")])
@pytest.mark.parametrize(
    ("kind", "option"),
    [
        ("anthropic", "clear_tool_uses"),
        ("anthropic", "clear_thinking"),
        ("openai-responses", "truncation"),
    ],
)
async def test_a_dropped_or_refused_field_fails_and_says_which(
    kind: str, option: str, handling: str, said: str, fake_server: FakeServerFactory
) -> None:
    side = ProviderSide(handling)  # type: ignore[arg-type]
    result = await conform(fake_server, kind, WINDOW, provider_side=(option,), side=side)
    check = result.report.check("provider_side")
    assert (check.verdict, outcomes(check.finding)) == ("fail", {option: said})
    assert not result.report.conforms


async def test_clear_thinking_sends_the_endpoints_own_signed_blocks_back(
    fake_server: FakeServerFactory,
) -> None:
    result = await conform(fake_server, "anthropic", WINDOW, provider_side=("clear_thinking",))
    [*_, first, second, third] = result.fake.log.calls()
    purposes = [e.purpose for e in result.report.exchanges][-3:]
    assert purposes == [f"provider_side_clear_thinking_{n}" for n in range(3)]
    # the fake refuses a thinking block it did not sign: the later turns were answered
    assert [c.status for c in (first, second, third)] == [200, 200, 200]
    assert result.report.check("provider_side").verdict == "pass"


async def test_clear_thinking_without_thinking_blocks_is_inconclusive_and_says_why(
    fake_server: FakeServerFactory,
) -> None:
    side = ProviderSide(thinks=False)
    result = await conform(
        fake_server, "anthropic", WINDOW, provider_side=("clear_thinking",), side=side
    )
    check = result.report.check("provider_side")
    assert (check.verdict, outcomes(check.finding)) == (
        "inconclusive",
        {"clear_thinking": "inconclusive"},
    )
    assert "no signed thinking block" in check.finding
    assert result.report.exchanges[-1].purpose == "provider_side_clear_thinking_0"


async def test_clear_thinking_past_the_request_budget_is_inconclusive(
    fake_server: FakeServerFactory,
) -> None:
    plain = await conform(fake_server, "anthropic", WINDOW)
    spent = len(plain.report.exchanges)
    result = await conform(
        fake_server,
        "anthropic",
        WINDOW,
        provider_side=("clear_thinking",),
        max_requests=spent + 2,  # the third turn cannot be sent
    )
    check = result.report.check("provider_side")
    assert check.finding.startswith("clear_thinking: inconclusive (not sent: probe budget reached")
    assert len(result.report.exchanges) == spent + 2


async def test_a_compaction_past_the_window_is_inconclusive(
    fake_server: FakeServerFactory,
) -> None:
    result = await conform(fake_server, "anthropic", WINDOW, provider_side=("compact",))
    check = result.report.check("provider_side")
    assert check.verdict == "inconclusive"
    assert outcomes(check.finding) == {"compact": "inconclusive"}
    assert "cannot hold 52500 tokens" in check.finding


async def test_a_compaction_the_window_holds_is_probed(fake_server: FakeServerFactory) -> None:
    result = await conform(
        fake_server, "anthropic", 60_000, provider_side=("compact",), max_input_tokens=2_000_000
    )
    check = result.report.check("provider_side")
    assert (check.verdict, outcomes(check.finding)) == ("pass", {"compact": "honoured"})


def test_claiming_an_option_of_another_wire_is_invalid() -> None:
    chosen = options(
        "openai", "http://127.0.0.1:9/v1", declared=None, provider_side=("clear_tool_uses",)
    )
    with pytest.raises(ConformanceConfigError, match="not an option of openai"):
        plan(chosen, {})
