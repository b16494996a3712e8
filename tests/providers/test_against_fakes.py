"""End to end, in process: every client against the fake provider of its wire format
(``fakes``, real ASGI apps, through ``httpx.ASGITransport``).

The fakes fill the catalogue's bodies with real numbers and enforce tool pairing, so these
tests check both directions at once: the fakes accept what the clients send (the standard
history, with its parallel round, carriers and images), and the clients classify what the
fakes answer. Reference verdicts per (provider, variant) come from the recognition table.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from fakes import (
    FakeProvider,
    FakeScript,
    ScriptedToolCall,
    asgi_client,
    call_tools,
    fail,
    overflow_entries,
)
from fakes.catalogue import WireName
from harness.providers import (
    Classifier,
    ContextWindowExceeded,
    ProviderError,
    ProviderProtocolError,
    ProviderReply,
    ProviderRequest,
    ProviderRequestRejected,
    ProviderServerError,
    RateLimited,
    is_context_window_stop,
    make_client,
)
from harness.runtime import ChatMessage, native_tool_result_row
from tests.providers.support import HISTORY, REQUEST

pytestmark = pytest.mark.anyio

FAKE_ROOT = "http://fake.test"
# kind -> (fake provider, wire the client speaks, base path under the fake's root)
KINDS: dict[str, tuple[str, WireName, str]] = {
    "openai": ("openai", "openai_chat", "/v1"),
    "openai-responses": ("openai", "openai_responses", "/v1"),
    "azure": ("azure", "openai_chat", "/openai/v1"),
    "anthropic": ("anthropic", "anthropic", ""),
    "gemini": ("gemini", "gemini", ""),
    "mistral": ("mistral", "openai_chat", "/v1"),
    "groq": ("groq", "openai_chat", "/openai/v1"),
    "deepseek": ("deepseek", "openai_chat", ""),
    "openrouter": ("openrouter", "openai_chat", "/api/v1"),
    "ollama": ("ollama", "ollama", ""),
    "ollama-openai": ("ollama", "openai_chat", "/v1"),
    "vllm": ("vllm", "openai_chat", "/v1"),
    "llamacpp": ("llamacpp", "openai_chat", "/v1"),
    "lmstudio": ("lmstudio", "openai_chat", "/v1"),
    "together": ("together", "openai_chat", "/v1"),
    "xai": ("xai", "openai_chat", "/v1"),
    "cohere": ("cohere", "cohere", ""),
}
STREAMING_KINDS = {"openai-responses", "anthropic"}

# What the reference's ten substrings say about each fake variant's body
# (tests/providers/catalogue.py has the same bodies with fixed numbers).
REFERENCE_VERDICT: dict[tuple[str, str], bool] = {
    ("openai", "default"): True,
    ("openai", "with_completion"): True,
    ("openai", "with_functions"): True,
    ("azure", "default"): True,
    ("azure", "configured_limit"): False,
    ("anthropic", "default"): True,
    ("anthropic", "max_tokens"): False,
    ("anthropic", "in_stream"): True,
    ("gemini", "default"): False,
    ("gemini", "list"): False,
    ("mistral", "default"): True,
    ("groq", "default"): False,
    ("groq", "no_code"): False,
    ("deepseek", "default"): True,
    ("openrouter", "default"): True,
    ("openrouter", "http200"): True,
    ("openrouter", "middle_out"): True,
    ("ollama", "error"): False,
    ("vllm", "default"): True,
    ("vllm", "input_only"): True,
    ("llamacpp", "default"): True,
    ("llamacpp", "no_numbers"): True,
    ("llamacpp", "status500"): True,
    ("llamacpp", "numbers"): True,
    ("lmstudio", "default"): False,
    ("lmstudio", "keep"): False,
    ("together", "default"): False,
    ("together", "tgi"): False,
    ("xai", "default"): False,
    ("cohere", "default"): True,
    ("cohere", "v1"): True,
    # wordings learnt from the public corpus (fakes.catalogue.corpus_wordings)
    ("openai", "legacy_prompt"): True,
    ("openai", "legacy_prompt_comma"): True,
    ("openai", "configured_limit"): False,
    ("openai", "terse"): True,
    ("azure", "with_completion"): True,
    ("anthropic", "request_size"): False,
    ("gemini", "no_parens"): False,
    ("openrouter", "middle_out_no_tools"): True,
    ("openrouter", "text_only"): True,
    ("vllm", "decoder_prompt"): False,
    ("vllm", "prompt_length"): False,
    ("vllm", "total_length"): False,
    ("vllm", "max_tokens_too_large"): True,
    ("vllm", "output_tokens"): True,
    ("lmstudio", "n_keep"): False,
    ("lmstudio", "input_length"): False,
}
BIG = ProviderRequest("test-model", [ChatMessage("user", "word " * 2000)], max_tokens=64)
SMALL = ProviderRequest("test-model", [ChatMessage("user", "hello")], max_tokens=16)


async def complete(
    kind: str, fake: FakeProvider, request: ProviderRequest, **options: Any
) -> object:
    """The client's reply, or the error it raised."""
    _, _, base = KINDS[kind]
    async with asgi_client(fake) as http:
        client = make_client(
            kind, client=http, base_url=FAKE_ROOT + base, api_key="sk-fake", **options
        )
        try:
            return await client.complete(request)
        except Exception as exc:
            return exc


