"""Every error class, through every client; catalogue bodies through the real clients."""

import dataclasses
from datetime import timedelta
from email.utils import format_datetime

import httpx
import pytest

from harness.providers import (
    PROVIDER_KINDS,
    Classifier,
    ContextWindowExceeded,
    ProviderError,
    ProviderProtocolError,
    ProviderReply,
    ProviderRequestRejected,
    ProviderServerError,
    ProviderTimeout,
    RateLimited,
    classify_overflow,
    failure_error,
    is_context_window_stop,
    parse_retry_after,
)
from tests.providers.catalogue import ALL_CASES, Case
from tests.providers.support import FIXED_NOW, REQUEST, Handler, answer, raising, run, sse_answer

pytestmark = pytest.mark.anyio

# ---------------------------------------------------------------- retry-after


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("1.5", 1.5),
        ("0", 0.0),
        (format_datetime(FIXED_NOW + timedelta(seconds=90), usegmt=True), 90.0),
        (format_datetime(FIXED_NOW - timedelta(seconds=90), usegmt=True), 0.0),
        ("Sun, 30 Nov 2026 12:01:00 -0000", 60.0),
        ("-5", None),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now=FIXED_NOW) == expected


async def test_rate_limit_honours_retry_after_seconds() -> None:
    error, _ = await run(
        "openai", answer(429, {"error": {"message": "slow"}}, {"retry-after": "7"})
    )
    assert isinstance(error, RateLimited)
    assert (error.status, error.retry_after_s, error.error_type) == (429, 7.0, "rate_limited")


async def test_rate_limit_honours_retry_after_http_date() -> None:
    when = format_datetime(FIXED_NOW + timedelta(seconds=30), usegmt=True)
    error, _ = await run("anthropic", answer(429, {"type": "error"}, {"retry-after": when}))
    assert isinstance(error, RateLimited)
    assert error.retry_after_s == 30.0


async def test_retry_after_ms_wins_over_retry_after() -> None:
    headers = {"retry-after": "2", "retry-after-ms": "1500"}
    error, _ = await run("openai", answer(429, {"error": {}}, headers))
    assert isinstance(error, RateLimited)
    assert error.retry_after_s == 1.5


# ---------------------------------------------------------------- every class, every client

CLIENT_KINDS = PROVIDER_KINDS


@pytest.mark.parametrize("kind", CLIENT_KINDS)
async def test_429_is_rate_limited(kind: str) -> None:
    error, _ = await run(
        kind, answer(429, {"error": {"message": "slow down"}}, {"retry-after": "3"})
    )
    assert isinstance(error, RateLimited)
    assert error.retry_after_s == 3.0


@pytest.mark.parametrize("kind", CLIENT_KINDS)
@pytest.mark.parametrize("status", [500, 502, 503, 529])
async def test_5xx_is_a_server_error(kind: str, status: int) -> None:
    error, _ = await run(kind, answer(status, "<html>bad gateway</html>"))
    assert isinstance(error, ProviderServerError)
    assert (error.status, error.error_type) == (status, "server_error")


@pytest.mark.parametrize("kind", CLIENT_KINDS)
async def test_other_4xx_is_rejected(kind: str) -> None:
    error, _ = await run(kind, answer(401, {"error": {"message": "bad key"}}))
    assert isinstance(error, ProviderRequestRejected)
    assert (error.status, error.error_type) == (401, "http_401")


@pytest.mark.parametrize("kind", CLIENT_KINDS)
@pytest.mark.parametrize("exc", [httpx.ReadTimeout, httpx.ConnectTimeout, httpx.PoolTimeout])
async def test_httpx_timeouts_are_provider_timeouts(
    kind: str, exc: type[httpx.TimeoutException]
) -> None:
    error, _ = await run(kind, raising(exc))
    assert isinstance(error, ProviderTimeout)
    assert (error.status, error.error_type) == (None, "timeout")


@pytest.mark.parametrize("kind", CLIENT_KINDS)
async def test_unreachable_server_is_a_server_error(kind: str) -> None:
    error, _ = await run(kind, raising(httpx.ConnectError))
    assert isinstance(error, ProviderServerError)
    assert error.error_type == "connect_error"


@pytest.mark.parametrize("kind", CLIENT_KINDS)
@pytest.mark.parametrize("body", ["{not json", '{"unexpected": 1}', "[]", '"text"'])
async def test_malformed_or_misshapen_200_is_a_protocol_error(kind: str, body: str) -> None:
    error, _ = await run(kind, answer(200, body))
    assert isinstance(error, ProviderProtocolError)
    assert error.status == 200
    assert body in error.body


@pytest.mark.parametrize("kind", ["anthropic", "openai-responses"])
async def test_malformed_body_on_a_streaming_request_is_a_protocol_error(kind: str) -> None:
    error, _ = await run(kind, answer(200, '{"id": 1}'), dataclasses.replace(REQUEST, stream=True))
    assert isinstance(error, ProviderProtocolError)


