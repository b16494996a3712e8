"""Which scenario provider kinds a protocol runtime can be given, by which wire name, and
the features a runtime declares (stdlib only: ``trimscope sut reference`` starts fast).

A kind is portable when it is its wire's plain client: the reference's other kinds that
speak the OpenAI chat wire (groq, mistral, azure, ...) add quirks of their provider that
a runtime told only ``openai_chat`` cannot know, so the same scenario would not mean the
same requests. ``bedrock`` has no client kind of the reference.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final, Literal, TypeAlias

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

Feature: TypeAlias = Literal["tools", "system", "budget", "turn_limit", "events"]
FEATURES: Final[tuple[Feature, ...]] = ("tools", "system", "budget", "turn_limit", "events")
"""What a runtime may declare in its ``hello``: it takes tools, a system prompt, a token
budget, a turn limit; it self-reports events. A scenario needing one it lacks is skipped."""
