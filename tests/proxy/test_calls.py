"""The call events of one forwarded exchange (``harness.proxy.calls``): outcomes named as
the agent's loop names them, usage as the wire decoder reads it, nothing for a client that
left. (Held equal to the agent's own series end to end in ``test_call_series``.)"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from harness.agent import LoopConfig, Route, RouteTable, SessionSpec, open_agent
from harness.events import CallOutcome, Event, EventBus, EventSource, ProviderCallFinished
from harness.providers import ProviderReply, ProviderRequest
from harness.providers.overflow.errors import (
    ContextWindowExceeded,
    ProviderError,
    ProviderProtocolError,
    ProviderRequestRejected,
    ProviderServerError,
    ProviderTimeout,
    RateLimited,
)
from harness.providers.overflow.failures import transport_error
from harness.proxy import Traffic
from harness.proxy.calls import NO_ANSWER, call_events, outcome_of
from harness.runtime import HarnessError, ProviderProfile, RuntimeProfile
from harness.wire import DecodedAnswer, ObservedCall, WireExchange, decode_answer

REFUSED = transport_error("p", httpx.ConnectError("connection refused"))
"""A server error to retries, counted as a refused connection (``connect_error``)."""
ERRORS: list[ProviderError] = [
    ProviderError("p", 418, ""),
    ContextWindowExceeded("p", 400, "", error_type="x"),
    RateLimited("p", 429, "", retry_after_s=None),
    ProviderServerError("p", 500, ""),
    REFUSED,
    ProviderTimeout("p", None, ""),
    ProviderProtocolError("p", None, ""),
    ProviderRequestRejected("p", 400, ""),
]


def _every_subclass(cls: type[ProviderError]) -> set[type[ProviderError]]:
    return {cls}.union(*(_every_subclass(sub) for sub in cls.__subclasses__()))


def test_the_named_errors_are_one_of_every_provider_error_class() -> None:
    assert {type(error) for error in ERRORS} == _every_subclass(ProviderError)


class _Failing:
    """A client whose every attempt fails with ``error``: the loop's side of the naming."""

    provider_kind = "openai"

    def __init__(self, error: ProviderError) -> None:
        self.error = error

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        raise self.error


class _Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)


async def _at_once(_: float) -> None:
    return None


def _loop_outcome(error: ProviderError) -> CallOutcome:
    """How the agent's loop names its first attempt failing with ``error``."""
    config = LoopConfig(
        profile=RuntimeProfile(max_context_tokens=100_000),
        routes=RouteTable(
            {"openai": {"main": ProviderProfile("m", 100_000)}}, Route("openai.main")
        ),
        clients={"openai.main": _Failing(error)},
        sleep=_at_once,
    )
    recorder = _Recorder()
    agent = open_agent(SessionSpec(config, EventBus(observers=(recorder,), strict=True), "s"))
    with pytest.raises(HarnessError):
        asyncio.run(agent.turn("hello"))
    first = next(e for e in recorder.events if isinstance(e, ProviderCallFinished))
    return first.outcome


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: f"{type(e).__name__}-{e.counted_as}")
def test_a_failed_attempt_is_named_as_the_agents_loop_names_it(error: ProviderError) -> None:
    assert outcome_of(error) == _loop_outcome(error)


def test_a_refused_connection_is_counted_as_such_by_the_proxy_and_the_loop() -> None:
    """The drift this fixes: the loop said ``connect_error``, the proxy ``server_error``."""
    assert outcome_of(REFUSED) == _loop_outcome(REFUSED) == CallOutcome.CONNECT_ERROR


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
