"""One module per wire format; ``WIRES`` maps a catalogue wire name to its codec."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from fakes.catalogue import WireName
from fakes.wire.anthropic import AnthropicMessages
from fakes.wire.base import WireFormat
from fakes.wire.bedrock import BedrockConverse
from fakes.wire.cohere import CohereChat
from fakes.wire.gemini import GeminiGenerateContent
from fakes.wire.ollama import OllamaChat
from fakes.wire.openai_chat import OpenAIChat
from fakes.wire.openai_responses import OpenAIResponses

WIRES: Mapping[WireName, WireFormat] = MappingProxyType(
    {
        "openai_chat": OpenAIChat(),
        "openai_responses": OpenAIResponses(),
        "anthropic": AnthropicMessages(),
        "gemini": GeminiGenerateContent(),
        "ollama": OllamaChat(),
        "cohere": CohereChat(),
        "bedrock": BedrockConverse(),
    }
)


def wire_for(name: WireName, flavor: str | None = None) -> WireFormat:
    """The codec for ``name``; ``flavor`` selects a server's extras (``llamacpp``)."""
    if name == "openai_chat" and flavor:
        return OpenAIChat(flavor=flavor)
    return WIRES[name]


__all__ = ["WIRES", "WireFormat", "wire_for"]
