"""Misbehaving endpoints fail, each for its own stated reason, and nothing else fails."""

from __future__ import annotations

import pytest

from fakes import FakeBehaviour, FakeScript, Fault, fail
from fakes.pytest_plugin import FakeServerFactory
from tests.conformance.support import ALL_PASS, conform, failing

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("kind", ["ollama", "ollama-openai"])
async def test_ollama_silent_truncation_fails_with_no_overflow_to_recover_from(
    kind: str, fake_server: FakeServerFactory
) -> None:
    result = await conform(fake_server, kind, 2048)
    report = result.report
    assert report.exit_code == 1
    assert failing(report) == {"overflow_recognised", "silent_truncation", "recovery"}
    assert report.check("overflow_shape").verdict == "n/a"
    assert report.check("tool_pairing").verdict == "pass"  # lenient, and documented so
    assert "silently truncated" in report.check("overflow_recognised").finding
    assert "reported 2048 input tokens" in report.check("silent_truncation").finding
    assert "without any overflow" in report.check("recovery").finding
    assert [a.shape for a in report.overflow] == ["silent_truncation"]
    assert report.window.measured == 2048  # the plateau the truncated replies report
    assert "truncated" in {e.outcome for e in result.fake.log.calls()}


@pytest.mark.parametrize("kind", ["ollama", "ollama-openai"])
async def test_ollama_that_answers_400_conforms(kind: str, fake_server: FakeServerFactory) -> None:
    report = (await conform(fake_server, kind, 2048, variant="error")).report
    assert report.verdicts() == ALL_PASS | {"look_alike": "n/a"}
    assert report.exit_code == 0


async def test_openrouter_http_200_error_fails_for_its_shape_only(
    fake_server: FakeServerFactory,
) -> None:
    report = (await conform(fake_server, "openrouter", 3000, variant="http200")).report
    assert report.exit_code == 1
    assert failing(report) == {"overflow_shape"}
    answer = report.overflow[0]
    assert (answer.shape, answer.status, answer.reference, answer.extended) == (
        "http_200_error_body",
        200,
        True,
        True,
    )
    assert "maximum context length is 3000 tokens" in answer.excerpt
    assert "HTTP 200" in report.check("overflow_shape").finding
    assert report.check("recovery").verdict == "pass"  # the runtime copes; others may not


async def test_bedrock_style_throttle_look_alike_fails_look_alike_safety(
    fake_server: FakeServerFactory,
) -> None:
    throttle = FakeBehaviour(fault=Fault("look_alike", name="bedrock_throttle"))
    result = await conform(fake_server, "anthropic", 2000, script=FakeScript((throttle,)))
    report = result.report
    assert report.exit_code == 1
    assert failing(report) == {"look_alike"}
    finding = report.check("look_alike").finding
    assert finding.startswith('429 \'{"message":"Too many tokens, please wait')
    assert "reads as an overflow to reference" in finding
    assert "extended" not in finding.split(":")[0]
    throttled = report.exchanges[0]
    assert (throttled.status, throttled.reference, throttled.extended) == (429, True, False)
    assert result.sleeps.waits == [1.0]  # waited out once (no retry-after), then answered
    assert result.fake.log.calls()[0].fault == "look_alike:bedrock_throttle"
    assert report.check("small_request").verdict == "pass"


async def test_rate_limit_that_both_classifiers_tell_apart_conforms(
    fake_server: FakeServerFactory,
) -> None:
    limited = FakeBehaviour(fault=Fault("look_alike", name="rate_limit_tokens", retry_after=3))
    result = await conform(fake_server, "openai", 2000, script=FakeScript((limited,)))
    assert result.report.verdicts() == ALL_PASS
    assert result.sleeps.waits == [3.0]


async def test_window_claim_twice_the_real_window_fails(fake_server: FakeServerFactory) -> None:
    report = (await conform(fake_server, "openai", 4000, declared=8000)).report
    assert report.exit_code == 1
    assert failing(report) == {"window"}
    finding = report.check("window").finding
    assert "declared 8000 but the endpoint holds ≈ " in finding
    assert "budgets from the claim overflow" in finding
    assert report.window.measured is not None
    assert 0.99 * 4000 <= report.window.measured <= 4000


async def test_window_claim_half_the_real_window_fails(fake_server: FakeServerFactory) -> None:
    report = (await conform(fake_server, "groq", 4000, declared=2000)).report
    assert failing(report) == {"window"}
    assert report.check("window").finding.startswith("declared 2000 but")


async def test_no_claim_reports_the_window_without_judging_it(
    fake_server: FakeServerFactory,
) -> None:
    report = (await conform(fake_server, "mistral", 3000, declared=None)).report
    assert report.check("window").verdict == "n/a"
    assert report.check("window").finding.startswith("no claim; measured ≈ 29")
    assert report.window.measured is not None
    assert 0.99 * 3000 <= report.window.measured <= 3000
    assert report.exit_code == 0


async def test_overflow_as_a_500_fails_for_its_shape(fake_server: FakeServerFactory) -> None:
    report = (await conform(fake_server, "llamacpp", 2000, variant="status500")).report
    assert failing(report) == {"overflow_shape"}
    assert "server-error status" in report.check("overflow_shape").finding


async def test_reference_misses_are_reported_but_do_not_fail(
    fake_server: FakeServerFactory,
) -> None:
    report = (await conform(fake_server, "gemini", 2000)).report
    assert report.conforms
    assert [(a.reference, a.extended) for a in report.overflow] == [(False, True)]
    assert "reference no" in report.check("overflow_recognised").finding


async def test_persistent_throttling_stops_the_search_instead_of_faking_a_window(
    fake_server: FakeServerFactory,
) -> None:
    normal = FakeBehaviour()
    script = FakeScript((normal,) * 5, default=fail("rate_limit", retry_after=2))
    result = await conform(fake_server, "openai", 2000, script=script)
    report = result.report
    assert report.window.stopped == "rate_limited"
    assert report.check("window").verdict == "inconclusive"
    assert report.check("look_alike").verdict == "pass"  # a 429 that reads as a 429
    assert report.check("recovery").finding.startswith("not run")
    assert result.sleeps.waits == [2.0, 2.0]  # retried twice, then given up
    assert report.exit_code == 1


async def test_throttled_pairing_probes_give_no_pairing_verdict(
    fake_server: FakeServerFactory,
) -> None:
    script = FakeScript((FakeBehaviour(),), default=fail("rate_limit", retry_after=0))
    report = (await conform(fake_server, "openai", 2000, script=script)).report
    assert [p.outcome for p in report.pairing] == ["throttled", "throttled"]
    assert report.check("tool_pairing").verdict == "inconclusive"
    assert report.check("small_request").verdict == "pass"
