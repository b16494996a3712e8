"""What a tool loop needs, resolved once and frozen (habit 7: raw config, then resolved)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from harness.agent.dispatch import ToolMode
from harness.agent.routes import Route, RouteTable
from harness.agent.tools import ToolBox
from harness.providers import ProviderClient, ProviderRequest
from harness.providers.clients.kept_compactions import KeptWindow
from harness.providers.clients.openai_responses import CompactedWindow
from harness.providers.overflow.classify import Classifier
from harness.runtime import ChatMessage, RuntimeProfile

Hook = Callable[[list[ChatMessage]], list[ChatMessage]]
"""A ``before_llm_call`` hook: it may rewrite the prepared rows (the capacity check runs
after every hook)."""

Sleep = Callable[[float], Awaitable[None]]


@runtime_checkable
class EndpointCompactor(Protocol):
    """A client whose endpoint compacts a request's input on its own
    (``OpenAIResponsesClient.compact``): what it answers replaces that input later."""

    async def compact(self, request: ProviderRequest) -> CompactedWindow: ...

    def kept_window(self, request: ProviderRequest) -> KeptWindow | None: ...


DEFAULT_SENDER = "user"
"""Who speaks on a channel when the caller names no one (the ``Driver`` protocol)."""

DEFAULT_RATE_LIMIT_RETRIES = 2
"""How many times a rate-limited call is retried after its ``retry-after`` wait."""


DEFAULT_PROVIDER_TRUNCATION = False
"""Whether the provider wrapper's own overflow truncation (spec 9) runs before the loop's
reactive recovery; off by default (docs/decisions.md, "Provider-wrapper truncation")."""

ENDPOINT_COMPACTION_WIRE_TYPE = "responses.compact"
"""``ProviderContextEdited.wire_type`` of a compaction the runtime asked the endpoint for."""
FALLBACK_CLIENT_TRIM = "client_trim"
"""``ProviderContextEdited.fallback`` when the endpoint's compaction failed and the
proactive trim ran instead."""


Clock = Callable[[], float]
"""Seconds from an arbitrary origin; injected (a fake clock makes transcripts reproducible)."""

IdFactory = Callable[[str], str]
"""A fresh id for a prefix (``"turn"``, ``"call"``); injected, like the clock."""


@dataclass(frozen=True, slots=True)
class LoopConfig:
    profile: RuntimeProfile
    routes: RouteTable
    clients: Mapping[str, ProviderClient]
    """One client per provider reference ``<type>.<alias>``."""
    tools: ToolBox = field(default_factory=ToolBox)
    tool_mode: ToolMode = ToolMode.NATIVE
    classifier: Classifier = Classifier.EXTENDED
    """Which overflow verdict the loop acts on (decision 19.10: ``extended`` by default)."""
    hooks: Sequence[Hook] = ()
    max_output_tokens: int | None = None
    stream: bool = False
    """Ask for streamed answers (clients that stream: OpenAI Responses, Anthropic)."""
    rate_limit_retries: int = DEFAULT_RATE_LIMIT_RETRIES
    sleep: Sleep = asyncio.sleep
    provider_truncation: bool = DEFAULT_PROVIDER_TRUNCATION
    """Model the reference's provider wrapper: on an overflow, halve the request's copy of
    the history at a turn opening once and retry, before the loop's recovery sees it."""
    compacting_routes: frozenset[str] = frozenset()
    """Provider references that compact through their endpoint where the proactive trim
    would run (``harness.agent.endpoint_compaction``); each needs a client that can."""

    def provider_kind(self, route: Route) -> str | None:
        """The client kind of ``route``'s provider (``None``: no client for it)."""
        client = self.clients.get(route.provider)
        return None if client is None else client.provider_kind

    def __post_init__(self) -> None:
        for ref in sorted(self.compacting_routes):
            client = self.clients.get(ref)
            if client is None or not isinstance(client, EndpointCompactor):
                raise ValueError(
                    f"compacting route {ref!r}: expected a client with a compaction "
                    f"endpoint (openai-responses), found {type(client).__name__}"
                )
