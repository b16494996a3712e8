"""Clients send a route's provider-side context management and decode what comes back,
end to end against the fakes (issue 17)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from fakes import FakeProvider, ProviderSide, asgi_client
from harness.providers import (
    ContextWindowExceeded,
    ProviderReply,
    ProviderRequest,
    ProviderRequestRejected,
    make_client,
)
from harness.providers.clients.context_management import (
    COMPACT_BETA,
    CONTEXT_MANAGEMENT_BETA,
    ClearToolUses,
    Compact,
    ProviderContext,
    ProviderEdit,
)
from harness.providers.clients.openai_responses import OpenAIResponsesClient
from harness.providers.plumbing.factory import WireOptions
from harness.runtime import (
    ChatMessage,
    CompactionOutcome,
    ProviderEditKind,
    native_tool_call_row,
    native_tool_result_row,
)
from harness.runtime.messages import ToolCall

pytestmark = pytest.mark.anyio

ROOT = "http://fake.test"
BASES = {"anthropic": ("anthropic", ""), "openai-responses": ("openai", "/v1")}


def tool_history(rounds: int) -> list[ChatMessage]:
    rows = [ChatMessage("user", "look things up")]
    for i in range(rounds):
        call = ToolCall(f"toolu_{i}", "lookup", '{"q":"x"}')
        rows.append(native_tool_call_row(None, [call]))
        rows.append(native_tool_result_row(f"toolu_{i}", "result " * 100))
    return rows


async def complete(
    kind: str, fake: FakeProvider, request: ProviderRequest, context: ProviderContext
) -> Any:
    _, base = BASES[kind]
    async with asgi_client(fake) as http:
        options = WireOptions(provider_context=context)
        client = make_client(kind, client=http, base_url=ROOT + base, api_key="k", options=options)
        try:
            return await client.complete(request)
        except Exception as exc:
            return exc


CLEAR = ProviderContext(clear_tool_uses=ClearToolUses(trigger_tool_uses=1, keep_tool_uses=1))


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_clearing_is_sent_with_its_beta_and_reported_back(stream: bool) -> None:
    fake = FakeProvider("anthropic", "test-model")
    request = ProviderRequest("test-model", tool_history(3), max_tokens=32, stream=stream)
    reply = await complete("anthropic", fake, request, CLEAR)
    assert isinstance(reply, ProviderReply), reply
    sent = fake.log.last()
    assert sent.request_headers["anthropic-beta"] == CONTEXT_MANAGEMENT_BETA
    assert isinstance(sent.request_body, dict)
    assert sent.request_body["context_management"] == {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "tool_uses", "value": 1},
                "keep": {"type": "tool_uses", "value": 1},
            }
        ]
    }
    [edit] = reply.provider_edits
    assert (edit.kind, edit.cleared_items, edit.trigger) == ("clear_tool_uses", 2, "tool_uses>1")
    assert edit.cleared_input_tokens is not None
    assert edit.cleared_input_tokens > 0


async def test_without_options_nothing_is_sent_and_nothing_reported() -> None:
    fake = FakeProvider("anthropic", "test-model")
    request = ProviderRequest("test-model", tool_history(3), max_tokens=32)
    reply = await complete("anthropic", fake, request, ProviderContext())
    assert isinstance(reply, ProviderReply)
    assert reply.provider_edits == ()
    assert "anthropic-beta" not in fake.log.last().request_headers
    body = fake.log.last().request_body
    assert isinstance(body, dict)
    assert "context_management" not in body


COMPACT = ProviderContext(compact=Compact(trigger_input_tokens=50_000))
LONG = [
    ChatMessage("user", "w" * 240_000),
    ChatMessage("assistant", "ok"),
    ChatMessage("user", "go on"),
]


def compaction_step(answer: Any, events: tuple[Any, ...]) -> dict[str, Any]:
    """The ``compaction`` entry of the usage iterations the fake answered with."""
    usages = [answer.get("usage")] if isinstance(answer, dict) else []
    usages += [e.get("usage") for e in events if isinstance(e, dict)]
    steps = [
        step
        for usage in usages
        if isinstance(usage, dict)
        for step in usage.get("iterations", ())
        if step["type"] == "compaction"
    ]
    assert len(steps) == 1, usages
    return dict(steps[0])


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_compaction_is_reported_and_a_failed_one_says_so(stream: bool) -> None:
    fake = FakeProvider("anthropic", "test-model")
    request = ProviderRequest("test-model", LONG, stream=stream)
    reply = await complete("anthropic", fake, request, COMPACT)
    assert isinstance(reply, ProviderReply), reply
    sent = fake.log.last()
    assert sent.request_headers["anthropic-beta"] == COMPACT_BETA
    step = compaction_step(sent.response_body, sent.stream_events)
    assert reply.provider_edits == (
        ProviderEdit(
            ProviderEditKind.COMPACTION,
            "compact_20260112",
            "input_tokens>50000",
            compaction=CompactionOutcome.COMPACTED,
            compaction_input_tokens=step["input_tokens"],
            compaction_output_tokens=step["output_tokens"],
        ),
    )
    # the call's usage is the answer's step: the compaction step's tokens are not in it
    assert reply.usage.input_tokens is not None
    assert reply.usage.input_tokens < step["input_tokens"]
    failing = FakeProvider("anthropic", "test-model")
    failing.provider_side = ProviderSide(compaction_fails=True)
    reply = await complete("anthropic", failing, request, COMPACT)
    assert isinstance(reply, ProviderReply)
    assert [(e.compaction, e.compaction_input_tokens) for e in reply.provider_edits] == [
        ("failed", None)
    ]


async def test_a_dropped_field_leaves_the_overflow_and_a_rejected_one_is_a_400() -> None:
    for handling, expected in (
        ("ignore", ContextWindowExceeded),
        ("reject", ProviderRequestRejected),
    ):
        fake = FakeProvider("anthropic", "test-model", context_window=60_000)
        fake.provider_side = ProviderSide(handling=handling)  # type: ignore[arg-type]
        error = await complete("anthropic", fake, ProviderRequest("test-model", LONG), COMPACT)
        assert isinstance(error, expected), (handling, error)


@pytest.mark.parametrize("stream", [False, True])
async def test_responses_compaction_and_truncation_are_sent_and_reported(stream: bool) -> None:
    fake = FakeProvider("openai", "test-model", context_window=2000)
    history = [ChatMessage("user", f"q{i} " + "x" * 800) for i in range(12)]
    request = ProviderRequest("test-model", history, stream=stream)
    context = ProviderContext(truncation="auto", compact_threshold=1000)
    reply = await complete("openai-responses", fake, request, context)
    assert isinstance(reply, ProviderReply), reply
    body = fake.log.last().request_body
    assert isinstance(body, dict)
    assert body["truncation"] == "auto"
    assert body["context_management"] == [{"type": "compaction", "compact_threshold": 1000}]
    assert [e.kind for e in reply.provider_edits] == ["compaction"]
    truncating = ProviderContext(truncation="auto")
    plain = await complete(
        "openai-responses", fake, dataclasses.replace(request, stream=False), truncating
    )
    assert isinstance(plain, ProviderReply)
    assert plain.usage.input_tokens is not None
    assert plain.usage.input_tokens <= 2000


@dataclasses.dataclass
class Responses:
    """An OpenAI Responses client talking to a fake of its own, in process."""

    fake: FakeProvider
    client: OpenAIResponsesClient


@pytest.fixture
async def responses() -> AsyncIterator[Responses]:
    fake = FakeProvider("openai", "test-model")
    async with asgi_client(fake) as http:
        client = make_client("openai-responses", client=http, base_url=ROOT + "/v1", api_key="k")
        assert isinstance(client, OpenAIResponsesClient)
        yield Responses(fake, client)


# A question and a long answer: the window keeps the user messages (the fake follows
# CompactedResponse's shape) and summarises the rest, here the answer.
ANSWERED = [ChatMessage("user", "tell me all"), ChatMessage("assistant", "word " * 300)]
ASKED = ProviderRequest("test-model", ANSWERED, max_tokens=16)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_responses_compaction_item_is_kept_and_sent_in_place_of_its_input(
    responses: Responses, stream: bool
) -> None:
    fake, client = responses.fake, responses.client
    history = [ChatMessage("user", f"q{i} " + "x" * 800) for i in range(6)]
    client.provider_context = ProviderContext(compact_threshold=1000)
    first = await client.complete(ProviderRequest("test-model", history, stream=stream))
    assert [e.kind for e in first.provider_edits] == ["compaction"]
    answered = fake.log.last()
    output = (
        answered.response_body
        if not stream
        else next(
            e["response"]
            for e in answered.stream_events
            if isinstance(e, dict) and e.get("type") == "response.completed"
        )
    )
    assert isinstance(output, dict)
    assert isinstance(output["output"], list)
    item = output["output"][0]
    later = [*history, ChatMessage("assistant", first.text or ""), ChatMessage("user", "go")]
    second = await client.complete(ProviderRequest("test-model", later, stream=stream))
    assert isinstance(second, ProviderReply)
    sent = fake.log.last().request_body
    assert isinstance(sent, dict)
    # the kept item replaces the input it summarised; what came after follows it
    assert isinstance(sent["input"], list)
    assert sent["input"][0] == item
    assert len(sent["input"]) == 1 + 2


async def test_responses_compact_endpoint_window_replaces_the_input_later(
    responses: Responses,
) -> None:
    fake, client = responses.fake, responses.client
    window = await client.compact(ASKED)
    assert fake.log.last().path == "/v1/responses/compact"
    assert window.output[-1]["type"] == "compaction"
    assert window.usage.input_tokens is not None
    assert window.usage.input_tokens > 300
    later = [*ANSWERED, ChatMessage("user", "and now?")]
    reply = await client.complete(dataclasses.replace(ASKED, messages=later))
    assert isinstance(reply, ProviderReply)
    sent: Any = fake.log.last().request_body
    assert sent["input"][: len(window.output)] == list(window.output)
    assert sent["input"][-1]["content"] == "and now?"
    assert reply.usage.input_tokens is not None
    assert reply.usage.input_tokens < 100  # the summary, not the 300 words it replaced


async def test_a_second_compaction_reads_the_kept_window_and_says_what_it_replaces(
    responses: Responses,
) -> None:
    fake, client = responses.fake, responses.client
    first = await client.compact(ASKED)
    longer = [*ANSWERED, ChatMessage("user", "and now?"), ChatMessage("assistant", "more")]
    kept = client.kept_window(dataclasses.replace(ASKED, messages=longer))
    assert kept is not None
    assert (kept.window, kept.rows) == (first.output, len(ANSWERED))
    assert kept.written_tokens == first.usage.output_tokens
    second = await client.compact(dataclasses.replace(ASKED, messages=longer))
    read: Any = fake.log.last().request_body
    # the endpoint read the first window and what followed, not the 300 words again
    assert read["input"][: len(first.output)] == list(first.output)
    assert len(read["input"]) == len(first.output) + 2
    assert second.usage.input_tokens is not None
    assert second.usage.input_tokens < 100
