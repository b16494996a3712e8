"""Build what a scenario runs against: in-process fakes, real provider clients over
``httpx.ASGITransport``, routes, tools and the driver. Deterministic clock and ids."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import httpx

import fakes
from fakes.profiles import SDK_ENDPOINTS
from harness.agent import (
    Classifier,
    DriverKind,
    Hook,
    LoopConfig,
    Route,
    RouteTable,
    SequentialIds,
    SessionSpec,
    TickClock,
    Tool,
    ToolBox,
    ToolMode,
    template_tool,
)
from harness.events import EventBus, Observer
from harness.providers.plumbing.factory import WireOptions, make_client
from harness.providers.plumbing.transport import sequential_call_ids
from harness.runtime import (
    ChatMessage,
    HistoryPruning,
    ProviderProfile,
    RuntimeProfile,
)
from harness.scenarios.fake_spec import FakeSpec, StepSpec
from harness.scenarios.schema import HookSpec, ProviderSpec, RouteSpec, Scenario, ToolSpecModel

FAKE_FOR_KIND: Final = SDK_ENDPOINTS  # client kind -> (fake profile, SDK base path)
SCENARIO_API_KEY: Final = "scenario-test-key"


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
        when=fakes.StepCondition(**step.when.model_dump()) if step.when else None,
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
            tuple(fake_behaviour(s) for s in fake_spec.script),
            fake_behaviour(fake_spec.default),
            fake_spec.fault_rates.rates() if fake_spec.fault_rates else None,
        ),
        variant=fake_spec.variant,
        caching=fake_spec.caching,
    )
    # A scenario's fake runs on its own clock (cache lifetimes): call n at n x step seconds.
    step = fake_spec.seconds_per_call
    fake.clock = lambda: fake.calls_taken * step
    side = fake_spec.provider_side
    fake.provider_side = fakes.ProviderSide(
        side.handling, side.compaction_fails, foreign_history=side.foreign_history
    )
    return fake


def _tool(spec: ToolSpecModel) -> Tool:
    return template_tool(
        spec.name,
        spec.description,
        spec.parameters,
        output=spec.output,
        repeat=spec.repeat,
        images=tuple(spec.images),
        fails=spec.fails,
    )


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
    clock: TickClock = field(default_factory=TickClock)
    ids: SequentialIds = field(default_factory=SequentialIds)
    logs: list[tuple[str, Mapping[str, object]]] = field(default_factory=list)

    async def aclose(self) -> None:
        for client in self.http_clients:
            await client.aclose()

    def session_spec(self) -> SessionSpec:
        """The scenario's session, described for ``harness.agent.open_session``."""
        scenario, who = self.scenario, self.scenario.agent
        driver = DriverKind(scenario.driver)
        return SessionSpec(
            self.config,
            self.bus,
            scenario.id,
            driver=driver,
            clock=self.clock,
            ids=self.ids,
            system_prompt=scenario.system_prompt,
            agent_name=who.name,
            alias=who.alias,
            # a channel driver is named after the scenario; an agent reports its own
            channel=scenario.id if driver is DriverKind.CHANNEL else who.channel,
            log=lambda message, attributes: self.logs.append((message, attributes)),
        )


def build_environment(scenario: Scenario, observers: tuple[Observer, ...] = ()) -> Environment:
    bus = EventBus(observers=observers, strict=True)
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
        client = make_client(
            spec.kind,
            client=http,
            base_url=base + path,
            api_key=SCENARIO_API_KEY,
            provider_name=ref,
            id_factory=sequential_call_ids(),
            options=WireOptions(
                provider_context=None
                if spec.context_management is None
                else spec.context_management.resolved(),
                cache_breakpoints=spec.cache_breakpoints,
            ),
        )
        clients[ref] = client
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
        provider_truncation=scenario.provider_truncation,
        compacting_routes=frozenset(
            ref
            for ref, spec in scenario.providers.items()
            if spec.context_management is not None and spec.context_management.compact_on_budget
        ),
    )
    return Environment(scenario, bus, config, fakes_by_ref, http_clients)
