"""Overflow answers of the OpenAI-compatible family and Cohere (providers.md §1)."""

from __future__ import annotations

from fakes.catalogue.captured import LLAMACPP_BUILD, LLAMACPP_OVERFLOW
from fakes.catalogue.model import (
    MAX_CTX,
    OLLAMA_TEXT,
    OPENROUTER_TEXT,
    REQUESTED,
    OverflowEntry,
    openai_error,
    openrouter_error,
)
from fakes.scripting.templates import Num

E = OverflowEntry

COMPATIBLE: tuple[OverflowEntry, ...] = (
    E(
        "mistral",
        "openai_chat",
        "default",
        400,
        {
            "object": "error",
            "message": "Prompt contains {input} tokens and 0 draft tokens, too large "
            "for model with {window} maximum context length",
            "type": "invalid_request_invalid_args",
            "param": None,
            "code": "3051",
        },
        match="code=3051",
        source="pydantic-ai tests",
    ),
    E(
        "groq",
        "openai_chat",
        "default",
        400,
        openai_error(
            "Please reduce the length of the messages or completion.",
            "messages",
            "context_length_exceeded",
        ),
        match="code=context_length_exceeded",
        source="letta-ai/letta#1963",
    ),
    E(
        "groq",
        "openai_chat",
        "no_code",
        400,
        {
            "error": {
                "message": "Please reduce the length of the messages or completion.",
                "type": "invalid_request_error",
                "param": "messages",
            }
        },
        match="reduce the length of the messages",
        source="pydantic-ai tests",
    ),
    E(
        "deepseek",
        "openai_chat",
        "default",
        400,
        openai_error(MAX_CTX + REQUESTED, None, "invalid_request_error"),
        match="maximum context length is",
        source="NoFxAiOS/nofx#1278",
        trigger="input_plus_output",
    ),
    E(
        "openrouter",
        "openai_chat",
        "default",
        400,
        openrouter_error(OPENROUTER_TEXT),
        match="maximum context length is",
        source="earendil-works/pi#6378",
        trigger="input_plus_output",
    ),
    E(
        "openrouter",
        "openai_chat",
        "http200",
        200,
        openrouter_error(OPENROUTER_TEXT),
        match="maximum context length is",
        source="pydantic-ai tests (HTTP-200 case)",
        trigger="input_plus_output",
    ),
    E(
        "openrouter",
        "openai_chat",
        "middle_out",
        400,
        openrouter_error(
            OPENROUTER_TEXT.replace("the context-compression plugin", 'the "middle-out" transform')
        ),
        match="maximum context length is",
        source="refly-ai/refly#1177",
        trigger="input_plus_output",
    ),
    E(
        "ollama",
        "ollama",
        "default",
        200,
        None,
        match="prompt_eval_count < expected",
        source="ollama/ollama#4967",
        delivery="truncate",
    ),
    E(
        "ollama",
        "ollama",
        "error",
        400,
        {"error": OLLAMA_TEXT},
        match="prompt too long; exceeded",
        source="ollama/ollama#17889",
    ),
    E(
        "ollama",
        "openai_chat",
        "default",
        200,
        None,
        match="usage.prompt_tokens < expected",
        source="ollama/ollama#10368",
        delivery="truncate",
    ),
    E(
        "ollama",
        "openai_chat",
        "error",
        400,
        openai_error(OLLAMA_TEXT, None, None),
        match="prompt too long; exceeded",
        source="ollama/ollama#17889 (OpenAI-compatible wrapping inferred)",
        inferred=True,
    ),
    E(
        "vllm",
        "openai_chat",
        "default",
        400,
        {
            "object": "error",
            "message": MAX_CTX + REQUESTED,
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
        match="maximum context length is",
        source="vllm-project/vllm#4667",
        trigger="input_plus_output",
    ),
    E(
        "vllm",
        "openai_chat",
        "input_only",
        400,
        {
            "object": "error",
            "message": MAX_CTX + "However, your request has {input} input tokens. "
            "Please reduce the length of the input messages.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
        match="maximum context length is",
        source="vllm-project/vllm#20409",
    ),
    E(
        "llamacpp",
        "openai_chat",
        "default",
        400,
        LLAMACPP_OVERFLOW,
        match="type=exceed_context_size_error",
        source=f"captured from {LLAMACPP_BUILD}",
    ),
    E(
        "llamacpp",
        "openai_chat",
        "no_numbers",
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": Num("input"),
                "n_ctx": Num("window"),
            }
        },
        match="type=exceed_context_size_error",
        source="ggml-org/llama.cpp#17284 (older builds)",
    ),
    E(
        "llamacpp",
        "openai_chat",
        "status500",
        500,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": Num("input"),
                "n_ctx": Num("window"),
            }
        },
        match="type=exceed_context_size_error",
        source="ggml-org/llama.cpp#15780",
    ),
    E(
        "llamacpp",
        "openai_chat",
        "numbers",
        400,
        {
            "error": {
                "code": 400,
                "message": "request ({input} tokens) exceeds the available context "
                "size ({window} tokens), try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": Num("input"),
                "n_ctx": Num("window"),
            }
        },
        match="exceeds the available context size",
        source="oobabooga/textgen#7257",
    ),
    E(
        "lmstudio",
        "openai_chat",
        "default",
        400,
        {
            "error": "Trying to keep the first {input} tokens when context the overflows. However, "
            "the model is loaded with context length of only {window} tokens, which is not enough."
        },
        match="which is not enough",
        source="lmstudio-ai/lmstudio-bug-tracker#546",
        inferred=True,
    ),
    E(
        "lmstudio",
        "openai_chat",
        "keep",
        400,
        {
            "error": "The number of tokens to keep from the initial prompt is greater than the "
            "context length"
        },
        match="greater than the context length",
        source="cline/cline#3664",
        inferred=True,
    ),
    E(
        "together",
        "openai_chat",
        "default",
        400,
        openai_error(
            "The input ({input} tokens) is longer than the model's context length "
            "({window} tokens).",
            None,
            None,
        ),
        match="longer than the model's context length",
        source="BerriAI/litellm#10793",
        inferred=True,
    ),
    E(
        "together",
        "openai_chat",
        "tgi",
        422,
        {
            "error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= "
            "{window}. "
            "Given: {input} `inputs` tokens and {completion} `max_new_tokens`",
            "error_type": "validation",
        },
        match="`inputs` tokens + `max_new_tokens` must be",
        source="bytedance/UI-TARS-desktop#626",
        trigger="input_plus_output",
        inferred=True,
    ),
    E(
        "xai",
        "openai_chat",
        "default",
        400,
        {
            "code": "Client specified an invalid argument",
            "error": "This model's maximum prompt "
            "length is {window} but the request contains {input} tokens.",
        },
        match="maximum prompt length is",
        source="pi-mono overflow.ts",
        inferred=True,
    ),
    E(
        "cohere",
        "cohere",
        "default",
        400,
        {
            "id": "{uuid}",
            "message": "too many tokens: size limit exceeded by {excess} tokens. Try "
            "using shorter or fewer inputs. The limit for this model is {window} tokens.",
        },
        match="too many tokens: size limit exceeded",
        source="pydantic-ai tests",
    ),
    E(
        "cohere",
        "cohere",
        "v1",
        400,
        {
            "message": "too many tokens: total number of tokens (prompt and prediction) "
            "cannot exceed "
            "{window} - received {requested}."
        },
        match="too many tokens: total number of tokens",
        source="cohere-ai/sandbox-topically#4",
        trigger="input_plus_output",
        inferred=True,
    ),
)
