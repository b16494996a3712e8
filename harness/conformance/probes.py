"""Sending probes: one logical probe may take several requests (a 429 is waited out and
retried twice; a 503, a server still loading its model, is retried for at most
``UNAVAILABLE_MAX_WAIT_S``), and every outcome is kept, error included, for the checks to
judge.

The small request, the two tool-pairing requests and the streamed overflow request live
here; the window search and the recovery session have their own modules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from harness.conformance.budget import BudgetExhausted, request_cost
from harness.conformance.metered import MeteredClient, describe_status
from harness.conformance.payloads import (
    orphan_result_request,
    sized_request,
    small_request,
    tool_round_request,
    unanswered_call_request,
)
from harness.providers import ProviderError, ProviderReply, ProviderRequest, RateLimited

Sleep = Callable[[float], Awaitable[None]]
Call = Callable[[], Awaitable[ProviderReply]]

RATE_LIMIT_RETRIES: Final = 2
"""A 429 is retried at most twice, after its ``retry-after`` (the runtime's default)."""
MAX_RETRY_WAIT_S: Final = 30.0
DEFAULT_RETRY_WAIT_S: Final = 1.0
TOO_MANY_REQUESTS: Final = 429
SERVICE_UNAVAILABLE: Final = 503
MAX_SHOWN_BODY_CHARS: Final = 500
UNAVAILABLE_MAX_WAIT_S: Final = 60.0
"""A 503 (a model still loading) is retried until one probe has waited this long in all."""
UNAVAILABLE_FIRST_WAIT_S: Final = 1.0
UNAVAILABLE_MAX_STEP_S: Final = 16.0
"""503 waits double from 1 s up to 16 s: about eight requests over the minute, not sixty."""


@dataclass(frozen=True, slots=True)
class Sent:
    """The last answer to one probe: a reply or the error (after any 429 retries)."""

    request: ProviderRequest
    estimate: int
    reply: ProviderReply | None = None
    error: ProviderError | None = None

    @property
    def ok(self) -> bool:
        return self.reply is not None


def is_rate_limit(error: ProviderError) -> bool:
    """A 429 is a throttle whatever its body says (a look-alike is still a throttle)."""
    return isinstance(error, RateLimited) or error.status == TOO_MANY_REQUESTS


def _wait_for(error: ProviderError) -> float:
    advice = error.retry_after_s if isinstance(error, RateLimited) else None
    wait = DEFAULT_RETRY_WAIT_S if advice is None else advice
    return min(max(0.0, wait), MAX_RETRY_WAIT_S)


def describe_failure(error: ProviderError, *, streamed: bool) -> str:
    """What really happened, for people: an HTTP status, an error event inside a stream the
    request asked for, or no HTTP answer at all (refused connection, timeout). The wire
    clients' ``{provider} API error (stream)`` text is kept for the classifiers, which read
    it; it calls every status-less failure a stream error."""
    what = describe_status(error.status, streamed=streamed)
    if error.status is None and not streamed:
        what += f" ({error.error_type.replace('_', ' ')})"
    return f"{error.provider}: {what}: {error.body[:MAX_SHOWN_BODY_CHARS]}"


def is_unavailable(error: ProviderError) -> bool:
    """A 503: the server is up but cannot serve yet (llama.cpp answers ``{"error":
    {"message":"Loading model","type":"unavailable_error","code":503}}`` until its model is
    in memory). Not an answer about the request: waited out, within a bound."""
    return error.status == SERVICE_UNAVAILABLE


@dataclass(slots=True)
class _Retries:
    """What one probe has spent on retries: 429s by count, 503s by time waited."""

    throttled: int = 0
    unavailable: int = 0
    waited_unavailable_s: float = 0.0

    def next_wait(self, error: ProviderError) -> float | None:
        """Seconds to wait before sending again, or ``None`` to give up with ``error``."""
        if is_rate_limit(error):
            if self.throttled >= RATE_LIMIT_RETRIES:
                return None
            self.throttled += 1
            return _wait_for(error)
        if is_unavailable(error):
            left = UNAVAILABLE_MAX_WAIT_S - self.waited_unavailable_s
            if left <= 0:
                return None
            step: float = UNAVAILABLE_FIRST_WAIT_S * 2.0**self.unavailable
            wait = min(step, UNAVAILABLE_MAX_STEP_S, left)
            self.unavailable += 1
            self.waited_unavailable_s += wait
            return wait
        return None


class Prober:
    """Sends probes through the metered client; ``sleep`` waits out 429s."""

    def __init__(self, client: MeteredClient, model: str, sleep: Sleep) -> None:
        self.client = client
        self.model = model
        self._sleep = sleep

    async def send(self, request: ProviderRequest, purpose: str, call: Call | None = None) -> Sent:
        """One probe; ``BudgetExhausted`` propagates (nothing was sent). ``call``, when
        given, sends instead of the wire client (admitted for ``request``'s estimate)."""
        self.client.purpose = purpose
        estimate = request_cost(request)
        retries = _Retries()
        last: ProviderError | None = None
        while True:
            try:
                if call is None:
                    reply = await self.client.complete(request)
                else:
                    reply = await self.client.complete_with(request, call)
            except BudgetExhausted:
                if last is None:
                    raise
                return Sent(request, estimate, error=last)  # the retry was not affordable
            except ProviderError as error:
                last = error
                wait = retries.next_wait(error)
                if wait is None:
                    return Sent(request, estimate, error=error)
                await self._sleep(wait)
                continue
            return Sent(request, estimate, reply=reply)

    async def small(self) -> Sent:
        return await self.send(small_request(self.model), "small")

    async def orphan_result(self) -> Sent:
        return await self.send(orphan_result_request(self.model), "pairing_orphan_result")

    async def unanswered_call(self) -> Sent:
        return await self.send(unanswered_call_request(self.model), "pairing_unanswered_call")

    async def tool_round(self, call_text: str | None) -> Sent:
        shape = "null" if call_text is None else "empty"
        return await self.send(tool_round_request(self.model, call_text), f"row_shape_{shape}")

    async def sized(self, tokens: int, *, purpose: str, stream: bool = False) -> Sent:
        return await self.send(sized_request(self.model, tokens, stream=stream), purpose)
