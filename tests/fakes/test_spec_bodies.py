"""The catalogue's bodies against providers.md, written out by hand with the numbers in.

Window 1000; input 1200 (or 900 with ``max_tokens`` 300 for rows whose message counts the
completion). Ids that change per request (``id``, ``request_id``) are left out.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import FakeProvider, asgi_client
from fakes.catalogue import WireName
from tests.fakes.wire_requests import path_for, text_for_tokens, user_request

pytestmark = pytest.mark.anyio

_CTX = "This model's maximum context length is 1000 tokens. "
_REQ = (
    "However, you requested 1200 tokens (900 in the messages, 300 in the completion). "
    "Please reduce the length of the messages or completion."
)
SPEC: list[tuple[str, WireName, str, int, int | None, int, Any]] = [
    (
        "openai",
        "openai_chat",
        "default",
        1200,
        None,
        400,
        {
            "error": {
                "message": _CTX + "However, your messages resulted in 1200 tokens. "
                "Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
    (
        "openai",
        "openai_chat",
        "with_completion",
        900,
        300,
        400,
        {
            "error": {
                "message": _CTX + _REQ,
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
    (
        "openai",
        "openai_responses",
        "default",
        1200,
        None,
        400,
        {
            "error": {
                "message": "Your input exceeds the context window of this model. "
                "Please adjust your "
                "input and try again.",
                "type": "invalid_request_error",
                "param": "input",
                "code": "context_length_exceeded",
            }
        },
    ),
    (
        "azure",
        "openai_chat",
        "configured_limit",
        1200,
        None,
        400,
        {
            "error": {
                "message": "Input tokens exceed the configured limit of 1000 tokens. Your messages "
                "resulted in 1200 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
    (
        "anthropic",
        "anthropic",
        "default",
        1200,
        None,
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: 1200 tokens > 1000 maximum",
            },
        },
    ),
    (
        "gemini",
        "gemini",
        "default",
        1200,
        None,
        400,
        {
            "error": {
                "code": 400,
                "message": "The input token count (1200) exceeds the maximum number of "
                "tokens allowed (1000).",
                "status": "INVALID_ARGUMENT",
            }
        },
    ),
    (
        "bedrock",
        "bedrock",
        "default",
        1200,
        None,
        400,
        {
            "message": "The model returned the following errors: Input is too long for requested "
            "model."
        },
    ),
    (
        "mistral",
        "openai_chat",
        "default",
        1200,
        None,
        400,
        {
            "object": "error",
            "message": "Prompt contains 1200 tokens and 0 draft tokens, too "
            "large for model with 1000 maximum context length",
            "type": "invalid_request_invalid_args",
            "param": None,
            "code": "3051",
        },
    ),
    (
        "groq",
        "openai_chat",
        "default",
        1200,
        None,
        400,
        {
            "error": {
                "message": "Please reduce the length of the messages or completion.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
    (
        "deepseek",
        "openai_chat",
        "default",
        900,
        300,
        400,
        {
            "error": {
                "message": _CTX + _REQ,
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_request_error",
            }
        },
    ),
    (
        "openrouter",
        "openai_chat",
        "default",
        900,
        300,
        400,
        {
            "error": {
                "code": 400,
                "message": "This endpoint's maximum context length is 1000 tokens. "
                "However, you requested about 1200 tokens (900 of text input, 0 of tool input, 300 "
                "in the output). Please reduce the length of either one, or use the "
                "context-compression plugin to compress your prompt automatically.",
                "metadata": {"provider_name": None},
            }
        },
    ),
    (
        "ollama",
        "ollama",
        "error",
        1200,
        None,
        400,
        {"error": "prompt too long; exceeded max context length by 200 tokens"},
    ),
    (
        "vllm",
        "openai_chat",
        "default",
        900,
        300,
        400,
        {
            "object": "error",
            "message": _CTX + _REQ,
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
    ),
    (
        "llamacpp",
        "openai_chat",
        "no_numbers",
        1200,
        None,
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 1200,
                "n_ctx": 1000,
            }
        },
    ),
    (
        "cohere",
        "cohere",
        "default",
        1200,
        None,
        400,
        {
            "message": "too many tokens: size limit exceeded by 200 tokens. Try using shorter or "
            "fewer inputs. The limit for this model is 1000 tokens."
        },
    ),
]


def _without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_ids(v) for k, v in value.items() if k not in ("id", "request_id")}
    return value


@pytest.mark.parametrize(
    ("provider", "wire", "variant", "tokens", "completion", "status", "expected"),
    SPEC,
    ids=[f"{row[0]}-{row[2]}" for row in SPEC],
)
async def test_overflow_body_is_the_catalogued_text(
    provider: str,
    wire: WireName,
    variant: str,
    tokens: int,
    completion: int | None,
    status: int,
    expected: Any,
) -> None:
    fake = FakeProvider(provider, "m", context_window=1000, variant=variant)
    body = user_request(wire, "m", text_for_tokens(tokens), max_tokens=completion)
    async with asgi_client(fake) as client:
        response = await client.post(path_for(fake.profile, wire, "m"), json=body)
    assert response.status_code == status
    assert _without_ids(response.json()) == expected


async def test_openrouter_http200_variant_is_an_error_body_with_status_200() -> None:
    fake = FakeProvider("openrouter", "m", context_window=1000, variant="http200")
    body = user_request("openai_chat", "m", text_for_tokens(900), max_tokens=300)
    async with asgi_client(fake) as client:
        response = await client.post("/api/v1/chat/completions", json=body)
    assert response.status_code == 200
    assert "choices" not in response.json()
    assert response.json()["error"]["code"] == 400
