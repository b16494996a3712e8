"""The probe budget: at most ``max_requests`` requests and ``max_input_tokens`` input
tokens, enforced in exactly one place, ``Ledger.admit``.

Every request a conformance run sends goes through ``MeteredClient.complete``
(``harness.conformance.metered``), which asks the ledger to admit it *before* a byte is
sent; the agent session of the recovery probe uses the same client. A refused admission
raises ``BudgetExhausted``, which is not a ``ProviderError``: no retry layer and no
classifier sees it, so it ends the probe that asked.

Input tokens are counted in the runtime's own unit: a request is admitted only when the
tokens charged so far plus the request's estimate (``harness.runtime`` estimate of its
messages and tool schemas) fit ``max_input_tokens``. Once the endpoint answers, the request
is charged the larger of its estimate and the input count the endpoint reported, so an
endpoint whose tokenizer counts more than the estimate makes later requests stop sooner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from harness.providers import ProviderRequest
from harness.runtime import HarnessError, estimate_history_tokens, estimate_tool_schema_tokens

DEFAULT_MAX_REQUESTS: Final = 40
DEFAULT_WINDOW_MULTIPLE: Final = 16
"""Without ``--max-input-tokens``: 16 times the declared window (the search, the streamed
overflow and the recovery session together need about ten)."""
DEFAULT_MAX_INPUT_TOKENS_UNCLAIMED: Final = 256_000
"""Without ``--max-input-tokens`` and without ``--context-window``."""


@dataclass(frozen=True, slots=True)
class ProbeBudget:
    max_requests: int
    max_input_tokens: int

    def __post_init__(self) -> None:
        if self.max_requests < 1 or self.max_input_tokens < 1:
            raise ValueError("a probe budget needs at least one request and one token")

    @classmethod
    def resolve(
        cls, max_requests: int | None, max_input_tokens: int | None, declared_window: int | None
    ) -> ProbeBudget:
        """Explicit values win; the token default scales with the declared window."""
        if max_input_tokens is None:
            max_input_tokens = (
                declared_window * DEFAULT_WINDOW_MULTIPLE
                if declared_window
                else DEFAULT_MAX_INPUT_TOKENS_UNCLAIMED
            )
        return cls(max_requests or DEFAULT_MAX_REQUESTS, max_input_tokens)


class BudgetExhausted(HarnessError):
    """A request was not sent: it would have gone past the stated budget."""

    def __init__(self, budget: ProbeBudget, requests: int, tokens: int, wanted: int) -> None:
        self.wanted = wanted
        super().__init__(
            f"probe budget reached: {requests}/{budget.max_requests} requests and "
            f"{tokens}/{budget.max_input_tokens} input tokens spent; the next request needs "
            f"{wanted} more tokens"
        )


def request_cost(request: ProviderRequest) -> int:
    """The runtime's estimate of a request's input: messages plus tool schemas."""
    tools = estimate_tool_schema_tokens(request.tools) if request.tools else 0
    return estimate_history_tokens(request.messages) + tools


class Ledger:
    """What has been spent against one ``ProbeBudget``; not thread-safe (one run, one
    event loop)."""

    def __init__(self, budget: ProbeBudget, on_admit: Callable[[], None] | None = None) -> None:
        self.budget = budget
        self._on_admit = on_admit
        """Told of each admitted request (the command's progress)."""
        self.requests = 0
        self.input_tokens = 0
        """Charged: estimates, raised to the reported count where that was larger."""
        self.estimated_tokens = 0
        self.reported_tokens = 0

    @property
    def remaining_requests(self) -> int:
        return self.budget.max_requests - self.requests

    @property
    def remaining_tokens(self) -> int:
        return self.budget.max_input_tokens - self.input_tokens

    def can_afford(self, tokens: int, requests: int = 1) -> bool:
        return requests <= self.remaining_requests and tokens <= self.remaining_tokens

    def admit(self, tokens: int) -> None:
        """The one gate: count the request, or raise ``BudgetExhausted`` without sending."""
        if not self.can_afford(tokens):
            raise BudgetExhausted(self.budget, self.requests, self.input_tokens, tokens)
        self.requests += 1
        self.input_tokens += tokens
        self.estimated_tokens += tokens
        if self._on_admit is not None:
            self._on_admit()

    def settle(self, estimate: int, reported: int | None) -> None:
        """After a reply: charge the reported input where it exceeds the estimate."""
        if reported is None or reported < 0:
            return
        self.reported_tokens += reported
        if reported > estimate:
            self.input_tokens += reported - estimate
