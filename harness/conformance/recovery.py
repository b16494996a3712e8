"""The runtime's reactive recovery, end to end against the endpoint.

One ``harness.agent.Agent`` session is seeded with a history estimated past the real
window (``PUSH_FACTOR`` times the smallest size that did not fit) and asked one question.
The agent is configured so that only reactive recovery can save the turn:

- ``max_context_tokens = 0``: no proactive or reported-usage trim;
- the route's window is twice the pushed size, so the pre-dispatch capacity check lets the
  over-window request through (this probe tests recovery, not the proactive rules);
- the ``extended`` classifier, the runtime's default.

Recovery *works* when the endpoint's answer was detected as an overflow, the runtime trimmed
(to 2/3 of the estimate, as many times as it needs) and the turn ended with an answer.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from harness.agent import Agent, Classifier, LoopConfig, Route, RouteTable, SessionSpec, open_agent
from harness.conformance.budget import BudgetExhausted, Ledger
from harness.conformance.metered import MeteredClient, Redactor
from harness.conformance.payloads import PROBE_MAX_TOKENS, QUESTION, recovery_history
from harness.conformance.probes import Sleep, describe_failure
from harness.events import (
    Event,
    EventBus,
    HistoryTrimmed,
    Observer,
    OverflowDetected,
    RecoveryAttempted,
)
from harness.providers import ProviderError
from harness.runtime import HarnessError, ProviderProfile, RuntimeProfile, estimate_history_tokens

PUSH_FACTOR: Final = 1.3
COST_FACTOR: Final = PUSH_FACTOR * (1 + 2 / 3)
"""What the window search keeps back for the session, as a multiple of the smallest size
that did not fit: the pushed call and one recovery at 2/3, exactly what ``affordable``
asks before the session runs. One recovery is what a window found to 1 % needs (2/3 of
1.3 x the miss fits); reserving for a second one cost the search its last bisection
steps and left right claims unsettled."""
HISTORY_CAP: Final = 1000
"""The turn limit is not under test: high enough never to drop the seeded turns."""
ROUTE: Final = "conformance.endpoint"


@dataclass(frozen=True, slots=True)
class RecoveryResult:
    ran: bool
    pushed_tokens: int = 0
    answered: bool = False
    overflows_detected: int = 0
    recoveries: tuple[str, ...] = ()
    """``RecoveryAttempted.outcome`` of each attempt, in order."""
    trims: int = 0
    provider_calls: int = 0
    error: str | None = None
    stopped_by_budget: bool = False
    note: str = ""

    @property
    def works(self) -> bool:
        return self.answered and self.overflows_detected > 0 and "retrying" in self.recoveries


@dataclass(slots=True)
class _Collector:
    events: list[Event] = field(default_factory=list)

    def on_event(self, event: Event) -> None:
        self.events.append(event)


def push_size(not_fitting: int) -> int:
    return int(not_fitting * PUSH_FACTOR) + 1


def affordable(ledger: Ledger, pushed: int) -> bool:
    """At least the over-window call and one call at 2/3 of it."""
    return ledger.can_afford(pushed + (pushed * 2) // 3, requests=2)


def _agent(client: MeteredClient, model: str, pushed: int, bus: EventBus, sleep: Sleep) -> Agent:
    routes = RouteTable(
        {"conformance": {"endpoint": ProviderProfile(model, pushed * 2)}}, Route(ROUTE)
    )
    config = LoopConfig(
        profile=RuntimeProfile(max_context_tokens=0, max_history_messages=HISTORY_CAP),
        routes=routes,
        clients={ROUTE: client},
        classifier=Classifier.EXTENDED,
        max_output_tokens=PROBE_MAX_TOKENS,
        sleep=sleep,
    )
    return open_agent(SessionSpec(config, bus, "conformance-recovery", clock=time.monotonic))


async def run_recovery(
    client: MeteredClient,
    model: str,
    not_fitting: int,
    *,
    sleep: Sleep,
    redact: Redactor,
    observers: Sequence[Observer] = (),
) -> RecoveryResult:
    """Seed, ask, and report what the runtime did (``BudgetExhausted`` is a result too)."""
    pushed = push_size(not_fitting)
    collector = _Collector()
    bus = EventBus(observers=(collector, *observers))
    agent = _agent(client, model, pushed, bus, sleep)
    history = recovery_history(pushed)
    agent.seed_conversation_history(history)
    client.purpose = "recovery"
    calls_before = len(client.exchanges)
    answered, error = False, None
    failure: HarnessError | None = None
    try:
        answered = await agent.turn(QUESTION) is not None
    except ProviderError as exc:  # a provider error the runtime gave up on
        error, failure = redact.excerpt(describe_failure(exc, streamed=False)), exc
    except HarnessError as exc:  # the budget, or a rule the runtime enforces
        error, failure = redact.excerpt(str(exc)), exc
    return RecoveryResult(
        ran=True,
        pushed_tokens=estimate_history_tokens(history),
        answered=answered,
        overflows_detected=sum(
            isinstance(e, OverflowDetected) and e.extended_verdict for e in collector.events
        ),
        recoveries=tuple(e.outcome for e in collector.events if isinstance(e, RecoveryAttempted)),
        trims=sum(isinstance(e, HistoryTrimmed) for e in collector.events),
        provider_calls=len(client.exchanges) - calls_before,
        error=error,
        stopped_by_budget=isinstance(failure, BudgetExhausted),
    )
