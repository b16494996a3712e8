"""Overflow answers of the catalogue's "Others seen" row: wording from the catalogue,
body shapes inferred (``inferred=True``)."""

from __future__ import annotations

from fakes.catalogue.model import (
    MAX_CTX,
    REQUESTED,
    OverflowEntry,
    openai_error,
)

E = OverflowEntry

OTHERS: tuple[OverflowEntry, ...] = (
    E(
        "kimi",
        "openai_chat",
        "default",
        400,
        openai_error(
            "Your request exceeded model token limit: {window} (requested: {input})", None, None
        ),
        match="exceeded model token limit",
        source="pi-mono overflow.ts",
        inferred=True,
    ),
    E(
        "fastchat",
        "openai_chat",
        "default",
        400,
        {"object": "error", "message": MAX_CTX + REQUESTED, "code": 40303},
        match="maximum context length is",
        source="chatchat-space/Langchain-Chatchat#2600",
        trigger="input_plus_output",
    ),
    E(
        "zhipu",
        "openai_chat",
        "default",
        400,
        {"error": {"code": "1261", "message": "Prompt exceeds max length"}},
        match="code=1261",
        source="pi-mono overflow.ts ports",
        inferred=True,
    ),
    E(
        "dashscope",
        "openai_chat",
        "default",
        400,
        openai_error(
            "<400> InternalError.Algo.InvalidParameter: Range of input length should "
            "be [1, {window}]",
            None,
            "invalid_parameter_error",
        ),
        match="Range of input length should be",
        source="pi-mono overflow.ts ports",
        inferred=True,
    ),
    E(
        "cerebras",
        "openai_chat",
        "default",
        400,
        None,
        match="400 with no body",
        source="pi-mono overflow.ts",
        inferred=True,
    ),
    E(
        "cerebras",
        "openai_chat",
        "status413",
        413,
        None,
        match="413 with no body",
        source="pi-mono overflow.ts",
        inferred=True,
    ),
    E(
        "zai",
        "openai_chat",
        "default",
        200,
        None,
        match="usage.prompt_tokens > window",
        source="pi-mono overflow.ts",
        delivery="silent",
    ),
)