def error_variants() -> list[tuple[str, str, bool]]:
    """(kind, variant, streamed) for every error-delivered overflow a client can meet;
    streaming clients meet each one both ways."""
    cases = []
    for kind, (provider, wire, _) in KINDS.items():
        for entry in overflow_entries(provider, wire):
            if entry.delivery == "error":
                cases.append((kind, entry.variant, False))
                if kind in STREAMING_KINDS:
                    cases.append((kind, entry.variant, True))
    return cases


@pytest.mark.parametrize(("kind", "variant", "streamed"), error_variants())
async def test_over_window_request_is_a_classified_overflow(
    kind: str, variant: str, streamed: bool
) -> None:
    provider, wire, _ = KINDS[kind]
    fake = FakeProvider(provider, "test-model", context_window=500, variant=variant)
    error = await complete(kind, fake, dataclasses.replace(BIG, stream=streamed))
    assert isinstance(error, ContextWindowExceeded), error
    assert error.extended_verdict is True
    assert error.reference_verdict is REFERENCE_VERDICT[(provider, variant)]
    in_stream = streamed and any(
        e.variant == variant and e.stream_event is not None
        for e in overflow_entries(provider, wire)
    )
    assert error.status == (None if in_stream else fake.log.last().status)
    assert fake.log.last().outcome == "overflow"


@pytest.mark.parametrize("kind", list(KINDS))
async def test_reference_classifier_lets_its_misses_through(kind: str) -> None:
    provider = KINDS[kind][0]
    fake = FakeProvider(provider, "test-model", context_window=500)
    outcome = await complete(kind, fake, BIG)
    if fake.log.last().outcome == "truncated":  # Ollama: nothing to classify
        assert isinstance(outcome, ProviderReply)
        return
    variant = fake.log.last().variant or "default"
    assert isinstance(outcome, ProviderError)
    assert Classifier.REFERENCE.decides(outcome.verdicts) is REFERENCE_VERDICT[(provider, variant)]


@pytest.mark.parametrize("kind", list(KINDS))
async def test_small_request_gets_a_reply_with_the_counted_usage(kind: str) -> None:
    fake = FakeProvider(KINDS[kind][0], "test-model", context_window=5000)
    reply = await complete(kind, fake, SMALL)
    assert isinstance(reply, ProviderReply), reply
    exchange = fake.log.last()
    assert exchange.outcome == "reply"
    assert exchange.tokens is not None
    assert reply.usage.input_tokens == exchange.tokens.total
    assert reply.text


@pytest.mark.parametrize("kind", sorted(STREAMING_KINDS))
async def test_small_streamed_request_gets_a_reply_with_usage(kind: str) -> None:
    fake = FakeProvider(KINDS[kind][0], "test-model", context_window=5000)
    reply = await complete(kind, fake, dataclasses.replace(SMALL, stream=True))
    assert isinstance(reply, ProviderReply), reply
    exchange = fake.log.last()
    assert exchange.tokens is not None
    assert reply.usage.input_tokens == exchange.tokens.total


@pytest.mark.parametrize("kind", list(KINDS))
async def test_fakes_accept_the_standard_history(kind: str) -> None:
    fake = FakeProvider(KINDS[kind][0], "test-model", context_window=100_000)
    reply = await complete(kind, fake, REQUEST)
    assert isinstance(reply, ProviderReply), reply
    assert fake.log.last().outcome == "reply"


@pytest.mark.parametrize("kind", list(KINDS))
async def test_parallel_tool_calls_come_back_as_tool_calls(kind: str) -> None:
    calls = (
        ScriptedToolCall("read_file", {"path": "a"}, id="call_1"),
        ScriptedToolCall("read_file", {"path": "b"}, id="call_2"),
    )
    script = FakeScript(default=call_tools(*calls))
    fake = FakeProvider(KINDS[kind][0], "test-model", context_window=100_000, script=script)
    reply = await complete(kind, fake, REQUEST)
    assert isinstance(reply, ProviderReply), reply
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("read_file", '{"path":"a"}'),
        ("read_file", '{"path":"b"}'),
    ]
    assert len({c.id for c in reply.tool_calls}) == 2


