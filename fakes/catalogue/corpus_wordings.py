"""Overflow wordings learnt from the public corpus (tests/corpus/overflow.jsonl).

Each variant is a wording real users captured from a provider the fakes simulate that the
providers.md rows did not already give; ``source`` names one capture. Envelopes are the
provider's usual error shape; where the capture showed only the message, ``inferred`` says
the envelope was not seen byte for byte. The llama.cpp entries live in ``compatible`` and
are not repeated here.
"""

from __future__ import annotations

from types import MappingProxyType

from fakes.catalogue.model import (
    ANTHROPIC_HEADERS,
    MAX_CTX,
    OPENAI_HEADERS,
    REQUESTED,
    OverflowEntry,
    gemini_error,
    openai_error,
    openrouter_error,
)
from fakes.scripting.templates import Template

E = OverflowEntry
_AZURE_HEADERS = MappingProxyType({"apim-request-id": "{uuid}", "x-request-id": "{uuid}"})
_LEGACY = (
    "This model's maximum context length is {window} tokens, however you requested "
    "{requested} tokens "
)
_ENDPOINT = (
    "This endpoint's maximum context length is {window} tokens. However, you requested about "
)
_MIDDLE_OUT = (
    'Please reduce the length of either one, or use the "middle-out" transform to compress '
    "your prompt automatically."
)
_MODEL_LEN = "Make sure that `max_model_len` is no smaller than the number of text tokens."


def _vllm(message: str) -> Template:
    return {
        "object": "error",
        "message": message,
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }


def _lmstudio(message: str) -> Template:
    return {"error": message}


OPENAI_WORDINGS: tuple[OverflowEntry, ...] = (
    E(
        "openai",
        "openai_chat",
        "legacy_prompt",
        400,
        openai_error(
            _LEGACY + "({input} in your prompt; {completion} for the completion). "
            "Please reduce your prompt; or completion length.",
            None,
            None,
        ),
        match="in your prompt;",
        source="hwchase17/chat-your-data#10",
        headers=OPENAI_HEADERS,
        trigger="input_plus_output",
        inferred=True,
    ),
    E(
        "openai",
        "openai_chat",
        "legacy_prompt_comma",
        400,
        openai_error(
            _LEGACY + "({input} in your prompt, {completion} for the completion). "
            "Please reduce your prompt or completion length.",
            None,
            None,
        ),
        match="in your prompt,",
        source="stanford-crfm/helm#94",
        headers=OPENAI_HEADERS,
        trigger="input_plus_output",
        inferred=True,
    ),
    E(
        "openai",
        "openai_chat",
        "configured_limit",
        400,
        openai_error(
            "Input tokens exceed the configured limit of {window} tokens. Your messages "
            "resulted in {input} tokens. Please reduce the length of the messages.",
            "messages",
            "context_length_exceeded",
        ),
        match="input tokens exceed the configured limit",
        source="cline/cline#5474",
        headers=OPENAI_HEADERS,
    ),
    E(
        "openai",
        "openai_chat",
        "terse",
        400,
        openai_error(
            "This model's maximum context length has been exceeded. "
            "Please reduce the length of the messages.",
            "messages",
            "context_length_exceeded",
        ),
        match="maximum context length has been exceeded",
        source="Niek/chatgpt-web#525",
        headers=OPENAI_HEADERS,
        inferred=True,
    ),
    E(
        "azure",
        "openai_chat",
        "with_completion",
        400,
        openai_error(MAX_CTX + REQUESTED, "messages", "context_length_exceeded"),
        match="code=context_length_exceeded",
        source="Azure/azure-sdk-for-net#41892",
        headers=_AZURE_HEADERS,
        trigger="input_plus_output",
    ),
)

