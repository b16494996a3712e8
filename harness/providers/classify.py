"""Overflow classifiers (spec 19.10): is this provider answer a context-window overflow?

Two classifiers, both pure functions of ``(provider, status, body)``, where ``body`` is the
provider's own body (an HTTP body, or the data of an in-stream error event, status ``None``):

``reference``
    Exactly the reference runtime: ``harness.runtime.is_context_window_exceeded`` applied to
    ``render_provider_error(provider, status, body)``, i.e. ten lower-cased substrings over
    ``"{provider} API error ({status}): {body[:500]}"``. It keeps the reference's misses
    (Gemini, Groq, xAI, Together, LM Studio, Ollama's 400, Anthropic's input + max_tokens,
    anything past character 500) and its false positives (Bedrock's throttle "Too many
    tokens, please wait", a proxy's "token limit exceeded for this minute").

``extended``
    The providers.md catalogue: structured codes first (``code``/``type``/``status``/
    ``stop_reason`` anywhere in the JSON body), then the catalogue's phrases, over the raw
    body and every decoded string in it (so escapes and ``metadata.raw`` wrappers do not
    hide a phrase). A negative list wins over both: throttling, rate limits, quota,
    per-field length limits and Groq's ``max_completion_tokens`` bound are never overflows.

The runtime uses ``extended`` by default; a ``ContextWindowExceeded`` carries both verdicts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol

from harness.providers.errors import render_provider_error
from harness.providers.wirejson import loads_or_none
from harness.runtime.overflow import is_context_window_exceeded

_CODE_KEYS: Final = frozenset({"code", "type", "status", "stop_reason", "stopreason", "__type"})

OVERFLOW_CODES: Final = frozenset(
    {
        "context_length_exceeded",  # OpenAI Chat/Responses, Azure, Groq
        "exceed_context_size_error",  # llama.cpp
        "model_context_window_exceeded",  # Anthropic/Bedrock stop reason, z.ai
    }
)
# Numeric-looking codes only count under the key ``code``: Mistral 3051, Zhipu 1261.
OVERFLOW_NUMERIC_CODES: Final = frozenset({"3051", "1261"})

OVERFLOW_PHRASES: Final = (
    "context_length_exceeded",  # also seen as text, e.g. the .NET SDK's "ErrorCode: ..."
    "maximum context length is",  # OpenAI, DeepSeek, vLLM, OpenRouter, FastChat
    "exceeds the model's maximum context length",
    "exceeds the context window",  # OpenAI Responses
    "exceeds the available context size",  # llama.cpp
    "input tokens exceed the configured limit",  # Azure
    "prompt is too long",  # Anthropic, Claude on Bedrock
    "exceed context limit",  # Anthropic input + max_tokens
    "exceeds the maximum number of tokens allowed",  # Gemini
    "input is too long",  # Bedrock
    "too large for model with",  # Mistral
    "reduce the length of the messages",  # Groq without a code
    "longer than the model's context length",  # Together, SGLang
    "`inputs` tokens + `max_new_tokens` must be",  # TGI-style Together
    "too many tokens: size limit exceeded",  # Cohere v2
    "too many tokens: total number of tokens",  # Cohere v1
    "maximum prompt length is",  # xAI
    "prompt too long; exceeded",  # Ollama
    "greater than the context length",  # LM Studio
    "loaded with context length of only",  # LM Studio, other wording
    "exceeded model token limit",  # Kimi
    "context window exceeds limit",  # MiniMax
    "prompt exceeds max length",  # Zhipu
    "range of input length should be",  # DashScope
)
OVERFLOW_PHRASE_PAIRS: Final = (("current length is", "while limit is"),)  # Cerebras

NOT_OVERFLOW_CODES: Final = frozenset(
    {
        "string_above_max_length",
        "insufficient_quota",
        "rate_limit_exceeded",
        "rate_limit_error",
        "throttlingexception",
        "too_many_requests",
    }
)
NOT_OVERFLOW_PHRASES: Final = (
    "too many tokens, please wait",  # Bedrock throttle
    "throttling",
    "rate limit",
    "rate_limit",
    "too many requests",
    "string_above_max_length",
    "insufficient_quota",
    "exceeded your current quota",
    "service unavailable",
)
NOT_OVERFLOW_PHRASE_PAIRS: Final = (
    ("max_completion_tokens", "must be less than or equal to"),  # Groq
)


class OverflowClassifier(Protocol):
    def __call__(self, provider: str, status: int | None, body: str) -> bool: ...


def reference_is_overflow(provider: str, status: int | None, body: str) -> bool:
    """The reference's verdict, misses and false positives included."""
    return is_context_window_exceeded(render_provider_error(provider, status, body))


