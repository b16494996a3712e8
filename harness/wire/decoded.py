"""What a decoder makes of one request body and one answer body, in any wire format.

Rows are the runtime's own ``ChatMessage`` rows in the canonical encoding of the contract
(``docs/`` and ``harness.runtime.messages``): a native assistant tool call is the compact JSON
``{"content": text|null, "tool_calls": [{"id","name","arguments"}]}``, a native tool result
``{"tool_call_id","content","attachments":[...]}``; so turns, tokens and pairs are read with
the runtime's rules, and what the observer infers is comparable with what the reference
agent reports. The fakes decode requests to the same rows (a test holds the two equal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from harness.runtime.errors import HarnessError
from harness.runtime.messages import ChatMessage


@dataclass(frozen=True, slots=True)
class DecodedRequest:
    """One generation request. ``hints`` are provider fields that name a session
    (``prompt_cache_key``, ``previous_response_id``, ``conversation``, ``metadata.user_id``,
    ``user``, ...), keyed by that dotted name. ``provider_items`` names provider-made items
    the request carries back (``"anthropic_compaction"``, ``"responses_compaction"``,
    ``"anthropic_context_management"``, ...); ``truncation_auto`` is Responses'
    ``truncation: "auto"``."""

    model: str | None
    rows: tuple[ChatMessage, ...]
    stream: bool = False
    hints: Mapping[str, str] = field(default_factory=dict)
    provider_items: tuple[str, ...] = ()
    truncation_auto: bool = False


@dataclass(frozen=True, slots=True)
class DecodedAnswer:
    """One answer. ``rows`` are what it adds to the conversation (the assistant's text or
    tool-call row); ``error_text`` is the error body or in-stream error event as text, for
    the overflow classifier (``None`` on success); ``provider_edits`` names the edits the
    provider reports it made, verbatim as it names them (Anthropic's applied edit types
    such as ``"clear_tool_uses_20250919"``; ``"compaction"`` for a compaction block or item;
    a truncation is not reported by any answer, only requested); token counts are the
    answer's own usage where it reports them;
    ``response_id`` is the id the provider gave the answer where it names one (Responses'
    ``id``), so a later request's ``previous_response_id`` finds its session."""

    rows: tuple[ChatMessage, ...] = ()
    error_text: str | None = None
    input_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    provider_edits: tuple[str, ...] = ()
    cache_write_tokens: int | None = None
    """Input tokens written to the provider's cache (Anthropic ``cache_creation_input_tokens``,
    Bedrock ``cacheWriteInputTokens``), part of ``input_tokens`` as the agent counts them."""
    stop_reason: str | None = None
    response_id: str | None = None


class WireDecodeError(HarnessError, ValueError):
    """A body the decoder cannot read as its wire format: not JSON, or an unknown shape.
    The observer turns it into an ``unobservable`` finding; it never leaves the package."""
