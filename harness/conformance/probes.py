"""Sending probes: one logical probe may take several requests (a 429 is waited out and
retried), and every outcome is kept, error included, for the checks to judge.

The small request, the two tool-pairing requests and the streamed overflow request live
here; the window search and the recovery session have their own modules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from harness.conformance.budget import BudgetExhausted, request_cost
from harness.conformance.metered import MeteredClient
from harness.conformance.payloads import (
    orphan_result_request,
    sized_request,
    small_request,
    unanswered_call_request,
)
from harness.providers import ProviderError, ProviderReply, ProviderRequest, RateLimited

Sleep = Callable[[float], Awaitable[None]]

RATE_LIMIT_RETRIES: Final = 2
"""A 429 is retried at most twice, after its ``retry-after`` (the runtime's default)."""
MAX_RETRY_WAIT_S: Final = 30.0
DEFAULT_RETRY_WAIT_S: Final = 1.0
TOO_MANY_REQUESTS: Final = 429


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


class Prober:
    """Sends probes through the metered client; ``sleep`` waits out 429s."""

    def __init__(self, client: MeteredClient, model: str, sleep: Sleep) -> None:
        self.client = client
        self.model = model
        self._sleep = sleep

    async def send(self, request: ProviderRequest, purpose: str) -> Sent:
        """One probe; ``BudgetExhausted`` propagates (nothing was sent)."""
        self.client.purpose = purpose
        estimate = request_cost(request)
        last: ProviderError | None = None
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            try:
                reply = await self.client.complete(request)
            except BudgetExhausted:
                if last is None:
                    raise
                return Sent(request, estimate, error=last)  # the retry was not affordable
            except ProviderError as error:
                last = error
                if is_rate_limit(error) and attempt < RATE_LIMIT_RETRIES:
                    await self._sleep(_wait_for(error))
                    continue
                return Sent(request, estimate, error=error)
            return Sent(request, estimate, reply=reply)
        raise AssertionError("unreachable: the last attempt returns")

    async def small(self) -> Sent:
        return await self.send(small_request(self.model), "small")

    async def orphan_result(self) -> Sent:
        return await self.send(orphan_result_request(self.model), "pairing_orphan_result")

    async def unanswered_call(self) -> Sent:
        return await self.send(unanswered_call_request(self.model), "pairing_unanswered_call")

    async def sized(self, tokens: int, *, purpose: str, stream: bool = False) -> Sent:
        return await self.send(sized_request(self.model, tokens, stream=stream), purpose)
