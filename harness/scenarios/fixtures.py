"""Build fakes and agents for hand-written tests, the way scenarios build them.

The pytest plugin exposes these as the ``fake_provider`` and ``agent`` fixtures; they are
plain classes so other harnesses can use them too. Both speak the scenario file's
vocabulary: a fake's script is a list of steps as under ``providers.<ref>.fake.script``,
a runtime is a mapping as under ``runtime:``; both are validated by the same schema.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

import fakes
from harness.agent import (
    Agent,
    Classifier,
    LoopConfig,
    SessionSpec,
    Tool,
    ToolBox,
    ToolMode,
    open_agent,
)
from harness.events import EventBus
from harness.providers.plumbing.factory import make_client
from harness.providers.plumbing.transport import HttpProviderClient
from harness.runtime import RuntimeProfile
from harness.scenarios.environment import (
    FAKE_FOR_KIND,
    SCENARIO_API_KEY,
    build_fake,
    route_table,
    runtime_profile,
)
from harness.scenarios.fake_spec import StepSpec
from harness.scenarios.schema import ProviderSpec, RoutesSpec, RuntimeSpec, Scenario

Step = Mapping[str, Any] | StepSpec


class FakeProviderFactory:
    """``factory(kind, model, ...)`` -> a ``fakes.FakeProvider`` for client kind ``kind``
    (``openai``, ``openai-responses``, ``anthropic``, ...); the factory remembers the kind
    so ``AgentFactory`` can build the matching client."""

    def __init__(self) -> None:
        self._kinds: dict[int, str] = {}

    def __call__(
        self,
        kind: str = "openai",
        model: str = "fake-model",
        *,
        context_window: int | None = None,
        counter: str = "heuristic",
        script: Sequence[Step] | fakes.FakeScript = (),
        default: Step | None = None,
        variant: str = "default",
    ) -> fakes.FakeProvider:
        fake_spec: dict[str, Any] = {
            "context_window": context_window,
            "counter": counter,
            "variant": variant,
        }
        if not isinstance(script, fakes.FakeScript):
            fake_spec["script"] = list(script)
        if default is not None:
            fake_spec["default"] = default
        spec = ProviderSpec.model_validate({"kind": kind, "model": model, "fake": fake_spec})
        fake = build_fake(spec)
        if isinstance(script, fakes.FakeScript):
            fake.reset(script=script)
        self._kinds[id(fake)] = kind
        return fake

    def kind_of(self, fake: fakes.FakeProvider) -> str:
        return self._kinds.get(id(fake), fake.profile.name)


async def _no_sleep(_: float) -> None:
    """Retry-after is honoured logically; tests never wait for real."""


class AgentFactory:
    """``factory(fake, ...)`` -> an ``Agent`` whose provider calls reach ``fake`` in process.

    ``fake`` is one fake (reference ``<kind>.main``) or a mapping of references to fakes
    (first is the default route). ``context_window`` is what the *runtime* is configured
    with (unset by default, as in the reference); the fake enforces its own window.
    Events go to ``bus``. ``close()`` closes every HTTP client it opened."""

    def __init__(self, bus: EventBus, fake_factory: FakeProviderFactory | None = None) -> None:
        self.bus = bus
        self._fakes = fake_factory or FakeProviderFactory()
        self._clients: list[httpx.AsyncClient] = []

    def __call__(
        self,
        fake: fakes.FakeProvider | Mapping[str, fakes.FakeProvider] | None = None,
        *,
        context_window: int | Mapping[str, int] | None = None,
        runtime: Mapping[str, Any] | RuntimeProfile | None = None,
        routes: Mapping[str, Any] | None = None,
        system_prompt: str | None = None,
        tools: Sequence[Tool] = (),
        tool_mode: str = "native",
        classifier: str = "extended",
        session_id: str = "pytest",
    ) -> Agent:
        by_ref = self._by_ref(fake)
        providers = {
            ref: ProviderSpec.model_validate(
                {
                    "kind": self._fakes.kind_of(f),
                    "model": f.model.name,
                    "context_window": (
                        context_window.get(ref)
                        if isinstance(context_window, Mapping)
                        else context_window
                    ),
                }
            )
            for ref, f in by_ref.items()
        }
        setup = Scenario.model_construct(
            providers=providers,
            routes=RoutesSpec.model_validate(routes) if routes is not None else None,
            runtime=RuntimeSpec.model_validate(runtime if isinstance(runtime, Mapping) else {}),
        )
        profile = runtime if isinstance(runtime, RuntimeProfile) else runtime_profile(setup)
        config = LoopConfig(
            profile=profile,
            routes=route_table(setup),
            clients={ref: self._client(ref, f, providers[ref].kind) for ref, f in by_ref.items()},
            tools=ToolBox({tool.spec.name: tool for tool in tools}),
            tool_mode=ToolMode(tool_mode),
            classifier=Classifier(classifier),
            sleep=_no_sleep,
        )
        return open_agent(SessionSpec(config, self.bus, session_id, system_prompt=system_prompt))

    def _by_ref(
        self, fake: fakes.FakeProvider | Mapping[str, fakes.FakeProvider] | None
    ) -> dict[str, fakes.FakeProvider]:
        if fake is None:
            fake = self._fakes()
        if isinstance(fake, Mapping):
            return dict(fake)
        return {f"{self._fakes.kind_of(fake)}.main": fake}

    def _client(self, ref: str, fake: fakes.FakeProvider, kind: str) -> HttpProviderClient:
        _, path = FAKE_FOR_KIND[kind]
        base = f"http://{ref}.fake"
        http = httpx.AsyncClient(transport=fakes.asgi_transport(fake), base_url=base)
        self._clients.append(http)
        return make_client(
            kind, client=http, base_url=base + path, api_key=SCENARIO_API_KEY, provider_name=ref
        )

    async def aclose(self) -> None:
        while self._clients:
            await self._clients.pop().aclose()

    def close(self) -> None:
        """Close from synchronous code (a fixture's teardown), outside any event loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.aclose())
        else:  # pragma: no cover - called from inside a loop: in-process transports need nothing
            self._clients.clear()
