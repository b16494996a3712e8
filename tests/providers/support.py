"""Test support: a recording ``httpx.MockTransport``, SSE bodies, and the standard history
every wire test translates (system rows, parallel native tool round, prompt-mode carrier,
images in user rows and in current-turn carriers)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from harness.providers import HttpProviderClient, ProviderRequest, make_client
from harness.runtime import (
    Attachment,
    ChatMessage,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    native_tool_call_row,
    native_tool_result_row,
    prompt_tool_results_row,
)

PNG_B64 = "iVBORw0KGgo="
PNG_DATA_URI = f"data:image/png;base64,{PNG_B64}"
CAT_URL = "https://img.test/cat.png"
FIXED_NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
CARRIER_TEXT = (
    '[Tool results]\n[Tool attachments: 1]\n<tool_result name="shell">\nok\n</tool_result>'
)

HISTORY: tuple[ChatMessage, ...] = (
    ChatMessage("system", "You are terse."),
    ChatMessage("system", "Second system row."),
    ChatMessage("user", f"What is in [IMAGE:{CAT_URL}] and [IMAGE:/home/u/local.png]?"),
    native_tool_call_row(
        "Let me look.",
        [
            ToolCall("c1", "read_file", '{"path":"a.txt"}'),
            ToolCall("c2", "list_dir", '{"path":"."}'),
        ],
    ),
    native_tool_result_row("c1", "alpha"),
    native_tool_result_row("c2", "beta"),
    ChatMessage("assistant", "Both read."),
    ChatMessage("user", "Now with the screenshot"),
    native_tool_call_row(None, [ToolCall("c3", "screenshot", "{}")]),
    native_tool_result_row("c3", "captured", [Attachment("image", PNG_DATA_URI)]),
    ChatMessage("assistant", "prompt mode next"),
    prompt_tool_results_row(
        [ToolResultMessage("x", "ok", "shell")], [Attachment("image", PNG_DATA_URI)]
    ),
)
READ_FILE = ToolSpec(
    "read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)
REQUEST = ProviderRequest(model="test-model", messages=HISTORY, tools=[READ_FILE], max_tokens=256)

Handler = Callable[[httpx.Request], httpx.Response]


@dataclass
class Recorder:
    """Answers every request with ``handler`` and keeps what was sent."""

    handler: Handler
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handler(request)

    @property
    def sent_json(self) -> object:
        return json.loads(self.requests[-1].content)


def answer(status: int, body: object, headers: dict[str, str] | None = None) -> Handler:
    """A handler answering ``body`` (JSON-encoded unless already a string)."""
    text = body if isinstance(body, str) else json.dumps(body)
    merged = {"content-type": "application/json", **(headers or {})}
    return lambda request: httpx.Response(status, text=text, headers=merged)


def raising(exc_type: type[httpx.TransportError], message: str = "boom") -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc_type(message, request=request)

    return handler


def sse_text(events: Iterable[tuple[str | None, object]]) -> str:
    lines: list[str] = []
    for name, data in events:
        if name is not None:
            lines.append(f"event: {name}")
        lines.append(f"data: {data if isinstance(data, str) else json.dumps(data)}")
        lines.append("")
    return "\n".join(lines) + "\n"


class DroppingStream(httpx.AsyncByteStream):
    """Sends some bytes, then the connection drops."""

    def __init__(self, prefix: bytes) -> None:
        self._prefix = prefix

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self._prefix
        raise httpx.RemoteProtocolError("peer closed connection without sending complete body")


def sse_answer(events: Iterable[tuple[str | None, object]], *, drop: bool = False) -> Handler:
    body = sse_text(events).encode()
    headers = {"content-type": "text/event-stream"}
    if drop:
        return lambda request: httpx.Response(200, headers=headers, stream=DroppingStream(body))
    return lambda request: httpx.Response(200, headers=headers, content=body)


BASE_URLS = {
    "openai-responses": "https://api.test/v1",
    "anthropic": "https://api.test",
    "gemini": "https://api.test",
    "ollama": "https://api.test",
    "cohere": "https://api.test",
}


def base_url(kind: str) -> str:
    return BASE_URLS.get(kind, "https://api.test/v1")


def build(kind: str, http: httpx.AsyncClient, **options: Any) -> HttpProviderClient:
    ids = iter(f"gen_{n}" for n in range(1000))
    return make_client(
        kind,
        client=http,
        base_url=base_url(kind),
        api_key="sk-test",
        clock=lambda: FIXED_NOW,
        id_factory=lambda: next(ids),
        **options,
    )


async def run(
    kind: str, handler: Handler, request: ProviderRequest = REQUEST, **options: Any
) -> tuple[object, Recorder]:
    """Complete ``request`` with a ``kind`` client over a MockTransport; returns the reply
    or the raised ``ProviderError``, and the recorder."""
    recorder = Recorder(handler)
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as http:
        client = build(kind, http, **options)
        try:
            return await client.complete(request), recorder
        except Exception as exc:
            return exc, recorder
