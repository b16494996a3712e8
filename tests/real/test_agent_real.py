"""The reference runtime against a real model: the Agent, on a real llama.cpp server with a
512-token context, trims proactively, refuses a request that cannot fit before sending it,
and recovers from the server's real overflow; the events and the Prometheus metrics say so.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import httpx
import pytest
from prometheus_client import CollectorRegistry

from harness.agent import Agent, Classifier, LoopConfig, Route, RouteTable
from harness.conformance.payloads import recovery_history
from harness.events import (
    CapacityChecked,
    Event,
    EventBus,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    RecoveryAttempted,
)
from harness.providers import make_client
from harness.runtime import ContextCapacityExceeded, ProviderProfile, RuntimeProfile
from harness.telemetry import PrometheusObserver
from tests.real.server import ALIAS, RealServer

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

ROUTE = "llama.smollm2"
MAX_OUTPUT = 8
QUESTION = "Reply with the word OK."


@dataclass
class Collect:
    events: list[Event] = field(default_factory=list)

    def on_event(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type[Event]) -> list[Event]:
        return [e for e in self.events if isinstance(e, kind)]


@dataclass
class Run:
    agent: Agent
    seen: Collect
    registry: CollectorRegistry
    sent: list[httpx.Request]


@pytest.fixture
async def http() -> AsyncIterator[tuple[httpx.AsyncClient, list[httpx.Request]]]:
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    async with httpx.AsyncClient(timeout=120.0, event_hooks={"request": [record]}) as client:
        yield client, sent


def _run(
    server: RealServer,
    http: tuple[httpx.AsyncClient, list[httpx.Request]],
    *,
    budget: int,
    window: int,
) -> Run:
    client, sent = http
    wire = make_client("llamacpp", client=client, base_url=server.url + "/v1", api_key=None)
    provider, model = ROUTE.split(".")
    routes = RouteTable({provider: {model: ProviderProfile(ALIAS, window)}}, Route(ROUTE))
    config = LoopConfig(
        profile=RuntimeProfile(max_context_tokens=budget, max_history_messages=1000),
        routes=routes,
        clients={ROUTE: wire},
        classifier=Classifier.EXTENDED,
        max_output_tokens=MAX_OUTPUT,
    )
    seen, registry = Collect(), CollectorRegistry()
    bus = EventBus(strict=True)
    bus.subscribe(seen)
    bus.subscribe(PrometheusObserver(registry))
    counter = itertools.count(1)
    agent = Agent(
        config, bus=bus, clock=time.monotonic,
        ids=lambda prefix: f"{prefix}-{next(counter)}", session_id="real-model",
    )  # fmt: skip
    return Run(agent, seen, registry, sent)


def _total(registry: CollectorRegistry, name: str, **labels: str) -> float:
    return sum(
        sample.value
        for metric in registry.collect()
        for sample in metric.samples
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
    )


def _triggers(events: Sequence[Event]) -> list[str]:
    return [e.trigger for e in events if isinstance(e, HistoryTrimmed)]


async def test_proactive_trim_keeps_a_long_history_inside_the_real_window(
    llama_512: RealServer, http: tuple[httpx.AsyncClient, list[httpx.Request]]
) -> None:
    run = _run(llama_512, http, budget=300, window=llama_512.context)
    run.agent.seed_conversation_history(recovery_history(900))
    answer = await run.agent.turn(QUESTION)
    assert answer is not None
    assert _triggers(run.seen.events) == ["proactive"]
    trim = run.seen.of(HistoryTrimmed)[0]
    assert isinstance(trim, HistoryTrimmed)
    assert trim.tokens_before is not None
    assert trim.tokens_after is not None
    assert trim.tokens_after <= 300 < trim.tokens_before
    finished = run.seen.of(ProviderCallFinished)
    assert [e.outcome for e in finished if isinstance(e, ProviderCallFinished)] == ["ok"]
    call = finished[0]
    assert isinstance(call, ProviderCallFinished)
    assert call.input_tokens is not None
    assert call.input_tokens < llama_512.context  # what the real tokenizer counted
    assert _total(run.registry, "trimscope_history_trims_total", trigger="proactive") == 1


async def test_a_newest_turn_past_the_window_is_refused_before_dispatch(
    llama_512: RealServer, http: tuple[httpx.AsyncClient, list[httpx.Request]]
) -> None:
    run = _run(llama_512, http, budget=300, window=llama_512.context)
    with pytest.raises(ContextCapacityExceeded):
        await run.agent.turn("river stone maple " * 200)
    checks = [e for e in run.seen.of(CapacityChecked) if isinstance(e, CapacityChecked)]
    assert [c.fits for c in checks] == [False]
    assert checks[0].estimate_tokens > checks[0].model_context_window == llama_512.context
    assert run.sent == []  # nothing reached the server
    assert _total(run.registry, "trimscope_capacity_refusals_total") == 1


async def test_reactive_recovery_on_the_real_overflow(
    llama_512: RealServer, http: tuple[httpx.AsyncClient, list[httpx.Request]]
) -> None:
    """No proactive budget (0) and a route window claiming twice the real one, so the
    over-window request is sent and only the server's real 400 can save the turn."""
    run = _run(llama_512, http, budget=0, window=2 * 900)
    run.agent.seed_conversation_history(recovery_history(900))
    answer = await run.agent.turn(QUESTION)
    assert answer is not None
    overflow = run.seen.of(OverflowDetected)
    assert len(overflow) == 1
    detected = overflow[0]
    assert isinstance(detected, OverflowDetected)
    assert (detected.status_code, detected.extended_verdict) == (400, True)
    assert "exceeds the available context size (512 tokens)" in detected.message
    attempts = [e for e in run.seen.of(RecoveryAttempted) if isinstance(e, RecoveryAttempted)]
    assert [a.outcome for a in attempts] == ["retrying"]
    assert _triggers(run.seen.events) == ["reactive"]
    outcomes = [
        e.outcome for e in run.seen.of(ProviderCallFinished) if isinstance(e, ProviderCallFinished)
    ]
    assert outcomes == ["overflow", "ok"]
    assert len(run.sent) == 2
    assert _total(run.registry, "trimscope_overflow_recoveries_total", outcome="retrying") == 1
    assert _total(run.registry, "trimscope_history_trims_total", trigger="reactive") == 1