HOSTED_WORDINGS: tuple[OverflowEntry, ...] = (
    E(
        "anthropic",
        "anthropic",
        "request_size",
        413,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "Request size exceeds model context window",
            },
            "request_id": "{request_id}",
        },
        match="request size exceeds model context window",
        source="anthropics/claude-code#6380",
        headers=ANTHROPIC_HEADERS,
    ),
    E(
        "gemini",
        "gemini",
        "no_parens",
        400,
        gemini_error(
            "The input token count exceeds the maximum number of tokens allowed {window}."
        ),
        match="exceeds the maximum number of tokens allowed",
        source="google-gemini/gemini-cli#15184",
    ),
    E(
        "openrouter",
        "openai_chat",
        "middle_out_no_tools",
        400,
        openrouter_error(
            _ENDPOINT + "{requested} tokens ({input} of text input, {completion} in the "
            "output). " + _MIDDLE_OUT
        ),
        match="maximum context length is",
        source="OpenHands/OpenHands#9937",
        trigger="input_plus_output",
        inferred=True,
    ),
    E(
        "openrouter",
        "openai_chat",
        "text_only",
        400,
        openrouter_error(_ENDPOINT + "{input} tokens ({input} of text input). " + _MIDDLE_OUT),
        match="maximum context length is",
        source="refly-ai/refly#1177",
        inferred=True,
    ),
)

SERVER_WORDINGS: tuple[OverflowEntry, ...] = (
    E(
        "cerebras",
        "openai_chat",
        "current_length",
        400,
        openai_error(
            "Please reduce the length of the messages or completion. Current length is "
            "{requested} while limit is {window}",
            None,
            None,
        ),
        match="while limit is",
        source="cline/cline#5140",
        trigger="input_plus_output",
        inferred=True,
    ),
    E(
        "vllm",
        "openai_chat",
        "decoder_prompt",
        400,
        _vllm(
            "The decoder prompt (length {input}) is longer than the maximum model length of "
            "{window}. " + _MODEL_LEN
        ),
        match="is longer than the maximum model length",
        source="Gabesarch/grounded-rl#16",
    ),
    E(
        "vllm",
        "openai_chat",
        "prompt_length",
        400,
        _vllm("Prompt length of {input} is longer than the maximum model length of {window}."),
        match="is longer than the maximum model length",
        source="hiyouga/LlamaFactory#7723",
        inferred=True,
    ),
    E(
        "vllm",
        "openai_chat",
        "total_length",
        400,
        _vllm(
            "The prompt (total length {input}) is too long to fit into the model (context "
            "length {window}). Make sure that `max_model_len` is no smaller than the number "
            "of text tokens plus multimodal tokens."
        ),
        match="is too long to fit into the model",
        source="vllm-project/vllm#12165",
        inferred=True,
    ),
    E(
        "vllm",
        "openai_chat",
        "max_tokens_too_large",
        400,
        _vllm(
            "'max_tokens' or 'max_completion_tokens' is too large: {completion}. This model's "
            "maximum context length is {window} tokens and your request has {input} input "
            "tokens ({completion} > {window} - {input}). None"
        ),
        match="maximum context length is",
        source="claude-code-best/claude-code#272",
        trigger="input_plus_output",
        inferred=True,
    ),
    E(
        "vllm",
        "openai_chat",
        "output_tokens",
        400,
        _vllm(
            MAX_CTX + "However, you requested {completion} output tokens and your prompt "
            "contains at least {input} input tokens, for a total of at least {requested} "
            "tokens. Please reduce the length of the input prompt or the number of requested "
            "output tokens. (parameter=input_tokens, value={input})"
        ),
        match="maximum context length is",
        source="0xku/kon#91",
        trigger="input_plus_output",
    ),
    E(
        "lmstudio",
        "openai_chat",
        "n_keep",
        400,
        _lmstudio(
            "The number of tokens to keep from the initial prompt is greater than the context "
            "length (n_keep: {input}>= n_ctx: {window}). Try to load the model with a larger "
            "context length, or provide a shorter input."
        ),
        match="greater than the context length",
        source="Gitlawb/openclaude#353",
    ),
    E(
        "lmstudio",
        "openai_chat",
        "input_length",
        400,
        _lmstudio("Input length {input} exceeds context length {window}"),
        match="exceeds context length",
        source="lmstudio-ai/model-catalog#38",
        inferred=True,
    ),
)

CORPUS_WORDINGS: tuple[OverflowEntry, ...] = OPENAI_WORDINGS + HOSTED_WORDINGS + SERVER_WORDINGS
