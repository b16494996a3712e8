"""The reference's context-overflow detection (spec 10): substring matching, nothing else.

One shared list for every provider; the rendered error text is lower-cased and searched.
No HTTP status and no error code is inspected, so ``context_length_exceeded`` (with
underscores) does not match. The richer ``extended`` classifier lives with the provider
clients; this is the ``reference`` one, exactly.
"""

from typing import Final

CONTEXT_WINDOW_EXCEEDED_HINTS: Final = (
    "exceeds the context window",
    "exceeds the available context size",
    "context window of this model",
    "maximum context length",
    "context length exceeded",
    "too many tokens",
    "token limit exceeded",
    "prompt is too long",
    "input is too long",
    "prompt exceeds max length",
)

# The channel orchestrator's own, smaller list: it lacks the llama.cpp and Z.AI phrases.
CHANNEL_OVERFLOW_HINTS: Final = tuple(
    hint
    for hint in CONTEXT_WINDOW_EXCEEDED_HINTS
    if hint not in ("exceeds the available context size", "prompt exceeds max length")
)


def is_context_window_exceeded(error_text: str) -> bool:
    lowered = error_text.lower()
    return any(hint in lowered for hint in CONTEXT_WINDOW_EXCEEDED_HINTS)


def is_channel_context_window_overflow(error_text: str) -> bool:
    lowered = error_text.lower()
    return any(hint in lowered for hint in CHANNEL_OVERFLOW_HINTS)