@pytest.mark.parametrize("kind", ["anthropic", "openai-responses"])
async def test_json_error_body_on_a_streaming_request_is_classified(kind: str) -> None:
    body = {"error": {"message": "This model's maximum context length is 10 tokens."}}
    error, _ = await run(kind, answer(200, body), dataclasses.replace(REQUEST, stream=True))
    assert isinstance(error, ContextWindowExceeded)
    assert error.status == 200


@pytest.mark.parametrize("kind", ["openai", "openrouter", "groq", "ollama-openai"])
async def test_200_body_with_an_error_object_is_never_a_reply(kind: str) -> None:
    body = {"error": {"code": 502, "message": "Provider returned error", "metadata": {}}}
    error, _ = await run(kind, answer(200, body))
    assert isinstance(error, ProviderServerError)
    assert error.status == 200


async def test_200_choice_error_is_never_a_reply() -> None:
    body = {
        "choices": [{"error": {"code": 429, "message": "upstream busy"}, "finish_reason": "error"}]
    }
    error, _ = await run("openrouter", answer(200, body))
    assert isinstance(error, RateLimited)


# ---------------------------------------------------------------- the catalogue, end to end


def _handler(case: Case) -> Handler:
    if case.shape == "stream":
        return sse_answer([("error", case.body)])
    return answer(case.status or 200, case.body)


CLIENT_CASES = [c for c in ALL_CASES if c.client_kind is not None and c.shape != "reply"]


@pytest.mark.parametrize("case", CLIENT_CASES, ids=lambda c: c.id)
async def test_catalogue_answer_through_its_client_carries_every_verdict(case: Case) -> None:
    """The client's error class follows ``extended``; each classifier's verdict is on the
    error once, and the configured classifier decides from it."""
    assert case.client_kind is not None
    request = dataclasses.replace(REQUEST, stream=case.shape == "stream")
    error, _ = await run(case.client_kind, _handler(case), request)
    assert isinstance(error, ProviderError)
    assert (error.reference_verdict, error.extended_verdict) == (case.reference, case.extended)
    assert Classifier.REFERENCE.decides(error.verdicts) is case.reference
    assert Classifier.EXTENDED.decides(error.verdicts) is case.extended
    if case.extended:
        assert isinstance(error, ContextWindowExceeded)
        assert error.status == case.status
    else:
        expected = RateLimited if case.status == 429 else ProviderRequestRejected
        assert isinstance(error, expected)


async def test_context_window_stop_reply_through_the_client() -> None:
    case = next(c for c in ALL_CASES if c.shape == "reply")
    reply, _ = await run("anthropic", answer(200, case.body))
    assert isinstance(reply, ProviderReply)
    assert is_context_window_stop(reply.finish_reason)


@pytest.mark.parametrize(
    ("case_id", "error_type"),
    [
        ("openai-chat", "context_length_exceeded"),
        ("llamacpp", "exceed_context_size_error"),
        ("deepseek", "invalid_request_error"),
        ("mistral", "3051"),
        ("anthropic", "invalid_request_error"),
        ("gemini", "INVALID_ARGUMENT"),
        ("vllm", "BadRequestError"),
        ("openrouter", "context_window_exceeded"),
        ("cohere", "context_window_exceeded"),
        ("xai", "context_window_exceeded"),
    ],
)
def test_overflow_error_type_is_the_providers_code_or_a_stable_name(
    case_id: str, error_type: str
) -> None:
    case = next(c for c in ALL_CASES if c.id == case_id)
    error = failure_error(case.provider, case.status, case.body)
    assert isinstance(error, ContextWindowExceeded)
    assert error.error_type == error_type


def test_reference_classifier_calls_the_bedrock_throttle_an_overflow() -> None:
    case = next(c for c in ALL_CASES if c.id == "bedrock-throttle")
    error = failure_error("bedrock", 429, case.body)
    assert isinstance(error, RateLimited)  # the class follows `extended`
    assert (error.reference_verdict, error.extended_verdict) == (True, False)
    assert Classifier.REFERENCE.decides(error.verdicts)
    assert not Classifier.EXTENDED.decides(error.verdicts)


def test_every_error_carries_the_verdicts_classify_overflow_gives() -> None:
    for case in ALL_CASES:
        error = failure_error(case.provider, case.status, case.body)
        assert error.verdicts == classify_overflow(case.provider, case.status, case.body)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ('{"type":"error","error":{"type":"rate_limit_error","message":"x"}}', RateLimited),
        (
            '{"type":"error","error":{"type":"invalid_request_error","message":"x"}}',
            ProviderRequestRejected,
        ),
        ('{"type":"error","error":{"type":"overloaded_error","message":"x"}}', ProviderServerError),
        ('{"type":"error","code":"server_error","message":"x"}', ProviderServerError),
        ('{"type":"error","error":{"code":429,"message":"x"}}', RateLimited),
    ],
)
def test_in_stream_errors_are_typed_by_their_own_type(data: str, expected: type) -> None:
    assert isinstance(failure_error("p", None, data), expected)


def test_rendered_error_cuts_the_body_at_500_characters() -> None:
    error = failure_error("openai", 400, "x" * 600)
    assert str(error) == "openai API error (400): " + "x" * 500
    assert error.body == "x" * 600
