"""The Anthropic client's cache breakpoints, and what the fake's cache makes of them."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

import fakes
from harness.providers import ProviderRequest
from harness.providers.clients.anthropic import AnthropicClient, build_messages_request
from harness.runtime import ChatMessage

SYSTEM = ChatMessage("system", "s" * 8000)  # 2004 tokens: cacheable on Sonnet (1024)
ROWS = [SYSTEM, ChatMessage("user", "first"), ChatMessage("assistant", "ok")]


def _marked(payload: dict[str, Any]) -> list[str]:
    where = [f"system[{i}]" for i, b in enumerate(payload["system"]) if "cache_control" in b]
    for m, message in enumerate(payload["messages"]):
        for b, block in enumerate(message["content"]):
            if "cache_control" in block:
                where.append(f"messages[{m}].content[{b}]")
    return where


def test_no_breakpoints_by_default() -> None:
    assert _marked(build_messages_request(ProviderRequest("m", ROWS))) == []


def test_system_marks_the_last_system_block_only() -> None:
    payload = build_messages_request(ProviderRequest("m", ROWS), "system")
    assert _marked(payload) == ["system[0]"]
    system = payload["system"]
    assert isinstance(system, list)
    assert system[0]["cache_control"] == {"type": "ephemeral"}


def test_system_and_last_also_marks_the_last_block_of_the_last_message() -> None:
    payload = build_messages_request(ProviderRequest("m", ROWS), "system_and_last")
    assert _marked(payload) == ["system[0]", "messages[1].content[0]"]


def _complete(client: AnthropicClient, rows: list[ChatMessage]) -> tuple[int, int, int]:
    reply = asyncio.run(client.complete(ProviderRequest("claude-sonnet-4-5", rows)))
    usage = reply.usage
    assert usage.input_tokens is not None
    read, written = usage.cache_read_input_tokens or 0, usage.cache_creation_input_tokens or 0
    return usage.input_tokens, read, written


def test_moving_breakpoints_read_what_the_previous_request_wrote() -> None:
    fake = fakes.FakeProvider("anthropic", "claude-sonnet-4-5", clock=lambda: 0.0)
    http = httpx.AsyncClient(transport=fakes.asgi_transport(fake), base_url="http://fake")
    client = AnthropicClient(
        client=http, base_url="http://fake", api_key="k", cache_breakpoints="system_and_last"
    )
    first = _complete(client, ROWS[:2])
    second = _complete(client, [*ROWS, ChatMessage("user", "second")])
    # the whole first request is written, then read back; the client adds reads and
    # writes back into input_tokens (the whole context)
    assert first == (2004 + 6, 0, 2004 + 6)
    assert second == (2004 + 6 + 5 + 6, 2004 + 6, 5 + 6)
