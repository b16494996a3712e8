"""Overflow answers of the hosted first-party APIs (providers.md §1)."""

from __future__ import annotations

from types import MappingProxyType

from fakes.catalogue.model import (
    ANTHROPIC_HEADERS,
    BEDROCK_HEADERS,
    GEMINI_TEXT,
    MAX_CTX,
    OPENAI_HEADERS,
    REQUESTED,
    RESPONSES_TEXT,
    OverflowEntry,
    gemini_error,
    openai_error,
)

E = OverflowEntry

HOSTED: tuple[OverflowEntry, ...] = (
    # OpenAI Chat Completions
    E(
        "openai",
        "openai_chat",
        "default",
        400,
        openai_error(
            MAX_CTX + "However, your messages resulted in {input} tokens. "
            "Please reduce the length of the messages.",
            "messages",
            "context_length_exceeded",
        ),
        match="code=context_length_exceeded",
        source="chathub-dev/chathub#126",
        headers=OPENAI_HEADERS,
    ),
    E(
        "openai",
        "openai_chat",
        "with_completion",
        400,
        openai_error(MAX_CTX + REQUESTED, "messages", "context_length_exceeded"),
        match="code=context_length_exceeded",
        source="FoundationAgents/OpenManus#62",
        headers=OPENAI_HEADERS,
        trigger="input_plus_output",
    ),
    E(
        "openai",
        "openai_chat",
        "with_functions",
        400,
        openai_error(
            MAX_CTX + "However, you requested {requested} tokens ({messages} in the "
            "messages, {tools} in the functions, and {completion} in the completion). "
            "Please reduce the length of the messages, functions, or completion.",
            "messages",
            "context_length_exceeded",
        ),
        match="code=context_length_exceeded",
        source="Azure-Samples/azure-search-openai-demo#1199",
        headers=OPENAI_HEADERS,
        trigger="input_plus_output",
    ),
    # OpenAI Responses (the stream form is the catalogue's "OpenAI Responses, streaming" row)
    E(
        "openai",
        "openai_responses",
        "default",
        400,
        openai_error(RESPONSES_TEXT, "input", "context_length_exceeded"),
        match="code=context_length_exceeded",
        source="openai/openai-agents-python#1093",
        headers=OPENAI_HEADERS,
        stream_event={
            "type": "error",
            "sequence_number": 2,
            "error": {
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
                "message": RESPONSES_TEXT,
                "param": "input",
            },
        },
    ),
    # Azure OpenAI
    E(
        "azure",
        "openai_chat",
        "default",
        400,
        openai_error(
            MAX_CTX + "However, your messages resulted in {input} tokens. "
            "Please reduce the length of the messages.",
            "messages",
            "context_length_exceeded",
        ),
        match="code=context_length_exceeded",
        source="microsoft/kernel-memory#516",
        headers=MappingProxyType({"apim-request-id": "{uuid}", "x-request-id": "{uuid}"}),
    ),
    E(
        "azure",
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
        source="BerriAI/litellm#15968",
        headers=MappingProxyType({"apim-request-id": "{uuid}", "x-request-id": "{uuid}"}),
    ),
    # Anthropic
    E(
        "anthropic",
        "anthropic",
        "default",
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: {input} tokens > {window} maximum",
            },
            "request_id": "{request_id}",
        },
        match="prompt is too long",
        source="earendil-works/pi#102",
        headers=ANTHROPIC_HEADERS,
    ),
    E(
        "anthropic",
        "anthropic",
        "max_tokens",
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "input length and `max_tokens` exceed context limit: "
                "{input} + {completion} > {window}, "
                "decrease input length or `max_tokens` and try again",
            },
        },
        match="exceed context limit",
        source="continuedev/continue#6080",
        headers=ANTHROPIC_HEADERS,
        trigger="input_plus_output",
    ),
    E(
        "anthropic",
        "anthropic",
        "in_stream",
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: {input} tokens > {window} maximum",
            },
            "request_id": "{request_id}",
        },
        match="prompt is too long",
        source="earendil-works/pi#102 (in-stream delivery inferred)",
        headers=ANTHROPIC_HEADERS,
        inferred=True,
        stream_event={
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: {input} tokens > {window} maximum",
            },
        },
    ),
    E(
        "anthropic",
        "anthropic",
        "context_window_stop",
        200,
        None,
        match="stop_reason=model_context_window_exceeded",
        source="Anthropic SDK beta enums",
        trigger="input_plus_output",
        delivery="stop",
    ),
    # Google Gemini
    E(
        "gemini",
        "gemini",
        "default",
        400,
        gemini_error(GEMINI_TEXT),
        match="exceeds the maximum number of tokens allowed",
        source="google-gemini/gemini-cli#4118",
    ),
    E(
        "gemini",
        "gemini",
        "list",
        400,
        (
            {
                "error": {
                    "code": 400,
                    "message": GEMINI_TEXT,
                    "errors": (
                        {"message": GEMINI_TEXT, "domain": "global", "reason": "badRequest"},
                    ),
                    "status": "INVALID_ARGUMENT",
                }
            },
        ),
        match="exceeds the maximum number of tokens allowed",
        source="google-gemini/gemini-cli#6678",
    ),
    # AWS Bedrock (Converse)
    E(
        "bedrock",
        "bedrock",
        "default",
        400,
        {
            "message": "The model returned the following errors: "
            "Input is too long for requested model."
        },
        match="Input is too long",
        source="continuedev/continue#6005",
        headers=BEDROCK_HEADERS,
        inferred=True,
    ),
    E(
        "bedrock",
        "bedrock",
        "invoke",
        400,
        {"message": "Input is too long for requested model."},
        match="Input is too long",
        source="aws-samples/assessment-generator#2",
        headers=BEDROCK_HEADERS,
        inferred=True,
    ),
    E(
        "bedrock",
        "bedrock",
        "claude",
        400,
        {
            "message": "The model returned the following errors: "
            "prompt is too long: {input} tokens "
            "> {window} maximum"
        },
        match="prompt is too long",
        source="daisuke-awaji/moca#254",
        headers=BEDROCK_HEADERS,
        inferred=True,
    ),
)
