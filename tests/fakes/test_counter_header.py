"""Every answer of a fake names the counter behind its token counts (``COUNTER_HEADER``),
so ``load`` and ``conformance`` report what the fake counted with (issue 25)."""

from __future__ import annotations

import httpx
import pytest

from fakes import COUNTER_HEADER, FakeProvider, counter_label
from fakes.pytest_plugin import FakeServerFactory
from tests.fakes.test_exact_counter import needs_quicktok

CHAT = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there"}]}
MESSAGES = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 16,
    "messages": [{"role": "user", "content": "hello there"}],
}


@needs_quicktok
def test_an_exact_counter_is_named_by_its_encoding(fake_server: FakeServerFactory) -> None:
    """``exact`` is resolved to the model's tokenizer: the header names what counted."""
    fake = FakeProvider("openai", "gpt-4o", context_window=4000, counter="exact")
    base = fake_server.serve(fake).base_url
    reply = httpx.post(f"{base}/v1/chat/completions", json=CHAT, timeout=10.0)
    assert reply.status_code == 200
    assert reply.headers[COUNTER_HEADER] == counter_label("o200k_base") == "o200k_base (exact)"
    (logged,) = fake.log.entries()
    assert logged.response_headers[COUNTER_HEADER] == "o200k_base (exact)"  # as it was sent
    assert logged.counter == "o200k_base"


@pytest.mark.parametrize("counter", ["heuristic", "provider"])
def test_a_provider_without_a_public_tokenizer_names_its_estimate(
    fake_server: FakeServerFactory, counter: str
) -> None:
    fake = FakeProvider("anthropic", "claude-sonnet-4-5", context_window=4000, counter=counter)
    base = fake_server.serve(fake).base_url
    answers = [
        httpx.post(f"{base}/v1/messages", json=MESSAGES, timeout=10.0),
        httpx.post(f"{base}/v1/messages/count_tokens", json=MESSAGES, timeout=10.0),
        httpx.post(f"{base}/v1/messages", json={**MESSAGES, "max_tokens": -1}, timeout=10.0),
    ]
    assert [a.status_code for a in answers] == [200, 200, 400]  # errors are counted too
    assert {a.headers[COUNTER_HEADER] for a in answers} == {counter_label(counter)}
    assert counter_label(counter).startswith(f"{counter} (estimate: ")