def extended_is_overflow(provider: str, status: int | None, body: str) -> bool:
    """The catalogue's verdict; ``provider`` and ``status`` do not change it (the body
    decides, so an overflow arriving with a 500 or a 200 is still recognised)."""
    del provider, status
    decoded = loads_or_none(body)
    codes = set(_codes(decoded))
    haystack = "\n".join([body, *_strings(decoded)]).lower()
    if codes & NOT_OVERFLOW_CODES or _any_phrase(haystack, NOT_OVERFLOW_PHRASES):
        return False
    if any(_pair(haystack, pair) for pair in NOT_OVERFLOW_PHRASE_PAIRS):
        return False
    if codes & OVERFLOW_CODES or _numeric_overflow_code(decoded):
        return True
    if _anthropic_prompt_too_long(codes, haystack):
        return True
    return _any_phrase(haystack, OVERFLOW_PHRASES) or any(
        _pair(haystack, pair) for pair in OVERFLOW_PHRASE_PAIRS
    )


class Classifier(StrEnum):
    """The two classifiers by name, as scenario files and reports spell them."""

    REFERENCE = "reference"
    EXTENDED = "extended"

    def is_overflow(self, provider: str, status: int | None, body: str) -> bool:
        if self is Classifier.REFERENCE:
            return reference_is_overflow(provider, status, body)
        return extended_is_overflow(provider, status, body)


DEFAULT_CLASSIFIER: Final = Classifier.EXTENDED


@dataclass(frozen=True, slots=True)
class OverflowVerdicts:
    reference: bool
    extended: bool

    def of(self, classifier: Classifier) -> bool:
        return self.reference if classifier is Classifier.REFERENCE else self.extended


def classify_overflow(provider: str, status: int | None, body: str) -> OverflowVerdicts:
    """Both verdicts at once: every overflow error records what each classifier said."""
    return OverflowVerdicts(
        reference=reference_is_overflow(provider, status, body),
        extended=extended_is_overflow(provider, status, body),
    )


def is_context_window_stop(finish_reason: str | None) -> bool:
    """A *successful* reply whose generation stopped at the window (Anthropic's
    ``stop_reason: model_context_window_exceeded``, Bedrock's equivalent). Not an error:
    the reply is returned, and callers that care ask this."""
    return finish_reason is not None and finish_reason.lower() == "model_context_window_exceeded"


def _any_phrase(haystack: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in haystack for phrase in phrases)


def _pair(haystack: str, pair: tuple[str, str]) -> bool:
    return pair[0] in haystack and pair[1] in haystack


def _anthropic_prompt_too_long(codes: set[str], haystack: str) -> bool:
    return "invalid_request_error" in codes and "prompt is too long" in haystack


def _walk(value: object, depth: int = 0) -> Iterator[tuple[str | None, object]]:
    """Every (key, value) pair in a decoded body; depth-bounded against hostile nesting."""
    if depth > 16:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key), item
            yield from _walk(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield None, item
            yield from _walk(item, depth + 1)


def _codes(decoded: object) -> Iterator[str]:
    for key, value in _walk(decoded):
        if key is not None and key.lower() in _CODE_KEYS and isinstance(value, str):
            yield value.lower()


def _strings(decoded: object) -> Iterator[str]:
    for _, value in _walk(decoded):
        if isinstance(value, str):
            yield value


def _numeric_overflow_code(decoded: object) -> bool:
    for key, value in _walk(decoded):
        numeric = isinstance(value, (int, str)) and not isinstance(value, bool)
        if key == "code" and numeric and str(value) in OVERFLOW_NUMERIC_CODES:
            return True
    return False
