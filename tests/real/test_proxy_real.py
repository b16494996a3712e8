"""The real llama.cpp server as the proxy's upstream: a streamed answer reaches the client
byte for byte as the server sent it, and the server's real overflow answer is an
``overflow`` finding.

The server's stream is not the same bytes twice (each answer has its own ``id``,
``created`` and ``timings``), so the bytes are compared at both ends of the proxy: what
the proxy received from the server (its kept copy, every byte of it: the answer is far
under ``--max-body-bytes``) and what the client received from the proxy. The text the
model wrote (temperature 0, a fixed seed) is also held equal to a direct request's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from harness.conformance.payloads import recovery_history
from harness.providers.overflow.classify import extended_is_overflow
from harness.proxy import ObservingProxy, ProxyServer, ProxySettings, Sinks, parse_upstream
from harness.wire import ObserverConfig, WireObserver
from tests.proxy.conftest import Kept
from tests.real.server import ALIAS, RealServer

pytestmark = pytest.mark.integration

SESSION = "llama-through-proxy"
CHAT = {
    "model": ALIAS,
    "messages": [{"role": "user", "content": "Count from one to five in words."}],
    "temperature": 0,
    "seed": 42,
    "max_tokens": 24,
    "stream": True,
}


@pytest.fixture
def proxied(llama_512: RealServer) -> Iterator[tuple[str, Kept]]:
    """A proxy in front of the real server: its base URL (…/v1) and what it observed."""
    kept = Kept()
    observer = WireObserver(ObserverConfig(is_overflow=extended_is_overflow))
    settings = ProxySettings(parse_upstream(llama_512.url + "/v1"), "openai_chat")
    server = ProxyServer(ObservingProxy(settings, observer, Sinks([kept])))
    server.start()
    try:
        yield server.url + "/v1", kept
    finally:
        server.stop()


def _stream(url: str, body: dict[str, object]) -> tuple[int, list[bytes]]:
    headers = {"x-trimscope-session": SESSION}
    with (
        httpx.Client(timeout=120.0) as client,
        client.stream("POST", url + "/chat/completions", json=body, headers=headers) as answer,
    ):
        return answer.status_code, list(answer.iter_raw())


def _text(body: bytes) -> str:
    """The content deltas of an SSE chat stream, joined."""
    pieces = []
    for line in body.decode().splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[6:]).get("choices", []):
                pieces.append((choice.get("delta") or {}).get("content") or "")
    return "".join(pieces)


def test_a_streamed_answer_reaches_the_client_byte_for_byte(
    llama_512: RealServer, proxied: tuple[str, Kept]
) -> None:
    base, kept = proxied
    status, chunks = _stream(base, CHAT)
    assert status == 200
    client_bytes = b"".join(chunks)
    exchange, findings, traffic = kept.wait(1).seen[0]
    upstream_bytes = b"".join(traffic.chunks)
    assert not traffic.truncated
    assert traffic.response_bytes == len(upstream_bytes)
    assert client_bytes == upstream_bytes
    assert exchange.streamed
    assert b"data: [DONE]" in client_bytes
    assert len(chunks) > 1  # passed on as it came, not held back to the end
    assert [f.kind for f in findings if f.kind == "unobservable"] == []
    direct_status, direct = _stream(llama_512.url + "/v1", CHAT)
    assert direct_status == 200
    assert _text(client_bytes) == _text(b"".join(direct)) != ""


def test_the_servers_overflow_answer_is_an_overflow_finding(
    llama_512: RealServer, proxied: tuple[str, Kept]
) -> None:
    base, kept = proxied
    history = [{"role": m.role, "content": m.content} for m in recovery_history(900)]
    body = {**CHAT, "messages": history, "stream": False}
    answer = httpx.post(
        base + "/chat/completions", json=body, headers={"x-trimscope-session": SESSION},
        timeout=120.0,
    )  # fmt: skip
    assert answer.status_code == 400
    assert "exceeds the available context size" in answer.text
    _, findings, traffic = kept.wait(1).seen[0]
    assert b"".join(traffic.chunks) == answer.content
    overflows = [f for f in findings if f.kind == "overflow"]
    assert len(overflows) == 1
    assert (overflows[0].session, overflows[0].status) == (SESSION, 400)
