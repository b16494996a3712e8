"""Tiny request builders per wire format, and readers for what comes back.

A single user message of ``k`` ASCII bytes is one canonical row in every wire format, so
its heuristic count is ``ceil(k / 4) + 4``, whatever the format.
"""

from __future__ import annotations

import json
from typing import Any

from fakes import ProviderProfile
from fakes.catalogue import WireName


def text_for_tokens(tokens: int) -> str:
    """ASCII text whose single user row costs exactly ``tokens`` (heuristic, >= 5)."""
    assert tokens >= 5
    return "a" * ((tokens - 4) * 4)


def path_for(profile: ProviderProfile, wire: WireName, model: str) -> str:
    endpoint = next(e for e in profile.endpoints if e.wire == wire)
    return endpoint.path.replace("{model}", model)


def user_request(
    wire: WireName, model: str, text: str, *, max_tokens: int | None = None, stream: bool = False
) -> dict[str, Any]:
    if wire == "openai_responses":
        body: dict[str, Any] = {"model": model, "input": text}
        if max_tokens is not None:
            body["max_output_tokens"] = max_tokens
    elif wire == "anthropic":
        body = {
            "model": model,
            "max_tokens": max_tokens or 16,
            "messages": [{"role": "user", "content": text}],
        }
    elif wire == "gemini":
        body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
        if max_tokens is not None:
            body["generationConfig"] = {"maxOutputTokens": max_tokens}
    elif wire == "bedrock":
        body = {"messages": [{"role": "user", "content": [{"text": text}]}]}
        if max_tokens is not None:
            body["inferenceConfig"] = {"maxTokens": max_tokens}
    else:
        body = {"model": model, "messages": [{"role": "user", "content": text}]}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
    if wire == "ollama":
        body["stream"] = stream
    elif stream:
        body["stream"] = True
    return body


def reported_input_tokens(wire: WireName, body: Any) -> int:
    """The prompt size a reply reports, in the wire's own usage field."""
    if wire == "openai_chat":
        return int(body["usage"]["prompt_tokens"])
    if wire == "openai_responses":
        return int(body["usage"]["input_tokens"])
    if wire == "anthropic":
        usage = body["usage"]
        return int(
            usage["input_tokens"]
            + usage["cache_read_input_tokens"]
            + usage["cache_creation_input_tokens"]
        )
    if wire == "gemini":
        return int(body["usageMetadata"]["promptTokenCount"])
    if wire == "ollama":
        return int(body["prompt_eval_count"])
    if wire == "cohere":
        return int(body["usage"]["tokens"]["input_tokens"])
    return int(body["usage"]["inputTokens"])  # bedrock


def reply_text(wire: WireName, body: Any) -> str:
    if wire == "openai_chat":
        return str(body["choices"][0]["message"]["content"])
    if wire == "openai_responses":
        return str(body["output"][0]["content"][0]["text"])
    if wire == "anthropic":
        return str(body["content"][0]["text"])
    if wire == "gemini":
        return str(body["candidates"][0]["content"]["parts"][0]["text"])
    if wire == "ollama":
        return str(body["message"]["content"])
    if wire == "cohere":
        return str(body["message"]["content"][0]["text"])
    return str(body["output"]["message"]["content"][0]["text"])


def sse_events(text: str) -> list[tuple[str | None, Any]]:
    """``(event name, parsed data)`` for each SSE event (``[DONE]`` kept as a string)."""
    events = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        name, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                payload = line[len("data: ") :]
                data = payload if payload == "[DONE]" else json.loads(payload)
        events.append((name, data))
    return events
