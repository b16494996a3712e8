"""Provider kind -> client, with the kind names of providers.md's catalogue rows.

``base_url`` follows each wire's SDK convention:

- OpenAI-style kinds include the version segment: ``https://api.openai.com/v1``,
  ``https://api.groq.com/openai/v1``, ``https://openrouter.ai/api/v1``,
  ``http://localhost:11434/v1`` (``ollama-openai``), ``http://localhost:8000/v1`` (vLLM),
  ``https://{resource}.openai.azure.com/openai/v1`` (Azure);
- ``anthropic``: ``https://api.anthropic.com``; ``gemini``:
  ``https://generativelanguage.googleapis.com``; ``ollama``: ``http://localhost:11434``;
  ``cohere``: ``https://api.cohere.com``.

Bedrock is not a client here: its catalogue rows (including the throttle look-alike) are
exercised through the classifiers only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

import httpx

from harness.providers.clients.anthropic import (
    DEFAULT_CACHE_BREAKPOINTS,
    AnthropicClient,
    CacheBreakpoints,
)
from harness.providers.clients.cohere import CohereClient
from harness.providers.clients.context_management import ProviderContext
from harness.providers.clients.gemini import GeminiClient
from harness.providers.clients.ollama import OllamaClient
from harness.providers.clients.openai_chat import AzureOpenAIChatClient, OpenAIChatClient
from harness.providers.clients.openai_responses import OpenAIResponsesClient
from harness.providers.plumbing.transport import (
    Clock,
    HttpProviderClient,
    IdFactory,
    new_call_id,
    utc_now,
)

CLIENT_CLASSES: Final[Mapping[str, type[HttpProviderClient]]] = MappingProxyType(
    {
        "openai": OpenAIChatClient,
        "openai-responses": OpenAIResponsesClient,
        "azure": AzureOpenAIChatClient,
        "anthropic": AnthropicClient,
        "gemini": GeminiClient,
        "mistral": OpenAIChatClient,
        "groq": OpenAIChatClient,
        "deepseek": OpenAIChatClient,
        "openrouter": OpenAIChatClient,
        "ollama": OllamaClient,
        "ollama-openai": OpenAIChatClient,
        "vllm": OpenAIChatClient,
        "llamacpp": OpenAIChatClient,
        "lmstudio": OpenAIChatClient,
        "together": OpenAIChatClient,
        "cohere": CohereClient,
        "xai": OpenAIChatClient,
    }
)
PROVIDER_KINDS: Final = tuple(CLIENT_CLASSES)


@dataclass(frozen=True, slots=True)
class WireOptions:
    """What a route asks of its wire beyond each request, given when its client is built:
    provider-side context management, and Anthropic's cache breakpoints (wires without
    such fields ignore them)."""

    provider_context: ProviderContext | None = None
    cache_breakpoints: CacheBreakpoints = DEFAULT_CACHE_BREAKPOINTS


NO_WIRE_OPTIONS: Final = WireOptions()


def make_client(
    kind: str,
    *,
    client: httpx.AsyncClient,
    base_url: str,
    api_key: str | None,
    provider_name: str | None = None,
    extra_headers: Mapping[str, str] | None = None,
    clock: Clock = utc_now,
    id_factory: IdFactory = new_call_id,
    options: WireOptions = NO_WIRE_OPTIONS,
) -> HttpProviderClient:
    """The client for ``kind``; its ``provider_kind`` is ``kind`` and errors render with
    ``provider_name`` (default: ``kind``). Raises ``ValueError`` for an unknown kind.
    ``options``: what the route asks of its wire beyond each request."""
    try:
        cls = CLIENT_CLASSES[kind]
    except KeyError:
        known = ", ".join(PROVIDER_KINDS)
        raise ValueError(f"unknown provider kind {kind!r}; known kinds: {known}") from None
    extra: dict[str, Any] = {}
    if issubclass(cls, AnthropicClient):
        extra["cache_breakpoints"] = options.cache_breakpoints
    return cls(
        client=client,
        base_url=base_url,
        api_key=api_key,
        provider_name=provider_name,
        provider_kind=kind,
        extra_headers=extra_headers,
        clock=clock,
        id_factory=id_factory,
        provider_context=options.provider_context,
        **extra,
    )
