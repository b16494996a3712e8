"""Build what a scenario runs against: in-process fakes, real provider clients over
``httpx.ASGITransport``, routes, tools and the driver. Deterministic clock and ids."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import httpx

import fakes
from fakes.profiles import SDK_ENDPOINTS
from harness.agent import (
    Agent,
    ChannelOrchestrator,
    Classifier,
    Hook,
    LegacySession,
    LoopConfig,
    Route,
    RouteTable,
    Tool,
    ToolBox,
    ToolMode,
    ToolOutput,
)
from harness.events import EventBus, Observer
from harness.providers.factory import make_client
from harness.runtime import (
    Attachment,
    ChatMessage,
    HistoryPruning,
    ProviderProfile,
    RuntimeProfile,
    ToolSpec,
)
from harness.scenarios.schema import (
    FakeSpec,
    HookSpec,
    ProviderSpec,
    RouteSpec,
    Scenario,
    StepSpec,
    ToolSpecModel,
)

FAKE_FOR_KIND: Final = SDK_ENDPOINTS  # client kind -> (fake profile, SDK base path)
SCENARIO_API_KEY: Final = "scenario-test-key"


class DeterministicClock:
    """Advances a millisecond per reading, so durations and ``at`` stamps are stable."""

    def __init__(self) -> None:
        self._ticks = itertools.count()

    def __call__(self) -> float:
        return next(self._ticks) / 1000.0


class SequentialIds:
    def __init__(self) -> None:
        self._counters: dict[str, itertools.count[int]] = {}

    def __call__(self, prefix: str) -> str:
        counter = self._counters.setdefault(prefix, itertools.count(1))
        return f"{prefix}-{next(counter)}"


async def _no_sleep(_: float) -> None:
    """Scenarios honour retry-after logically; they never wait for real."""


def fake_behaviour(step: StepSpec) -> fakes.FakeBehaviour:
    fault = step.fault
    return fakes.FakeBehaviour(
        reply=fakes.ScriptedReply(
            text=step.text,
            tool_calls=tuple(
                fakes.ScriptedToolCall(c.name, dict(c.arguments), c.id) for c in step.tool_calls
            ),
        ),
        usage=fakes.UsageReport(**step.usage.model_dump()),
        fault=fakes.Fault(**fault.model_dump()) if fault else None,
        latency_ms=step.latency_ms,
    )


def build_fake(spec: ProviderSpec) -> fakes.FakeProvider:
    fake_spec: FakeSpec = spec.fake
    profile_name, _ = FAKE_FOR_KIND[spec.kind]
    window = fake_spec.context_window or spec.context_window or None
    fake = fakes.FakeProvider(
        profile_name,
        fake_spec.model or spec.model or "fake-model",
        context_window=window,
        counter=fake_spec.counter,
        script=fakes.FakeScript(
            tuple(fake_behaviour(s) for s in fake_spec.script), fake_behaviour(fake_spec.default)
        ),
        variant=fake_spec.variant,
    )
    side = fake_spec.provider_side
    fake.provider_side = fakes.ProviderSide(side.handling, side.compaction_fails)
    return fake


def _tool(spec: ToolSpecModel) -> Tool:
    async def run(arguments: Mapping[str, object]) -> ToolOutput:
        if spec.fails:
            raise RuntimeError(f"{spec.name} failed as scripted")
        text = spec.output.replace("{text}", str(arguments.get("text", ""))) * spec.repeat
        return ToolOutput(text, tuple(Attachment("image", t) for t in spec.images))

    return Tool(ToolSpec(spec.name, spec.description, spec.parameters), run)


def _hook(spec: HookSpec) -> Hook:
    def prepend_system(rows: list[ChatMessage]) -> list[ChatMessage]:
        return [ChatMessage("system", spec.prepend_system), *rows]

    return prepend_system


def _route(spec: RouteSpec) -> Route:
    return Route(spec.provider, spec.model)


def route_table(scenario: Scenario) -> RouteTable:
    providers: dict[str, dict[str, ProviderProfile]] = {}
    for ref, spec in scenario.providers.items():
        provider_type, _, alias = ref.partition(".")
        providers.setdefault(provider_type, {})[alias] = ProviderProfile(
            spec.model, spec.context_window
        )
    routes = scenario.routes
    if routes is None:
        return RouteTable(providers, Route(next(iter(scenario.providers))))
    return RouteTable(
        providers,
        _route(routes.default),
        {name: _route(r) for name, r in routes.model_routes.items()},
        _route(routes.vision) if routes.vision else None,
    )


def runtime_profile(scenario: Scenario) -> RuntimeProfile:
    spec = scenario.runtime
    return RuntimeProfile(
        max_context_tokens=spec.max_context_tokens,
        context_compact_ratio=spec.context_compact_ratio,
        history_pruning=HistoryPruning(
            spec.history_pruning.enabled, spec.history_pruning.max_tokens
        ),
        max_history_messages=spec.max_history_messages,
        max_tool_iterations=spec.max_tool_iterations,
        max_tool_result_chars=spec.max_tool_result_chars,
    )


@dataclass
class Environment:
    scenario: Scenario
    bus: EventBus
    config: LoopConfig
    fakes: dict[str, fakes.FakeProvider]
    http_clients: list[httpx.AsyncClient]
    clock: DeterministicClock = field(default_factory=DeterministicClock)
    ids: SequentialIds = field(default_factory=SequentialIds)
    logs: list[tuple[str, Mapping[str, object]]] = field(default_factory=list)

    async def aclose(self) -> None:
        for client in self.http_clients:
            await client.aclose()

    def agent(self) -> Agent:
        who = self.scenario.agent
        return Agent(
            self.config,
            bus=self.bus,
            clock=self.clock,
            ids=self.ids,
            session_id=self.scenario.id,
            name=who.name,
            alias=who.alias,
            channel=who.channel,
        )

    def legacy(self) -> LegacySession:
        return LegacySession(
            self.config,
            bus=self.bus,
            clock=self.clock,
            ids=self.ids,
            session_id=self.scenario.id,
            log=lambda message, attributes: self.logs.append((message, attributes)),
        )

    def channel(self) -> ChannelOrchestrator:
        return ChannelOrchestrator(
            self.config,
            bus=self.bus,
            clock=self.clock,
            ids=self.ids,
            channel=self.scenario.id,
            system_prompt=self.scenario.system_prompt,
        )


def build_environment(scenario: Scenario, observers: tuple[Observer, ...] = ()) -> Environment:
    bus = EventBus(strict=True)
    for observer in observers:
        bus.subscribe(observer)
    fakes_by_ref, clients, http_clients = {}, {}, []
    # Clients always classify with `extended` so every error carries both verdicts; the
    # loop decides with the scenario's classifier (harness.agent.config.Classifier).
    for ref, spec in scenario.providers.items():
        fake = build_fake(spec)
        _, path = FAKE_FOR_KIND[spec.kind]
        base = f"http://{ref}.fake"
        http = httpx.AsyncClient(transport=fakes.asgi_transport(fake), base_url=base)
        http_clients.append(http)
        fakes_by_ref[ref] = fake
        clients[ref] = make_client(
            spec.kind,
            client=http,
            base_url=base + path,
            api_key=SCENARIO_API_KEY,
            provider_name=ref,
        )
        if spec.context_management is not None:
            clients[ref].provider_context = spec.context_management.resolved()
    config = LoopConfig(
        profile=runtime_profile(scenario),
        routes=route_table(scenario),
        clients=clients,
        tools=ToolBox({t.name: _tool(t) for t in scenario.tools}),
        tool_mode=ToolMode(scenario.tool_mode),
        classifier=Classifier(scenario.classifier),
        hooks=tuple(_hook(h) for h in scenario.hooks),
        max_output_tokens=scenario.request.max_output_tokens,
        stream=scenario.request.stream,
        sleep=_no_sleep,
    )
    return Environment(scenario, bus, config, fakes_by_ref, http_clients)
