"""A proxied runtime fills the call, latency, token and cache series exactly as the
reference agent fills them: the reference agent itself is the runtime here, pointed at a
real proxy in front of a real fake, so the two sets of series are made from the same
calls, one from the agent's own events (``source="agent"``), one from what the proxy saw
on the wire (``source="wire"``). Every sample of the call families must be equal but for
the ``source`` label (and the latency's value: the proxy's clock starts later and ends
later; its count and buckets' total are held equal)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import promql_parser
import pytest
from prometheus_client import CollectorRegistry

from dashboards import substitute
from fakes.engine import FakeProvider
from fakes.pytest_plugin import FakeServerFactory
from harness.agent import Agent, Classifier, LoopConfig, Route, RouteTable
from harness.events import EventBus
from harness.pricing.table import ModelPrice
from harness.providers import make_client
from harness.providers.overflow.classify import extended_is_overflow
from harness.proxy.event_sink import EventSink
from harness.runtime import ChatMessage, ProviderProfile, RuntimeProfile
from harness.telemetry import PrometheusObserver
from harness.telemetry import names as n
from harness.telemetry.cost import CostObserver
from harness.wire import ObserverConfig, WireKind, WireObserver
from tests.dashboards.conftest import all_queries
from tests.proxy.conftest import ProxyFactory

pytestmark = pytest.mark.anyio

SESSION = "calls-1"
PROVIDER = "fake"
MODEL = "m"
SYSTEM = "You answer questions about the planets of the solar system. " * 120
"""About 1,800 tokens: past OpenAI's 1,024-token caching minimum, so later calls read it
from the fake's prompt cache."""
CALL_FAMILIES = (
    n.PROVIDER_CALLS.name,
    n.INPUT_TOKENS.name,
    n.GEN_AI_TOKEN_USAGE.name,
    n.OVERFLOW_VERDICTS.name,
    n.OVERFLOWS.name,
)
"""The families a call's events fill (latency is compared by count: see the module)."""
CALL_PANELS = (
    "Provider latency",
    "Tokens / s by type",
    "Cache hit ratio",
    "Input tokens / s by cache",
    "Cost rate by",
    "Cache saved vs cache loss",
)
"""The panels (title prefixes) of the dashboards a call's events fill."""
PRICE = ModelPrice(input=1.0, cached_input=0.1, cache_write=1.25, output=4.0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass(frozen=True)
class Setup:
    kind: str
    wire: WireKind
    fake_window: int
    route_window: int
    budget: int


SETUPS = {
    # trims and cache reads: the route knows the real window
    "openai-trims": Setup("openai", "openai_chat", 8000, 8000, 2600),
    # a real overflow and its recovery: the route claims twice the fake's window
    "openai-overflow": Setup("openai", "openai_chat", 3000, 6000, 0),
    "anthropic-trims": Setup("anthropic", "anthropic", 8000, 8000, 2600),
}


def _samples(registry: CollectorRegistry, source: str) -> dict[tuple[str, tuple[str, ...]], float]:
    """The call families' samples of ``source``, keyed without the source and provider
    labels (the agent names its route, the proxy its upstream)."""
    out: dict[tuple[str, tuple[str, ...]], float] = {}
    for metric in registry.collect():
        for sample in metric.samples:
            if not sample.name.startswith(CALL_FAMILIES) or sample.name.endswith("_created"):
                continue
            if sample.labels.get(n.LABEL_SOURCE) != source:
                continue
            labels = tuple(
                f"{k}={v}"
                for k, v in sorted(sample.labels.items())
                if k not in (n.LABEL_SOURCE, "provider", n.LABEL_ROUTE, "gen_ai_provider_name")
            )
            out[(sample.name, labels)] = sample.value
    return out


def _durations(registry: CollectorRegistry, source: str) -> float:
    return sum(
        sample.value
        for metric in registry.collect()
        for sample in metric.samples
        if sample.name == n.GEN_AI_DURATION.name + "_count"
        and sample.labels.get(n.LABEL_SOURCE) == source
    )


def _metric_names(expr: str) -> set[str]:
    found: set[str] = set()

    def visit(node: object) -> None:
        if isinstance(node, promql_parser.VectorSelector) and node.name:
            found.add(node.name)

    promql_parser.walk(promql_parser.parse(substitute(expr)), visit)
    return found


def _wire_series(registry: CollectorRegistry) -> set[str]:
    """Names of the samples with ``source="wire"`` (a panel's selector finds them)."""
    return {
        sample.name
        for metric in registry.collect()
        for sample in metric.samples
        if sample.labels.get(n.LABEL_SOURCE) == "wire"
    }


def _turns() -> Iterator[str]:
    for index in range(6):
        yield f"Question {index}: which planet has the most moons, and how many? " * 8


async def _drive(setup: Setup, proxy_url: str, metrics: PrometheusObserver) -> None:
    headers = {"x-trimscope-session": SESSION}
    async with httpx.AsyncClient(timeout=30.0, headers=headers) as client:
        wire = make_client(setup.kind, client=client, base_url=proxy_url, api_key="sk-test")
        routes = RouteTable(
            {PROVIDER: {MODEL: ProviderProfile(MODEL, setup.route_window)}},
            Route(f"{PROVIDER}.{MODEL}"),
        )
        config = LoopConfig(
            profile=RuntimeProfile(max_context_tokens=setup.budget, max_history_messages=1000),
            routes=routes,
            clients={f"{PROVIDER}.{MODEL}": wire},
            classifier=Classifier.EXTENDED,
            max_output_tokens=64,
        )
        bus = EventBus(strict=True)
        bus.subscribe(metrics)
        counter = itertools.count(1)
        agent = Agent(
            config, bus=bus, clock=time.monotonic,
            ids=lambda prefix: f"{prefix}-{next(counter)}", session_id=SESSION,
        )  # fmt: skip
        history = [ChatMessage("system", SYSTEM)]
        if setup.budget == 0:  # a long history the fake's window cannot hold
            history += [ChatMessage("user", "Tell me about Jupiter. " * 200),
                        ChatMessage("assistant", "Jupiter is large. " * 200)]  # fmt: skip
        agent.seed_conversation_history(history)
        for question in _turns():
            await agent.turn(question)


@pytest.mark.parametrize("name", list(SETUPS))
async def test_a_proxied_runtimes_call_series_equal_the_agents(
    name: str, fake_server: FakeServerFactory, start_proxy: ProxyFactory
) -> None:
    setup = SETUPS[name]
    fake = fake_server.serve(
        FakeProvider(setup.kind, MODEL, context_window=setup.fake_window, caching=setup.kind)  # type: ignore[arg-type]
    )
    agent_registry, wire_registry = CollectorRegistry(), CollectorRegistry()
    agent_metrics = PrometheusObserver(agent_registry)
    wire_metrics = PrometheusObserver(wire_registry)
    bus = EventBus(strict=True)
    bus.subscribe(wire_metrics)
    bus.subscribe(CostObserver(wire_registry, lambda model: PRICE if model == MODEL else None))
    observer = WireObserver(ObserverConfig(is_overflow=extended_is_overflow))
    proxy = start_proxy(
        fake.base_url, wire=setup.wire, observer=observer, sinks=[EventSink(bus.publish)]
    )
    base = proxy.url + "/v1" if setup.kind == "openai" else proxy.url
    await _drive(setup, base, agent_metrics)
    proxy.kept.wait(len(fake.log.calls()))
    agent_metrics.close()
    wire_metrics.close()
    agent = _samples(agent_registry, n.SOURCE_AGENT)
    wire = _samples(wire_registry, "wire")
    assert agent, "the agent made no calls"
    assert wire == agent
    assert _durations(wire_registry, "wire") == _durations(agent_registry, n.SOURCE_AGENT) > 0


async def test_the_call_and_cache_panels_query_series_a_proxied_runtime_fills(
    fake_server: FakeServerFactory, start_proxy: ProxyFactory
) -> None:
    """Every metric the call, latency, token, cache and cost panels query has a sample
    with ``source="wire"`` after a proxied session (priced)."""
    setup = SETUPS["openai-trims"]
    fake = fake_server.serve(
        FakeProvider(setup.kind, MODEL, context_window=setup.fake_window, caching="openai")
    )
    registry = CollectorRegistry()
    bus = EventBus(strict=True)
    bus.subscribe(PrometheusObserver(registry))
    bus.subscribe(CostObserver(registry, lambda model: PRICE if model == MODEL else None))
    proxy = start_proxy(fake.base_url, wire=setup.wire, sinks=[EventSink(bus.publish)])
    await _drive(setup, proxy.url + "/v1", PrometheusObserver(CollectorRegistry()))
    proxy.kept.wait(len(fake.log.calls()))
    panels = [q for q in all_queries() if q.panel.startswith(CALL_PANELS)]
    assert {q.dashboard for q in panels} == {"trimscope-overview", "trimscope-wire"}
    wanted = set().union(*(_metric_names(q.expr) for q in panels))
    # the cache loss is a trim's, not a call's: its own test prices it (test_cli_prices)
    wanted.discard(n.CACHE_LOSS_COST.name)
    assert wanted - _wire_series(registry) == set()
