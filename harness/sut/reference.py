"""``trimscope sut reference``: the in-process reference agent as a protocol runtime.

Each session is a structured ``Agent`` configured exactly as ``trimscope run`` configures
one for a portable scenario (same profile, route, classifier, clock and ids), with a real
``httpx`` client to the ``base_url`` it is told and tools that ask trimscope for their
results. Rate limits are retried at once, as in-process scenarios do (the fakes answer
retry-after logically), so the two send the same requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Final

import httpx

from harness.agent import (
    Agent,
    LoopConfig,
    Route,
    RouteTable,
    SequentialIds,
    SessionSpec,
    TickClock,
    Tool,
    ToolBox,
    ToolOutput,
    open_agent,
)
from harness.events import Event, EventBus, HistoryTrimmed, RecoveryAttempted
from harness.providers.overflow.errors import ContextWindowExceeded, ProviderError
from harness.providers.plumbing.factory import make_client
from harness.providers.plumbing.transport import sequential_call_ids
from harness.runtime import ProviderProfile, RuntimeProfile, ToolSpec
from harness.runtime.errors import ContextCapacityExceeded
from harness.sut.adapter import Adapter, Callbacks, Session, TurnFailed, Unsupported
from harness.sut.wires import FEATURES, KIND_OF_WIRE

RUNTIME_NAME: Final = "trimscope-reference"
PROVIDER_ALIAS: Final = "sut"
HTTP_TIMEOUT_S: Final = 60.0
"""One provider request's bound; trimscope's turn timeout is the run's own."""


async def _retry_at_once(_: float) -> None:
    """Retry-after is honoured logically (see the module docstring)."""


def _tool(session: Session, offer: Mapping[str, Any]) -> Tool:
    name = str(offer["name"])

    async def run(arguments: Mapping[str, object]) -> ToolOutput:
        return ToolOutput(await session.call_tool(name, dict(arguments)))

    spec = ToolSpec(name, str(offer["description"]), dict(offer["parameters"]))
    return Tool(spec, run)


def _reporter(session: Session) -> Any:
    """An event observer that self-reports trims and recoveries over the protocol."""

    class Reporter:
        def on_event(self, event: Event) -> None:
            if isinstance(event, HistoryTrimmed):
                session.event(
                    "trim",
                    dropped_messages=event.dropped_messages,
                    tokens_before=event.tokens_before,
                    tokens_after=event.tokens_after,
                )
            elif isinstance(event, RecoveryAttempted):
                session.event("recovery", trimmed=event.trimmed, outcome=str(event.outcome))

    return Reporter()


class ReferenceRuntime:
    def __init__(self) -> None:
        self.http = httpx.AsyncClient(timeout=HTTP_TIMEOUT_S)

    def agent(self, session: Session) -> Agent:
        opened = session.open
        provider = opened["provider"]
        kind = KIND_OF_WIRE.get(provider["wire"])
        if kind is None:
            raise Unsupported(f"no reference client speaks {provider['wire']}")
        ref = f"{kind}.{PROVIDER_ALIAS}"
        client = make_client(
            kind,
            client=self.http,
            base_url=provider["base_url"],
            api_key=provider["api_key"],
            provider_name=ref,
            id_factory=sequential_call_ids(),
        )
        profile = ProviderProfile(provider["model"], opened["context_window"])
        config = LoopConfig(
            profile=RuntimeProfile(
                max_context_tokens=opened["budget_tokens"],
                max_history_messages=opened["turn_limit"],
            ),
            routes=RouteTable({kind: {PROVIDER_ALIAS: profile}}, Route(ref)),
            clients={ref: client},
            tools=ToolBox({t["name"]: _tool(session, t) for t in opened["tools"]}),
            sleep=_retry_at_once,
        )
        bus = EventBus(observers=(_reporter(session),), strict=True)
        spec = SessionSpec(
            config,
            bus,
            session.id,
            clock=TickClock(),
            ids=SequentialIds(),
            system_prompt=opened["system"],
        )
        return open_agent(spec)

    async def on_open(self, session: Session) -> None:
        session.state = self.agent(session)

    async def on_user(self, session: Session, text: str) -> str:
        agent: Agent = session.state
        try:
            answer = await agent.send(text)
        except (ContextWindowExceeded, ContextCapacityExceeded) as error:
            raise TurnFailed("overflow", str(error)) from error
        except ProviderError as error:
            raise TurnFailed("provider", str(error)) from error
        return answer or ""


def serve() -> None:
    """Speak the protocol on stdin/stdout until ``bye`` or end of input."""
    try:
        own_version = version("trimscope")
    except PackageNotFoundError:  # a checkout on PYTHONPATH, not installed
        own_version = "0+checkout"
    runtime = ReferenceRuntime()
    callbacks = Callbacks(runtime.on_open, runtime.on_user)
    Adapter(RUNTIME_NAME, own_version, list(KIND_OF_WIRE), list(FEATURES), callbacks).main()
