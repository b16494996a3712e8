"""The call events of one forwarded exchange (``harness.proxy.calls``): outcomes named as
the agent's loop names them, usage as the wire decoder reads it, nothing for a client that
left. (Held equal to the agent's own series end to end in ``test_call_series``.)"""

from __future__ import annotations

import json

import pytest

from harness.agent.loop import _outcome_of
from harness.events import CallOutcome, EventSource
from harness.providers.overflow.errors import (
    ContextWindowExceeded,
    ProviderError,
    ProviderProtocolError,
    ProviderRequestRejected,
    ProviderServerError,
    ProviderTimeout,
    RateLimited,
)
from harness.proxy import Traffic
from harness.proxy.calls import NO_ANSWER, call_events, outcome_of
from harness.wire import DecodedAnswer, ObservedCall, WireExchange, decode_answer

ERRORS: list[ProviderError] = [
    ContextWindowExceeded("p", 400, "", error_type="x"),
    RateLimited("p", 429, "", retry_after_s=None),
    ProviderServerError("p", 500, ""),
    ProviderTimeout("p", None, ""),
    ProviderProtocolError("p", None, ""),
    ProviderRequestRejected("p", 400, ""),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_a_failed_attempt_is_named_as_the_agents_loop_names_it(error: ProviderError) -> None:
    assert outcome_of(error) == _outcome_of(error)


ANTHROPIC_ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [{"type": "text", "text": "Hello."}],
    "stop_reason": "end_turn",
    "usage": {
        "input_tokens": 12,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 300,
        "output_tokens": 5,
    },
}


def _exchange(status: int | None, body: bytes) -> WireExchange:
    return WireExchange(
        wire="anthropic", method="POST", path="/v1/messages", request_headers={},
        request_body=b"{}", status=status, response_body=body,
    )  # fmt: skip


def _call(exchange: WireExchange) -> ObservedCall:
    body, status = exchange.response_body, exchange.status
    answer = decode_answer("anthropic", status, body, streamed=False) if body and status else None
    return ObservedCall("s", 3, "claude-x", answer or DecodedAnswer())


def test_an_answer_reports_its_usage_cache_reads_and_writes_included() -> None:
    exchange = _exchange(200, json.dumps(ANTHROPIC_ANSWER).encode())
    traffic = Traffic(outcome="answered", request_bytes=2, response_bytes=9, duration_s=0.25)
    events = call_events(exchange, _call(exchange), traffic, provider="claude", at=100.0)
    assert events is not None
    started, finished = events
    assert (started.call_id, started.at, started.source) == ("s:3", 99.75, EventSource.WIRE)
    assert (finished.outcome, finished.duration_s, finished.provider) == ("ok", 0.25, "claude")
    usage = (finished.input_tokens, finished.cache_read_input_tokens,
             finished.cache_creation_input_tokens, finished.output_tokens)  # fmt: skip
    assert usage == (1312, 1000, 300, 5)
    assert finished.finish_reasons == ("end_turn",)


def test_an_error_answer_is_typed_from_its_body_and_reports_no_usage() -> None:
    body = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    exchange = _exchange(429, json.dumps(body).encode())
    traffic = Traffic(outcome="answered", request_bytes=2, response_bytes=9)
    events = call_events(exchange, _call(exchange), traffic, provider=None, at=1.0)
    assert events is not None
    finished = events[1]
    assert (finished.outcome, finished.error_type) == (CallOutcome.RATE_LIMITED, "rate_limited")
    reported = (finished.input_tokens, finished.provider, finished.status_code)
    assert reported == (None, "anthropic", 429)


@pytest.mark.parametrize("outcome", list(NO_ANSWER))
def test_an_exchange_without_an_answer_is_a_failed_call(outcome: str) -> None:
    exchange = _exchange(None, b"")
    traffic = Traffic(outcome=outcome, request_bytes=2, response_bytes=0)  # type: ignore[arg-type]
    events = call_events(exchange, _call(exchange), traffic, provider=None, at=1.0)
    assert events is not None
    assert (events[1].outcome, events[1].error_type) == NO_ANSWER[outcome]  # type: ignore[index]


def test_a_client_that_left_has_no_call_events() -> None:
    exchange = _exchange(None, b"")
    traffic = Traffic(outcome="client_left", request_bytes=2, response_bytes=0)
    assert call_events(exchange, _call(exchange), traffic, provider=None, at=1.0) is None
