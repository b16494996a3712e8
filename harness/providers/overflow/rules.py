"""The ``extended`` classifier's rules, as data: what rules out an overflow, what shows one.

Order matters and is the contract (``harness.providers.overflow.classify.extended_verdict``):

1. ``EXCLUSIONS`` (look-alike families) win over everything: a rate limit that mentions
   tokens, a quota, a payload-size or per-field length limit, a tokenizer warning is never an
   overflow, whatever else its body says. A status of 402 or 429 is the same statement.
2. Structure: an overflow code under a code-like key, a numeric code under ``code``, or
   llama.cpp's ``n_prompt_tokens`` over ``n_ctx``.
3. ``EVIDENCE``: the shapes overflow messages take across the field. Each is general (an
   input/prompt count compared with a window or limit; "too long"/"exceeds"/"greater than"
   before a window noun), not one provider's sentence.
4. A message that only shows inside a quotation a sentence opened (a user's own text) is
   not evidence.
5. When no message shape decided: the structural rule ``count-over-limit``
   (``harness.providers.overflow.structure``), a token count above a limit in one sentence
   or the next, whatever the words, outside quotations, with no rate, quota or time unit
   and not about the output budget alone.

Output-limit errors (``max_tokens`` too large) need no exclusion: they compare an *output*
budget with a model's output cap, and no evidence rule fires on output-only wording. Which
corpus rows each rule decides is generated into docs/recognition-matrix.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    why: str


def _rule(name: str, pattern: str, why: str) -> Rule:
    return Rule(name, re.compile(pattern), why)


NOT_OVERFLOW_STATUSES: Final = frozenset({402, 429})
CODE_KEYS: Final = frozenset(
    {"code", "type", "status", "stop_reason", "stopreason", "__type", "errortype", "error_code"}
)
OVERFLOW_CODES: Final = frozenset(
    {
        "context_length_exceeded",  # OpenAI, Azure, Groq, gateways that relay them
        "exceed_context_size_error",  # llama.cpp server
        "model_context_window_exceeded",  # Anthropic/Bedrock stop reason, z.ai
        "model_max_prompt_tokens_exceeded",  # GitHub Copilot
    }
)
OVERFLOW_NUMERIC_CODES: Final = frozenset({"3051", "1261"})  # Mistral, Zhipu: under "code" only

_WINDOW_NOUN: Final = (
    r"(?:context (?:window|length|size|limit)|(?:maximum|max) (?:context |model |prompt |input "
    r"|allowed (?:input )?)?length|model(?:'s)? token limit|available context"
    r"|maximum number of tokens allowed|configured limit|limit of \d[\d,]* tokens"
    r"|max_seq_len|(?:maximum|max) sequence length|max_model_len|n_ctx)"
)
_EXCEED_VERB: Final = (
    r"(?:exceed(?:s|ed|ing)?|greater than|longer than|larger than"
    r"|too (?:long|large) (?:to fit|for))"
)

EXCLUSIONS: Final = (
    _rule(
        "rate-limit",
        r"rate[\s_-]*limit|tokens per (?:min|minute|day)\b|\(tp[md]\)|too many requests"
        r"|\bper (?:second|minute|hour|day)\b"
        r"|throttl|please wait before trying again|resource(?: has been |_)exhausted"
        r"|overloaded|high demand|peak load",
        "throttles and per-minute/day token limits: wait, never trim",
    ),
    _rule(
        "quota-billing",
        r"quota|insufficient[ _]balance|credit balance|more credits|billing|payment required",
        "an account's money or allowance, not the window",
    ),
    _rule(
        "payload-size",
        r"request_too_large|request exceeds the maximum size|request entity too large"
        r"|failed to satisfy constraint",
        "a byte cap on the HTTP request: the window was not measured",
    ),
    _rule(
        "field-length",
        r"string_above_max_length|string too long\. expected a string with maximum length",
        "one field's character cap (OpenAI's 10 MiB per content string)",
    ),
    _rule(
        "tokenizer-warning",
        r"token indices sequence length is longer than the specified maximum sequence length"
        r"|but `max_length` is set to",
        "a local tokenizer's or generate()'s warning, not a provider's refusal",
    ),
)

EVIDENCE: Final = (
    _rule(
        "code-in-text",
        r"\b(?:context_length_exceeded|exceed_context_size_error|model_context_window_exceeded"
        r"|model_max_prompt_tokens_exceeded)\b",
        "an overflow code that survived only as text (SDK reprs, log lines)",
    ),
    _rule(
        "input-count-exceeds",
        r"\b(?:prompt|input|request)s?(?: token)?[ _](?:count|tokens|length)\b[^.;]{0,40}?"
        r"(?:\bexceed|greater than|longer than|>|must be less than|must not exceed)",
        "an input/prompt count compared with a limit",
    ),
    _rule(
        "exceeds-window",
        _EXCEED_VERB + r"\b[^.;]{0,60}?\b" + _WINDOW_NOUN,
        '"exceeds"/"longer than"/"greater than" before a context window or length',
    ),
    _rule(
        "window-exceeded",
        r"(?:context (?:window|length|size)|maximum context length)\b[^.;]{0,20}?"
        r"(?:exceeds|has been exceeded|exceeded)",
        "the window as subject: MiniMax's limit, OpenAI's terse form",
    ),
    _rule(
        "input-too-long",
        r"\b(?:prompt|input|request|query)\b[^.;:]{0,25}?\bis too (?:long|large)\b",
        "Anthropic, Bedrock, Fireworks, Dify: the input is too long",
    ),
    _rule(
        "window-is-n",
        r"maximum (?:context|prompt) length is \d|context length is only \d"
        r"|loaded with context length of only",
        "a window stated next to the request that broke it (OpenAI family, xAI, LM Studio)",
    ),
    _rule(
        "input-plus-output",
        r"`?inputs`? tokens \+ `?max_new_tokens`? must be|current length is \d[\d,]* while limit is"
        r"|too many tokens: (?:total number of tokens|size limit exceeded)"
        r"|cannot truncate to \d[\d,]*, required \d",
        "input plus output against the window: TGI-style, Cerebras, Cohere, Gemini's proxy",
    ),
    _rule(
        "reduce-messages",
        r"reduce the length of the messages|range of input length should be",
        "the provider's remedy names the input (Groq without a code, DashScope)",
    ),
)
