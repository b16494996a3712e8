"""The observer with its real decoders on exchanges a fake provider really answered (in
process, through ``httpx``'s ASGI transport): the bytes a proxy would see."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

import pytest

from fakes import FakeProvider, FakeScript, asgi_client
from harness.wire import WireExchange, WireKind, WireObserver

pytestmark = pytest.mark.anyio

SYSTEM = {"role": "system", "content": "You answer briefly."}
QUESTION = {"role": "user", "content": "What is in a.txt?"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    ],
}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "hello"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _exchange(
    fake: FakeProvider, wire: WireKind, path: str, body: Mapping[str, object]
) -> WireExchange:
    raw = json.dumps(body).encode()
    async with asgi_client(fake) as client:
        response = await client.post(path, content=raw)
    return WireExchange(
        wire=wire,
        method="POST",
        path=path,
        request_headers={"x-trimscope-session": "s"},
        request_body=raw,
        status=response.status_code,
        response_headers=dict(response.headers),
        response_body=response.content,
    )


async def test_a_tool_result_sent_without_its_call_is_an_orphan_the_provider_refused() -> None:
    """LangChain's ``trim_messages(strategy="last")`` cut: the call trimmed away, its result
    kept. OpenAI (and the fake) refuse it with a 400; the observer names both."""
    fake = FakeProvider("openai", "m", context_window=10_000, script=FakeScript())
    observer = WireObserver()
    path = "/v1/chat/completions"
    first = {"model": "m", "messages": [SYSTEM, QUESTION, CALL, RESULT]}
    assert observer.observe(await _exchange(fake, "openai_chat", path, first)) == ()
    cut = {"model": "m", "messages": [SYSTEM, RESULT]}
    exchange = await _exchange(fake, "openai_chat", path, cut)
    assert exchange.status == 400
    kinds = {f.kind: f for f in observer.observe(exchange)}
    assert "orphan_tool_result" in kinds
    assert kinds["orphan_tool_result"].status == 400
    assert "rejected" in kinds["orphan_tool_result"].detail


async def test_previous_response_id_continues_the_session_its_answer_opened() -> None:
    """No header, no shared rows: the Responses answer's own id ties the next request
    (which sends only the new input) to the session."""
    fake = FakeProvider("openai", "m", context_window=10_000, script=FakeScript())
    observer = WireObserver()
    path = "/v1/responses"
    first = {"model": "m", "input": "What is in a.txt?", "prompt_cache_key": "k1"}
    exchange = await _exchange(fake, "openai_responses", path, first)
    exchange = _without_headers(exchange)
    observer.observe(exchange)
    answer_id = json.loads(exchange.response_body)["id"]
    follow = {"model": "m", "input": "And in b.txt?", "previous_response_id": answer_id}
    second = await _exchange(fake, "openai_responses", path, follow)
    observer.observe(_without_headers(second))
    assert observer.session_count == 1
    assert observer.last_call is not None
    assert observer.last_call[1] == 2


def _without_headers(exchange: WireExchange) -> WireExchange:
    return dataclasses.replace(exchange, request_headers={})
