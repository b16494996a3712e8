"""``--provider-side``: each claimed option is probed and said honoured, rejected, ignored or
inconclusive (issue 17), against fakes told to honour, drop or refuse the fields."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import ProviderSide
from fakes.pytest_plugin import FakeServerFactory
from harness.conformance import ConformanceConfigError, plan
from harness.conformance.provider_side import COMPACT_TRIGGER_TOKENS, compact_probe_size
from harness.conformance.window import Calibration, WindowSearch
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
    assert "cannot hold a request over the smallest compaction trigger" in check.finding


@pytest.mark.parametrize("window", [51_000, 60_000, 200_000])
async def test_a_compaction_the_window_holds_is_probed_sized_from_it(
    window: int, fake_server: FakeServerFactory
) -> None:
    result = await conform(fake_server, "anthropic", window, provider_side=("compact",))
    check = result.report.check("provider_side")
    assert (check.verdict, outcomes(check.finding)) == ("pass", {"compact": "honoured"})
    [probe] = [e for e in result.report.exchanges if e.purpose == "provider_side_compact"]
    # sent over the trigger and under the window; the model saw the compacted context
    assert COMPACT_TRIGGER_TOKENS < probe.estimate_tokens < window
    assert (probe.reported_input_tokens or 0) < COMPACT_TRIGGER_TOKENS
    compacted = result.fake.log.calls()[-1]
    assert compacted.status == 200
    assert "[summary of" in str(compacted.rows)


async def test_a_window_too_tight_for_the_trigger_is_inconclusive(
    fake_server: FakeServerFactory,
) -> None:
    result = await conform(fake_server, "anthropic", 50_600, provider_side=("compact",))
    check = result.report.check("provider_side")
    assert outcomes(check.finding) == {"compact": "inconclusive"}
    assert "cannot hold a request over the smallest compaction trigger (50000)" in check.finding
    assert not any(e.purpose == "provider_side_compact" for e in result.report.exchanges)


async def test_a_compaction_past_the_token_budget_is_inconclusive(
    fake_server: FakeServerFactory,
) -> None:
    plain = await conform(fake_server, "anthropic", 60_000)
    spent = plain.report.spent.input_tokens
    result = await conform(
        fake_server,
        "anthropic",
        60_000,
        provider_side=("compact",),
        max_input_tokens=spent + 40_000,
    )
    check = result.report.check("provider_side")
    assert outcomes(check.finding) == {"compact": "inconclusive"}
    assert "cannot pay for a" in check.finding


@given(
    window=st.integers(1, 2_000_000) | st.none(),
    slope=st.floats(0.5, 2.0),
    intercept=st.floats(-100, 100),
)
def test_the_compact_probe_lands_over_the_trigger_and_under_the_window(
    window: int | None, slope: float, intercept: float
) -> None:
    search = WindowSearch(calibration=Calibration(slope, intercept, measured=True))
    size = compact_probe_size(search, window)
    if isinstance(size, str):
        assert window is not None
        assert window < COMPACT_TRIGGER_TOKENS * 1.02 + 2
        return
    tokens = Calibration(slope, intercept).expected(size)
    assert tokens > COMPACT_TRIGGER_TOKENS * 1.01 - 1
    assert window is None or tokens < window
    assert tokens <= COMPACT_TRIGGER_TOKENS * 1.05 + slope


def test_claiming_an_option_of_another_wire_is_invalid() -> None:
    chosen = options(
        "openai", "http://127.0.0.1:9/v1", declared=None, provider_side=("clear_tool_uses",)
    )
    with pytest.raises(ConformanceConfigError, match="not an option of openai"):
        plan(chosen, {})


async def test_the_estimate_ratio_leaves_the_edited_contexts_out(
    fake_server: FakeServerFactory,
) -> None:
    """A compacted or cleared context reports far fewer input tokens than was sent: counted
    in the estimate ratio, it would say the estimate overcounts 1,000-fold."""
    result = await conform(
        fake_server, "anthropic", 60_000, provider_side=("compact", "clear_tool_uses")
    )
    exchanges = result.report.exchanges
    edited = [e for e in exchanges if e.purpose.startswith("provider_side_")]
    assert len(edited) == 2
    assert all(e.ok and e.reported_input_tokens is not None for e in edited)
    plain = [
        e for e in exchanges if e.ok and e.reported_input_tokens is not None and e not in edited
    ]
    ratio = result.report.estimate_ratio
    assert ratio is not None
    assert ratio.samples == len(plain)
    low = min(p.reported_input_tokens / p.estimate_tokens for p in plain)  # type: ignore[operator]
    assert ratio.low == low
