"""Errors that look like context overflows to a word-matcher but are not.

providers.md §1, "Negative cases": each carries words such as *tokens*, *too long*,
*limit exceeded* or *maximum length*, and a classifier that calls any of them an overflow
has a false positive. A fake answers with one when its script says so
(``Fault(kind="look_alike", name=...)``). Templates use the numbers of
``fakes.catalogue.model`` plus ``retry_after``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from fakes.catalogue.model import WireName
from fakes.scripting.templates import Template


@dataclass(frozen=True, slots=True)
class LookAlike:
    name: str
    wire: WireName
    status: int
    body: Template
    why: str
    source: str
    headers: Mapping[str, str] = field(default_factory=dict)
    inferred: bool = False


_RETRY = MappingProxyType({"retry-after": "{retry_after}"})

LOOK_ALIKES: tuple[LookAlike, ...] = (
    LookAlike(
        "bedrock_throttle",
        "bedrock",
        429,
        {"message": "Too many tokens, please wait before trying again."},
        why='"too many tokens" is a zeroclaw overflow hint (a known false positive)',
        source="providers.md §1 (Bedrock row); pi-mono NON_OVERFLOW_PATTERNS",
        headers=MappingProxyType(
            {"x-amzn-ErrorType": "ThrottlingException", "x-amzn-RequestId": "{uuid}"}
        ),
    ),
    LookAlike(
        "rate_limit_tokens",
        "openai_chat",
        429,
        {
            "error": {
                "message": "Rate limit reached for {model} in organization org-fake on tokens "
                "per min (TPM): Limit 30000, Used 30000, Requested {input}. Please try again in "
                "{retry_after}s. Visit https://platform.openai.com/account/rate-limits to "
                "learn more.",
                "type": "tokens",
                "param": None,
                "code": "rate_limit_exceeded",
            }
        },
        why="mentions tokens and a limit; it is a 429 with retry-after",
        source="OpenAI rate-limit errors",
        headers=MappingProxyType(
            {
                "retry-after": "{retry_after}",
                "x-ratelimit-limit-tokens": "30000",
                "x-ratelimit-remaining-tokens": "0",
                "x-ratelimit-reset-tokens": "{retry_after}s",
            }
        ),
    ),
    LookAlike(
        "proxy_token_rate_limit",
        "openai_chat",
        429,
        {
            "error": {
                "message": "Rate limit reached: token limit exceeded for this minute",
                "type": "rate_limit_error",
                "param": None,
                "code": "rate_limit_exceeded",
            }
        },
        why='"token limit exceeded" is a zeroclaw overflow hint',
        source="providers.md §1 negative cases",
        headers=_RETRY,
        inferred=True,
    ),
    LookAlike(
        "string_above_max_length",
        "openai_responses",
        400,
        {
            "error": {
                "message": "Invalid 'input[2].output': string too long. Expected a string with "
                "maximum length 10485760, but got a string with length 10485761 instead.",
                "type": "invalid_request_error",
                "param": "input[2].output",
                "code": "string_above_max_length",
            }
        },
        why="a per-field limit; LiteLLM's substring list matches its wording",
        source="openai/openai-agents-python#177",
    ),
    LookAlike(
        "insufficient_quota",
        "openai_chat",
        429,
        {
            "error": {
                "message": "You exceeded your current quota, please check your plan and billing "
                "details. For more information on this error, read the docs: "
                "https://platform.openai.com/docs/guides/error-codes/api-errors.",
                "type": "insufficient_quota",
                "param": None,
                "code": "insufficient_quota",
            }
        },
        why='"exceeded" plus a 429 that retrying never fixes',
        source="providers.md §1 negative cases",
    ),
    LookAlike(
        "groq_max_completion_tokens",
        "openai_chat",
        400,
        {
            "error": {
                "message": "`max_completion_tokens` must be less than or equal to `40960`, the "
                "maximum value for `max_completion_tokens` is less than the `context_window` "
                "for this model",
                "type": "invalid_request_error",
                "param": "max_completion_tokens",
            }
        },
        why="mentions the context window; the fix is a smaller output budget, not a trim",
        source="providers.md §1 negative cases",
        inferred=True,
    ),
    LookAlike(
        "anthropic_rate_limit",
        "anthropic",
        429,
        {
            "type": "error",
            "error": {
                "type": "rate_limit_error",
                "message": "This request would exceed the rate limit for your organization "
                "(org-fake) of 40,000 input tokens per minute. Please try again later.",
            },
            "request_id": "{request_id}",
        },
        why='"exceed" and "input tokens" in a rate limit',
        source="Anthropic rate-limit errors",
        headers=MappingProxyType({"retry-after": "{retry_after}", "request-id": "{request_id}"}),
        inferred=True,
    ),
    LookAlike(
        "anthropic_request_too_large",
        "anthropic",
        413,
        {
            "type": "error",
            "error": {
                "type": "request_too_large",
                "message": "Request exceeds the maximum allowed number of bytes.",
            },
        },
        why="payload bytes, not tokens (providers.md §1, Anthropic 'not an error' row)",
        source="pi-mono overflow.ts (isRequestTooLarge)",
        inferred=True,
    ),
    LookAlike(
        "gemini_resource_exhausted",
        "gemini",
        429,
        {
            "error": {
                "code": 429,
                "message": "Resource has been exhausted (e.g. check quota).",
                "status": "RESOURCE_EXHAUSTED",
            }
        },
        why='"exhausted" reads like a full window',
        source="Gemini quota errors",
        inferred=True,
    ),
)


def look_alike(name: str) -> LookAlike:
    for entry in LOOK_ALIKES:
        if entry.name == name:
            return entry
    known = ", ".join(e.name for e in LOOK_ALIKES)
    raise KeyError(f"unknown look-alike {name!r}; known: {known}")
