"""The llama.cpp fake's bodies are the real server's: rendered at the real server's numbers,
the captured templates equal what the installed build answers, byte for byte."""

from __future__ import annotations

import json

import httpx
import pytest

from fakes.catalogue import overflow_entry
from fakes.catalogue.captured import LLAMACPP_OVERFLOW
from fakes.scripting.templates import render
from tests.real.server import ALIAS, RealServer

ISSUE_BODY = (
    '{"error":{"code":400,"message":"request (831 tokens) exceeds the available context '
    'size (512 tokens), try increasing it","type":"exceed_context_size_error",'
    '"n_prompt_tokens":831,"n_ctx":512}}'
)
"""As the server answered an 831-token prompt at ``-c 512`` (quoted in issue 12)."""
WORDS = "river stone maple cloud amber harbor meadow copper lantern orchard "


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_the_fake_default_renders_the_captured_body_at_its_numbers() -> None:
    entry = overflow_entry("llamacpp", "openai_chat")
    assert entry.body == LLAMACPP_OVERFLOW
    assert compact(render(entry.body, {"input": 831, "window": 512})) == ISSUE_BODY


ROUTES = {
    "/v1/chat/completions": {"messages": [{"role": "user", "content": WORDS * 100}]},
    "/v1/messages": {"messages": [{"role": "user", "content": WORDS * 100}]},
    "/v1/responses": {"input": [{"role": "user", "content": WORDS * 100}]},
}


@pytest.mark.integration
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("route", list(ROUTES))
def test_every_route_of_the_real_server_answers_the_captured_body(
    route: str, stream: bool, llama_512: RealServer
) -> None:
    payload = {"model": ALIAS, "max_tokens": 8, "stream": stream, **ROUTES[route]}
    response = httpx.post(llama_512.url + route, json=payload, timeout=60.0)
    assert response.status_code == 400
    prompt = response.json()["error"]["n_prompt_tokens"]
    assert prompt > llama_512.context
    numbers = {"input": prompt, "window": llama_512.context}
    assert response.text == compact(render(LLAMACPP_OVERFLOW, numbers))
