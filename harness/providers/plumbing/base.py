"""What the agent loop needs from a provider client, independent of any wire format."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from harness.providers.clients.context_management import ProviderEdit
from harness.runtime.estimate import ToolSpec
from harness.runtime.messages import ChatMessage, ToolCall


@dataclass(frozen=True, slots=True)
class Usage:
    """Usage normalised across providers. ``input_tokens`` is the whole context the
    provider counted (Anthropic's cache reads are added back in, see providers.md §2)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    """Provider-facing rows in the canonical encoding of spec 1.1, plus tools."""

    model: str
    messages: Sequence[ChatMessage]
    tools: Sequence[ToolSpec] | None = None
    max_tokens: int | None = None
    stream: bool = False


@dataclass(frozen=True, slots=True)
class ProviderReply:
    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model: str | None = None
    status_code: int = 200
    provider_edits: tuple[ProviderEdit, ...] = ()  # what the provider reports it edited


class ProviderClient(Protocol):
    """One wire format over an injected ``httpx.AsyncClient``.

    ``complete`` returns a reply or raises a ``ProviderError`` subclass; it never returns
    an error disguised as a reply (HTTP-200 error bodies and in-stream errors are raised).
    """

    provider_kind: str

    async def complete(self, request: ProviderRequest) -> ProviderReply: ...
