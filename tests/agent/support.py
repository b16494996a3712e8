"""Build an Agent wired to a real fake provider over httpx.ASGITransport."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx

import fakes
from harness.agent import (
    Agent,
    LoopConfig,
    Route,
    RouteTable,
    SessionSpec,
    ToolBox,
    echo_tool,
    open_agent,
)
from harness.agent.cache_loss import MEASURE_CACHE_LOSS, BookkeepingFactory
from harness.agent.config import Sleep
from harness.agent.dispatch import ToolMode
from harness.events import Event, EventBus, event_kind
from harness.providers import ProviderClient, ProviderReply, ProviderRequest
from harness.providers.overflow.classify import Classifier
from harness.providers.plumbing.factory import make_client
from harness.runtime import ProviderProfile, RuntimeProfile


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if event_kind(e) == kind]


async def _no_sleep(_: float) -> None:
    return None


class SentLog:
    """Every request the agent handed to a client, rows included, whatever the answer:
    a request the fake rejects (an orphaned tool pair, say) keeps its rows here, where
    the fake's own log can only record what it managed to decode."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, ProviderRequest]] = []

    def wrap(self, ref: str, inner: ProviderClient) -> ProviderClient:
        return _LoggedClient(ref, inner, self)


class _LoggedClient:
    def __init__(self, ref: str, inner: ProviderClient, log: SentLog) -> None:
        self.provider_kind = inner.provider_kind
        self._ref, self._inner, self._log = ref, inner, log

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        self._log.requests.append((self._ref, request))
        return await self._inner.complete(request)


@dataclass
class Rig:
    agent: Agent
    fake: fakes.FakeProvider
    recorder: Recorder
    http: httpx.AsyncClient
    extra_fakes: dict[str, fakes.FakeProvider] = field(default_factory=dict)
    sent: SentLog = field(default_factory=SentLog)

    def kinds(self) -> list[str]:
        return [event_kind(e) for e in self.recorder.events]

    def sent_rows(self, call: int) -> list[tuple[str, str]]:
        """Rows the fake decoded for its ``call``-th generation request (1-based)."""
        entries = [e for e in self.fake.log.entries() if e.call_index is not None]
        return [(r.role, r.content) for r in entries[call - 1].rows]


def build_rig(
    *,
    profile: RuntimeProfile,
    fake_window: int = 100_000,
    configured_window: int | None = 100_000,
    script: fakes.FakeScript | None = None,
    counter: str = "heuristic",
    tools: bool = True,
    tool_mode: ToolMode = ToolMode.NATIVE,
    classifier: Classifier = Classifier.EXTENDED,
    model_routes: dict[str, Route] | None = None,
    extra: Sequence[tuple[str, str, int, int | None]] = (),
    system_prompt: str | None = "sys",
    sleep: Sleep = _no_sleep,
    provider_truncation: bool = False,
    cache_loss: BookkeepingFactory = MEASURE_CACHE_LOSS,
) -> Rig:
    """One ``openai.main`` fake (plus ``extra`` refs: (ref, model, fake window, configured
    window)), a strict bus with a recorder, and an Agent."""
    recorder = Recorder()
    bus = EventBus(strict=True)
    bus.subscribe(recorder)
    fake = fakes.FakeProvider(
        "openai", "gpt-test", context_window=fake_window, counter=counter, script=script
    )
    http = httpx.AsyncClient(transport=fakes.asgi_transport(fake), base_url="http://fake")
    clients = {
        "openai.main": make_client(
            "openai",
            client=http,
            base_url="http://fake/v1",
            api_key="k",
            provider_name="openai.main",
        )
    }
    providers = {"openai": {"main": ProviderProfile("gpt-test", configured_window)}}
    extra_fakes: dict[str, fakes.FakeProvider] = {}
    for ref, model, window, configured in extra:
        other = fakes.FakeProvider("openai", model, context_window=window, script=script)
        other_http = httpx.AsyncClient(transport=fakes.asgi_transport(other), base_url="http://x")
        clients[ref] = make_client(
            "openai", client=other_http, base_url="http://x/v1", api_key="k", provider_name=ref
        )
        provider_type, _, alias = ref.partition(".")
        providers.setdefault(provider_type, {})[alias] = ProviderProfile(model, configured)
        extra_fakes[ref] = other
    sent = SentLog()
    config = LoopConfig(
        profile=profile,
        routes=RouteTable(providers, Route("openai.main"), model_routes or {}),
        clients={ref: sent.wrap(ref, client) for ref, client in clients.items()},
        tools=ToolBox({"echo": echo_tool(repeat=1)}) if tools else ToolBox(),
        tool_mode=tool_mode,
        classifier=classifier,
        sleep=sleep,
        provider_truncation=provider_truncation,
    )
    spec = SessionSpec(config, bus, "s", system_prompt=system_prompt, cache_loss=cache_loss)
    agent = open_agent(spec)
    return Rig(agent, fake, recorder, http, extra_fakes, sent)
