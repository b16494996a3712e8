"""Tool pairing is judged only on answers about tool pairing; the row shapes the runtime
replays are checked on their own; a server still loading is waited for, within a bound."""

from __future__ import annotations

import pytest

from fakes import FakeBehaviour, FakeScript, fail
from fakes.pytest_plugin import FakeServerFactory
from fakes.serving.faults import SERVER_ERROR_TEXT
from fakes.wire.openai_chat import ORPHAN_TOOL
from harness.conformance import EndpointUnusable, Redactor, plan, run_conformance
from harness.conformance.checks import pairing_outcome
from harness.conformance.payloads import orphan_result_request
from harness.conformance.probes import UNAVAILABLE_MAX_WAIT_S, Sent
from harness.providers import ProviderRequestRejected, ProviderServerError, RateLimited
from tests.conformance.support import ALL_PASS, Sleeps, conform, options, serve

pytestmark = pytest.mark.anyio

OK = FakeBehaviour()


def _sent(error: Exception) -> Sent:
    request = orphan_result_request("m")
    assert isinstance(error, ProviderRequestRejected | ProviderServerError | RateLimited)
    return Sent(request, 95, error=error)


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        (ProviderRequestRejected("openai", 400, ORPHAN_TOOL), "rejected"),
        (ProviderRequestRejected("anthropic", 400, "unexpected `tool_use_id` found"), "rejected"),
        (ProviderRequestRejected("openai", 404, "The model `m` does not exist"), "failed"),
        (ProviderRequestRejected("openai", 401, "Incorrect API key provided"), "failed"),
        (ProviderServerError("llamacpp", 500, "tool_call content must not be null"), "failed"),
        (RateLimited("openai", 429, "slow down", retry_after_s=None), "throttled"),
    ],
)
def test_only_a_4xx_about_tool_calls_is_a_pairing_rejection(error: Exception, outcome: str) -> None:
    assert pairing_outcome("orphan_tool_result", _sent(error), Redactor(None)).outcome == outcome


async def test_a_server_error_to_the_pairing_probes_is_inconclusive_with_the_body_shown(
    fake_server: FakeServerFactory,
) -> None:
    script = FakeScript((OK, fail("server_error"), fail("server_error")))
    report = (await conform(fake_server, "openai", 2000, script=script)).report
    assert [p.outcome for p in report.pairing] == ["failed", "failed"]
    check = report.check("tool_pairing")
    assert check.verdict == "inconclusive"
    assert "failed for another reason than pairing" in check.finding
    assert "orphan_tool_result: HTTP 500 '" in check.finding
    assert SERVER_ERROR_TEXT[:40] in check.finding
    assert report.verdicts() == ALL_PASS | {"tool_pairing": "inconclusive"}


async def test_a_server_error_to_a_content_null_call_row_fails_the_row_shape_check(
    fake_server: FakeServerFactory,
) -> None:
    """What llama-cpp-python does: 500 to an assistant row with ``content: null`` and
    ``tool_calls``, which OpenAI accepts and the runtime sends for every tool-only turn."""
    script = FakeScript((OK, OK, OK, fail("server_error")))
    result = await conform(fake_server, "openai", 2000, script=script)
    report = result.report
    assert report.verdicts() == ALL_PASS | {"row_shapes": "fail"}
    assert [(p.probe, p.outcome, p.status) for p in report.row_shapes] == [
        ("row_shape_null", "failed", 500),
        ("row_shape_empty", "accepted", 200),
    ]
    finding = report.check("row_shapes").finding
    assert finding.startswith("a tool-call-only assistant row with content null is refused")
    assert "(HTTP 500 '" in finding
    null_call, empty_call = (c.request_body for c in result.fake.log.calls()[3:5])
    assert isinstance(null_call, dict)
    assert isinstance(empty_call, dict)
    assert _third_row(null_call)["content"] is None
    assert _third_row(empty_call)["content"] == ""


async def test_both_row_shapes_accepted_pass(fake_server: FakeServerFactory) -> None:
    report = (await conform(fake_server, "anthropic", 2000)).report
    assert report.check("row_shapes").verdict == "pass"
    assert [p.outcome for p in report.row_shapes] == ["accepted", "accepted"]


async def test_a_server_still_loading_is_waited_for(fake_server: FakeServerFactory) -> None:
    loading = fail("server_error", status=503)
    result = await conform(fake_server, "llamacpp", 2000, script=FakeScript((loading, loading)))
    assert result.report.verdicts() == ALL_PASS | {"look_alike": "pass"}
    assert result.sleeps.waits == [1.0, 2.0]


async def test_a_server_that_never_finishes_loading_is_given_up_on_within_the_bound(
    fake_server: FakeServerFactory,
) -> None:
    script = FakeScript(default=fail("server_error", status=503))
    running, base_url = serve(fake_server, "llamacpp", 2000, script=script)
    sleeps = Sleeps()
    with pytest.raises(EndpointUnusable, match="llamacpp: HTTP 503: "):
        await run_conformance(plan(options("llamacpp", base_url, declared=2000)), sleep=sleeps)
    assert sum(sleeps.waits) == UNAVAILABLE_MAX_WAIT_S
    assert sleeps.waits == [1.0, 2.0, 4.0, 8.0, 16.0, 16.0, 13.0]
    assert len(running.fake.log.calls()) == len(sleeps.waits) + 1


def _third_row(body: object) -> dict[str, object]:
    """The third chat message of a logged request body (the tool-call-only assistant row)."""
    assert isinstance(body, dict)
    messages = body["messages"]
    assert isinstance(messages, list)
    row = messages[2]
    assert isinstance(row, dict)
    return row