# Fakes that check pairing as their provider does (Ollama, vLLM, llama.cpp and LM Studio do
# not; the Cohere fake does not either, its wording was never captured).
PAIRING_KINDS = [
    kind
    for kind, (provider, _, _) in KINDS.items()
    if provider not in {"ollama", "vllm", "llamacpp", "lmstudio", "cohere"}
]


@pytest.mark.parametrize("kind", PAIRING_KINDS)
async def test_orphan_tool_result_is_rejected_by_the_fake(kind: str) -> None:
    orphan = ProviderRequest(
        "test-model", [*HISTORY[:3], native_tool_result_row("nobody", "x")], max_tokens=16
    )
    fake = FakeProvider(KINDS[kind][0], "test-model", context_window=100_000)
    error = await complete(kind, fake, orphan)
    assert isinstance(error, ProviderRequestRejected), error
    assert fake.log.last().outcome == "rejected"


@pytest.mark.parametrize("kind", ["ollama", "ollama-openai"])
async def test_ollama_silent_truncation_is_a_reply_with_clipped_usage(kind: str) -> None:
    fake = FakeProvider("ollama", "test-model", context_window=500)
    reply = await complete(kind, fake, BIG)
    assert isinstance(reply, ProviderReply), reply
    assert fake.log.last().outcome == "truncated"
    assert reply.usage.input_tokens is not None
    assert reply.usage.input_tokens <= 500


async def test_anthropic_context_window_stop_is_a_reply() -> None:
    fake = FakeProvider("anthropic", "test-model", context_window=300)
    request = ProviderRequest("test-model", [ChatMessage("user", "hi")], max_tokens=1000)
    beta = {"anthropic-beta": "model-context-window-exceeded-2025-08-26"}
    reply = await complete("anthropic", fake, request, extra_headers=beta)
    assert isinstance(reply, ProviderReply), reply
    assert is_context_window_stop(reply.finish_reason)


LOOK_ALIKES = {
    "bedrock_throttle": True,
    "proxy_token_rate_limit": True,
    "rate_limit_tokens": False,
    "string_above_max_length": False,
    "insufficient_quota": False,
    "groq_max_completion_tokens": False,
    "anthropic_rate_limit": False,
    "anthropic_request_too_large": False,
    "gemini_resource_exhausted": False,
}


@pytest.mark.parametrize(("name", "reference_fp"), LOOK_ALIKES.items())
@pytest.mark.parametrize("classifier", list(Classifier))
async def test_look_alikes_are_not_overflows_unless_the_reference_misreads_them(
    name: str, reference_fp: bool, classifier: Classifier
) -> None:
    fake = FakeProvider(
        "openai", "test-model", script=FakeScript(default=fail("look_alike", name=name))
    )
    error = await complete("openai", fake, SMALL)
    assert isinstance(error, RateLimited | ProviderRequestRejected), error  # `extended`'s class
    assert classifier.decides(error.verdicts) is (
        classifier is Classifier.REFERENCE and reference_fp
    )
    assert (error.reference_verdict, error.extended_verdict) == (reference_fp, False)


@pytest.mark.parametrize("kind", list(KINDS))
async def test_scripted_faults_map_to_their_error_classes(kind: str) -> None:
    provider = KINDS[kind][0]
    script = FakeScript(
        steps=(
            fail("rate_limit", retry_after=3),
            fail("server_error", status=503),
            fail("malformed_json"),
        )
    )
    fake = FakeProvider(provider, "test-model", script=script)
    limited = await complete(kind, fake, SMALL)
    assert isinstance(limited, RateLimited), limited
    assert limited.retry_after_s == 3.0
    fake.reset()
    _ = await complete(kind, fake, SMALL)  # call 0 again: rate limit
    for expected in (ProviderServerError, ProviderProtocolError):
        outcome = await complete(kind, fake, SMALL)
        assert isinstance(outcome, expected), outcome


@pytest.mark.parametrize("kind", sorted(STREAMING_KINDS))
async def test_stream_dropped_mid_way_is_a_protocol_error(kind: str) -> None:
    script = FakeScript(default=fail("drop_mid_stream", after_events=1))
    fake = FakeProvider(KINDS[kind][0], "test-model", script=script)
    error = await complete(kind, fake, dataclasses.replace(SMALL, stream=True))
    assert isinstance(error, ProviderProtocolError), error
