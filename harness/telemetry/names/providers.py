"""``gen_ai.provider.name`` values: the GenAI conventions' well-known ones, and ours.

Part of ``harness.telemetry.names`` (re-exported there). The value names the provider the
client speaks to, by the conventions' list (``GenAiProviderNameValues`` of
opentelemetry-semantic-conventions 0.66b2: ``openai``, ``anthropic``, ``gcp.gemini``,
``aws.bedrock``, ...); the route alias a call took (``openai.main``) is our own
``trimscope.provider`` attribute and ``trimscope_provider`` label, never this one.

The list is an open enum: a provider it does not name gets a value of its own, lowercase,
words joined by ``_`` as the list's own ``mistral_ai`` and ``x_ai`` are. A test checks
every value here against the package's list (a well-known value spelled as the list does;
a custom one clashing with none).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = [
    "CUSTOM_PROVIDER_NAMES",
    "GEN_AI_PROVIDER_NAMES",
    "LABEL_ROUTE",
    "WELL_KNOWN_PROVIDER_NAMES",
    "gen_ai_provider_name",
]

LABEL_ROUTE: Final = "trimscope_provider"
"""The route alias on the GenAI metrics: the name the OpenTelemetry Prometheus exporter
gives ``trimscope.provider`` (``ATTR_PROVIDER``; our ``trimscope_*`` metrics say
``provider``)."""

WELL_KNOWN_PROVIDER_NAMES: Final = MappingProxyType(
    {
        # client kinds (harness.providers.plumbing.factory.CLIENT_CLASSES)
        "openai": "openai",
        "openai-responses": "openai",
        "azure": "azure.ai.openai",
        "anthropic": "anthropic",
        "gemini": "gcp.gemini",
        "mistral": "mistral_ai",
        "groq": "groq",
        "deepseek": "deepseek",
        "cohere": "cohere",
        "xai": "x_ai",
        # wire kinds (harness.wire.WIRE_KINDS), what the proxy's events carry
        "openai_chat": "openai",
        "openai_responses": "openai",
        "bedrock": "aws.bedrock",
    }
)
"""Provider kind -> the conventions' well-known value."""

CUSTOM_PROVIDER_NAMES: Final = MappingProxyType(
    {
        "openrouter": "openrouter",
        "ollama": "ollama",
        "ollama-openai": "ollama",
        "vllm": "vllm",
        "llamacpp": "llama_cpp",
        "lmstudio": "lm_studio",
        "together": "together_ai",
    }
)
"""Provider kind -> our value for a provider the conventions' list does not name."""

GEN_AI_PROVIDER_NAMES: Final[Mapping[str, str]] = MappingProxyType(
    {**WELL_KNOWN_PROVIDER_NAMES, **CUSTOM_PROVIDER_NAMES}
)
_NOT_A_VALUE_CHAR = re.compile(r"[^a-z0-9_.]+")


def gen_ai_provider_name(kind: str) -> str:
    """The ``gen_ai.provider.name`` of a provider kind; a kind named nowhere above gets
    the custom rule's value (lowercase, anything else ``_``)."""
    known = GEN_AI_PROVIDER_NAMES.get(kind)
    if known is not None:
        return known
    return _NOT_A_VALUE_CHAR.sub("_", kind.lower()).strip("_") or "unknown"
