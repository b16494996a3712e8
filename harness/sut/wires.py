"""Which scenario provider kinds a protocol runtime can be given, and by which wire name.

A kind is portable when it is its wire's plain client: the reference's other kinds that
speak the OpenAI chat wire (groq, mistral, azure, ...) add quirks of their provider that
a runtime told only ``openai_chat`` cannot know, so the same scenario would not mean the
same requests. ``bedrock`` has no client kind of the reference.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from harness.wire.model import WireKind

WIRE_OF_KIND: Final = MappingProxyType[str, WireKind](
    {
        "openai": "openai_chat",
        "openai-responses": "openai_responses",
        "anthropic": "anthropic",
        "gemini": "gemini",
        "ollama": "ollama",
        "cohere": "cohere",
    }
)
KIND_OF_WIRE: Final = MappingProxyType[WireKind, str]({w: k for k, w in WIRE_OF_KIND.items()})
