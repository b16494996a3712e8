"""A forwarded generation call as the events the reference agent emits for its own calls:
``ProviderCallStarted`` then ``ProviderCallFinished`` (``source="wire"``), so the call,
latency, token and cache panels of the existing dashboards fill for a proxied runtime.

What the wire shows, read as the agent reads it:

- usage: the answer's own token counts as the wire decoder reads them (the whole prompt
  as ``input_tokens``, cache reads and writes beside it), the agent's ``Usage`` for the
  same body (a test holds the two series equal);
- outcome and error type: a failed answer (HTTP error, or an error inside a 200 stream) is
  typed by the providers' own ``failure_error`` with the extended classifier (the one the
  proxy judges overflows with) and named as the agent's loop names it; an exchange with no
  answer is a timeout, an unreachable upstream (``connect_error``, as the agent's transport
  names it) or a broken one;
- latency: the proxy's ``duration_s`` (the request's arrival to the answer's end);
- provider: the name the proxy was given for its upstream, else the wire format; model:
  the one the request named (an answer's own model name is not decoded).

Not on the wire, so not claimed: the agent's pre-dispatch estimate and the model's window
(``0``: the utilisation and estimate-accuracy series are the agent's alone), the loop
iteration (the call's number in its session stands in). A client that left before the
answer's end has no call events (``trimscope_proxy_client_disconnects_total`` counts it).

Pure: no I/O, the time is passed in.
"""

from __future__ import annotations

from typing import Final

from harness.events import (
    CallOutcome,
    EventSource,
    ProviderCallFinished,
    ProviderCallStarted,
)
from harness.providers.overflow.errors import ProviderError
from harness.providers.overflow.failures import TIMEOUT_ERROR_TYPE, failure_error
from harness.proxy.sinks import Outcome, Traffic
from harness.wire import DecodedAnswer, ObservedCall, WireExchange

MAX_ERROR_BODY_BYTES: Final = 64 * 1024
"""Of an error answer, the bytes typed (as ``harness.proxy.events`` reads an overflow's)."""
NO_ANSWER: Final[dict[Outcome, tuple[CallOutcome, str]]] = {
    "upstream_timeout": (CallOutcome.TIMEOUT, TIMEOUT_ERROR_TYPE),
    "upstream_unreachable": (CallOutcome.SERVER_ERROR, "connect_error"),
    "upstream_broken": (CallOutcome.PROTOCOL_ERROR, "upstream_broken"),
}
"""An exchange that ended without a whole answer: its outcome and error type."""
FIRST_ERROR_STATUS: Final = 400


def wire_call_name(session: str, call: int) -> str:
    """A wire call's ``call_id``: its session and its 1-based number there."""
    return f"{session}:{call}"


def outcome_of(error: ProviderError) -> CallOutcome:
    """The outcome the error's class declares (``ProviderError.counted_as``), which the
    agent's loop reads too (a test holds the two equal for every error class)."""
    return CallOutcome(error.counted_as)


def call_events(
    exchange: WireExchange, call: ObservedCall, traffic: Traffic, *, provider: str | None, at: float
) -> tuple[ProviderCallStarted, ProviderCallFinished] | None:
    """The call's two events (``at``: when it ended), or ``None`` when the client left
    before its end."""
    if traffic.outcome == "client_left":
        return None
    route, call_id = provider or exchange.wire, wire_call_name(call.session, call.call)
    started = ProviderCallStarted(
        session_id=call.session,
        turn_id=None,
        at=at - traffic.duration_s,
        call_id=call_id,
        provider=route,
        provider_kind=exchange.wire,
        model=call.model,
        iteration=call.call,
        estimate_tokens=0,
        model_context_window=0,
        compacted=False,
        source=EventSource.WIRE,
    )
    outcome, error_type = _outcome(exchange, call, traffic)
    answer = call.answer if outcome is CallOutcome.OK else DecodedAnswer()
    finished = ProviderCallFinished(
        session_id=call.session,
        turn_id=None,
        at=at,
        call_id=call_id,
        provider=route,
        provider_kind=exchange.wire,
        model=call.model,
        outcome=outcome,
        duration_s=traffic.duration_s,
        input_tokens=answer.input_tokens,
        output_tokens=answer.output_tokens,
        cache_read_input_tokens=answer.cached_tokens,
        cache_creation_input_tokens=answer.cache_write_tokens,
        finish_reasons=(answer.stop_reason,) if answer.stop_reason else (),
        error_type=error_type,
        status_code=exchange.status,
        source=EventSource.WIRE,
    )
    return started, finished


def _outcome(
    exchange: WireExchange, call: ObservedCall, traffic: Traffic
) -> tuple[CallOutcome, str | None]:
    """The call's outcome and error type (``None`` for a success), as the agent's
    loop reports a failed attempt; a failure reports no usage there either."""
    no_answer = NO_ANSWER.get(traffic.outcome)
    if no_answer is not None:
        return no_answer
    status, text = exchange.status, call.answer.error_text
    failed_status = status is not None and status >= FIRST_ERROR_STATUS
    if not failed_status and text is None:
        return CallOutcome.OK, None
    if failed_status or text is None:  # an HTTP error is typed from its body, as sent
        text = exchange.response_body[:MAX_ERROR_BODY_BYTES].decode("utf-8", errors="replace")
    error = failure_error(exchange.wire, status if failed_status else None, text)
    return outcome_of(error), error.error_type


__all__ = ["NO_ANSWER", "call_events", "outcome_of", "wire_call_name"]
