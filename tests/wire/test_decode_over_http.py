"""Answers as they come over HTTP from a fake provider's app (in process, through
``httpx``'s ASGI transport): the bytes a proxy would see, JSON or streamed, decode to the
scripted reply's row in every wire format."""

from __future__ import annotations

import json

import pytest

from fakes import FakeProvider, FakeScript, ScriptedToolCall, asgi_client, call_tools
from harness.runtime import ToolCall, native_tool_call_row
from harness.runtime.messages import to_json
from harness.wire import WireKind, decode_answer, decode_request
from tests.fakes.wire_requests import path_for, user_request

pytestmark = pytest.mark.anyio

READ = ScriptedToolCall("read_file", {"path": "a.txt"}, id="id_a")
LIST = ScriptedToolCall("list_dir", {"path": "."}, id="id_b")
ROUTES: list[tuple[str, WireKind]] = [
    ("openai", "openai_chat"),
    ("openai", "openai_responses"),
    ("anthropic", "anthropic"),
    ("gemini", "gemini"),
    ("ollama", "ollama"),
    ("cohere", "cohere"),
    ("bedrock", "bedrock"),
]
STREAM_MEDIA = ("text/event-stream", "application/x-ndjson")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _expected(wire: WireKind) -> tuple[ToolCall, ...]:
    # Gemini answers name no call ids: a call is known by its function's name
    return tuple(
        ToolCall(c.name if wire == "gemini" else str(c.id), c.name, to_json(dict(c.arguments)))
        for c in (READ, LIST)
    )


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(("provider", "wire"), ROUTES, ids=[w for _, w in ROUTES])
async def test_a_fakes_http_answer_decodes_to_its_scripted_row(
    provider: str, wire: WireKind, stream: bool
) -> None:
    script = FakeScript(default=call_tools(READ, LIST, text="reading"))
    fake = FakeProvider(provider, "m", context_window=10_000, script=script)
    path = path_for(fake.profile, wire, "m")
    request = user_request(wire, "m", "hello", stream=stream)
    if wire == "openai_chat" and stream:
        request["stream_options"] = {"include_usage": True}  # else the stream reports none
    body = json.dumps(request).encode()
    async with asgi_client(fake) as client:
        response = await client.post(path, content=body)
    streamed = response.headers["content-type"].startswith(STREAM_MEDIA)
    answer = decode_answer(wire, response.status_code, response.content, streamed=streamed)
    assert answer.rows == (native_tool_call_row("reading", _expected(wire)),)
    assert answer.input_tokens is not None
    assert answer.stop_reason is not None
    assert decode_request(wire, path, body).rows[-1].content == "hello"
