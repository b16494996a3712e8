"""The requests the probes send: small, sized to a token estimate, and deliberately
mis-paired, plus the over-window history of the recovery session.

Sizes are the runtime's estimate (``harness.runtime``: ``ceil(bytes / 4) + 4`` per row), so
"a request of N tokens" means what the trimming rules would call N tokens. Filler is plain
ASCII words, deterministic, and the same everywhere, so the endpoint's reported counts grow
linearly with it (the silent-truncation check relies on that).
"""

from __future__ import annotations

import itertools
import json
from typing import Final

from harness.providers import ProviderRequest
from harness.runtime import (
    ChatMessage,
    ToolCall,
    ToolSpec,
    estimate_history_tokens,
    native_tool_call_row,
    native_tool_result_row,
)

PROBE_MAX_TOKENS: Final = 16
"""Output budget of every probe: small, so input-plus-output windows move by little."""
SYSTEM_PROMPT: Final = "You are a conformance probe. Answer every message with the word OK."
QUESTION: Final = "Reply with the word OK."
FILLER_WORDS: Final = (
    "river", "stone", "maple", "cloud", "amber", "harbor", "meadow", "copper", "lantern",
    "orchard", "pebble", "willow", "canyon", "falcon", "garden", "island", "jasper", "kettle",
)  # fmt: skip
LOOKUP_TOOL: Final = ToolSpec(
    "lookup",
    "Look a word up.",
    {"type": "object", "properties": {"word": {"type": "string"}}},
)
RECOVERY_TURNS: Final = 12
"""Turns of the seeded recovery history: enough for a trim to 2/3 to drop whole turns."""
_ROW_FRAMING: Final = 4
_BYTES_PER_TOKEN: Final = 4


def filler(n_bytes: int, offset: int = 0) -> str:
    """Exactly ``n_bytes`` ASCII bytes of words; ``offset`` rotates the word cycle."""
    if n_bytes <= 0:
        return ""
    words = itertools.islice(itertools.cycle(FILLER_WORDS), offset, None)
    parts: list[str] = []
    size = 0
    while size < n_bytes:
        word = next(words)
        parts.append(word)
        size += len(word) + 1
    return " ".join(parts)[:n_bytes]


def _row_bytes(tokens: int) -> int:
    """Content bytes of a row that the estimate prices at ``tokens`` (framing included)."""
    return max(0, tokens - _ROW_FRAMING) * _BYTES_PER_TOKEN


def small_request(model: str, *, stream: bool = False) -> ProviderRequest:
    messages = [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", QUESTION)]
    return ProviderRequest(model, messages, max_tokens=PROBE_MAX_TOKENS, stream=stream)


def sized_request(model: str, tokens: int, *, stream: bool = False) -> ProviderRequest:
    """A request whose estimate is ``tokens`` (or the smallest possible, when larger)."""
    head = [ChatMessage("system", SYSTEM_PROMPT)]
    question = f"\n{QUESTION}"
    fixed = estimate_history_tokens([*head, ChatMessage("user", question)])
    body = filler(_row_bytes(tokens - fixed + _ROW_FRAMING))
    messages = [*head, ChatMessage("user", body + question)]
    return ProviderRequest(model, messages, max_tokens=PROBE_MAX_TOKENS, stream=stream)


def orphan_result_request(model: str) -> ProviderRequest:
    """A tool result whose call is not in the request (what a bad trim leaves behind)."""
    messages = [
        ChatMessage("system", SYSTEM_PROMPT),
        ChatMessage("user", "Look up the word river."),
        native_tool_result_row("call_conformance_orphan", "river: a flowing body of water"),
        ChatMessage("user", QUESTION),
    ]
    return ProviderRequest(model, messages, (LOOKUP_TOOL,), max_tokens=PROBE_MAX_TOKENS)


def unanswered_call_request(model: str) -> ProviderRequest:
    """A tool call followed by a user message instead of its result."""
    call = ToolCall("call_conformance_unanswered", LOOKUP_TOOL.name, '{"word":"river"}')
    messages = [
        ChatMessage("system", SYSTEM_PROMPT),
        ChatMessage("user", "Look up the word river."),
        native_tool_call_row(None, [call]),
        ChatMessage("user", QUESTION),
    ]
    return ProviderRequest(model, messages, (LOOKUP_TOOL,), max_tokens=PROBE_MAX_TOKENS)


def tool_round_request(model: str, call_text: str | None) -> ProviderRequest:
    """A well-paired tool round whose call row has no text: ``call_text`` is ``None``
    (sent as ``content: null`` on OpenAI-style wires) or ``""``. The runtime replays every
    tool-call-only turn in one of these shapes, so an endpoint must accept both."""
    call = ToolCall("call_conformance_shape", LOOKUP_TOOL.name, '{"word":"river"}')
    messages = [
        ChatMessage("system", SYSTEM_PROMPT),
        ChatMessage("user", "Look up the word river."),
        _call_row(call_text, call),
        native_tool_result_row(call.id, "river: a flowing body of water"),
    ]
    return ProviderRequest(model, messages, (LOOKUP_TOOL,), max_tokens=PROBE_MAX_TOKENS)


def _call_row(call_text: str | None, call: ToolCall) -> ChatMessage:
    """The runtime writes blank call text as ``null``; a history seeded from a provider that
    answered ``""`` keeps the ``""`` in its envelope, and the wires send it as it is."""
    row = native_tool_call_row(None, [call])
    if call_text is None:
        return row
    envelope = json.loads(row.content)
    envelope["content"] = call_text
    return ChatMessage("assistant", json.dumps(envelope, separators=(",", ":")))


def recovery_history(tokens: int, turns: int = RECOVERY_TURNS) -> list[ChatMessage]:
    """A system row and ``turns`` user/assistant turns estimated at ``tokens`` in all."""
    rows = [ChatMessage("system", SYSTEM_PROMPT)]
    answer = ChatMessage("assistant", "OK")
    per_turn = max(1, tokens - estimate_history_tokens(rows)) // turns
    user_tokens = max(_ROW_FRAMING + 1, per_turn - estimate_history_tokens([answer]))
    for turn in range(turns):
        rows.append(ChatMessage("user", filler(_row_bytes(user_tokens), offset=turn)))
        rows.append(answer)
    return rows
