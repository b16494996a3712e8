"""Provider-side context management as the decoders see it, on answers and requests made
by the fakes in process: Anthropic's applied edits and compaction blocks, Responses'
compaction items and truncation, and overflows delivered inside a stream."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakes import FakeProvider
from fakes.scripting.script import DEFAULT_REPLY_TEXT
from fakes.serving.answer import Answer
from fakes.simulations.context_edits import COMPACT_BETA, CONTEXT_MANAGEMENT_BETA
from fakes.wire import WIRES
from fakes.wire.base import ReplyPlan, Usage
from harness.wire import DecodedAnswer, WireKind, decode_answer, decode_request
from tests.wire.answers import answered, sent
from tests.wire.bodies import fake_rows

BIG = "b" * 240_000  # over the smallest Anthropic compaction trigger (50,000 tokens)


def answer_of(wire: WireKind, fake: FakeProvider, payload: dict[str, Any], **headers: str) -> Any:
    reply = answered(fake, wire, payload, headers)
    assert reply.status == 200, reply.body
    return decode_answer(wire, reply.status, reply.body, streamed=reply.streamed), reply


def tool_turns(n: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for i in range(n):
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "lookup", "input": {"q": "x"}}
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": "r" * 400}
        messages += [
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [result]},
        ]
    return messages


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_applied_edits_are_provider_edits(stream: bool) -> None:
    clear = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 10},
        "keep": {"type": "tool_uses", "value": 2},
    }
    payload = {
        "model": "m",
        "max_tokens": 16,
        "messages": tool_turns(5),
        "context_management": {"edits": [clear]},
        "stream": stream,
    }
    fake = FakeProvider("anthropic", "m", context_window=200_000)
    answer, _ = answer_of("anthropic", fake, payload, **{"anthropic-beta": CONTEXT_MANAGEMENT_BETA})
    assert answer.provider_edits == ("clear_tool_uses_20250919",)
    request = decode_request("anthropic", "/v1/messages", json.dumps(payload).encode())
    assert request.provider_items == ("anthropic_context_management",)


@pytest.mark.parametrize("stream", [False, True])
def test_an_anthropic_compaction_is_an_edit_and_its_block_sent_back_an_item(stream: bool) -> None:
    compact = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}
    messages = [
        {"role": "user", "content": BIG},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": "and now?"},
    ]
    payload = {
        "model": "m",
        "max_tokens": 16,
        "messages": messages,
        "context_management": {"edits": [compact]},
        "stream": stream,
    }
    fake = FakeProvider("anthropic", "m", context_window=200_000)
    answer, _ = answer_of("anthropic", fake, payload, **{"anthropic-beta": COMPACT_BETA})
    assert answer.provider_edits == ("compaction",)
    assert [row.role for row in answer.rows] == ["assistant"]
    summary = {"type": "compaction", "content": "[summary of 2 earlier messages]"}
    reply = {"type": "text", "text": answer.rows[0].content}
    again = [*messages, {"role": "assistant", "content": [summary, reply]}]
    body = json.dumps({**payload, "messages": [*again, {"role": "user", "content": "next"}]})
    request = decode_request("anthropic", "/v1/messages", body.encode())
    assert request.provider_items == ("anthropic_compaction", "anthropic_context_management")
    assert [(r.role, r.content) for r in request.rows] == fake_rows("anthropic", body.encode())


def _long_input(turns: int = 8) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for i in range(turns):
        items.append({"role": "user", "content": f"question {i} " + "q" * 600})
        items.append({"role": "assistant", "content": f"answer {i}"})
    return [*items, {"role": "user", "content": "the newest question"}]


@pytest.mark.parametrize("stream", [False, True])
def test_a_responses_compaction_item_is_an_edit_and_sent_back_an_item(stream: bool) -> None:
    payload = {
        "model": "m",
        "input": _long_input(),
        "context_management": [{"type": "compaction", "compact_threshold": 500}],
        "stream": stream,
    }
    answer, sent = answer_of("openai_responses", FakeProvider("openai", "m"), payload)
    assert answer.provider_edits == ("compaction",)
    output = _output_items(sent.body, streamed=sent.streamed)
    body = json.dumps({**payload, "input": [*output, {"role": "user", "content": "next"}]})
    request = decode_request("openai_responses", "/v1/responses", body.encode())
    assert request.provider_items == ("responses_compaction", "responses_context_management")
    assert [(r.role, r.content) for r in request.rows] == fake_rows(
        "openai_responses", body.encode()
    )


def _output_items(body: bytes, *, streamed: bool) -> list[Any]:
    if not streamed:
        return list(json.loads(body)["output"])
    events = [
        json.loads(line[6:]) for line in body.decode().split("\n") if line.startswith("data: ")
    ]
    return list(next(e for e in events if e["type"] == "response.completed")["response"]["output"])


def test_truncation_auto_is_flagged_on_the_request() -> None:
    body = json.dumps({"model": "m", "input": "hi", "truncation": "auto"}).encode()
    assert decode_request("openai_responses", "/v1/responses", body).truncation_auto
    plain = json.dumps({"model": "m", "input": "hi", "truncation": "disabled"}).encode()
    assert not decode_request("openai_responses", "/v1/responses", plain).truncation_auto


def test_a_responses_overflow_inside_the_stream_is_the_error_text() -> None:
    payload = {"model": "m", "input": _long_input(), "stream": True}
    sent = answered(
        FakeProvider("openai", "m", context_window=1000), "openai_responses", payload, {}
    )
    assert sent.status == 200
    assert sent.streamed
    answer = decode_answer("openai_responses", 200, sent.body, streamed=True)
    assert answer.error_text is not None
    assert "context_length_exceeded" in answer.error_text
    assert answer.rows == ()


def _in_stream_error(wire: WireKind, event: dict[str, Any]) -> DecodedAnswer:
    plan = ReplyPlan(0, "m", "hi", (), Usage(10, 1), "stop", 1_700_000_000, "resp_abc123")
    events = WIRES[wire].stream_error(plan, event)
    raw = sent(Answer(200, None, {}, events, WIRES[wire].stream_media))
    return decode_answer(wire, 200, raw.body, streamed=True)


def test_an_anthropic_error_event_is_the_error_text() -> None:
    event = {"type": "error", "error": {"type": "invalid_request_error", "message": "too long"}}
    answer = _in_stream_error("anthropic", event)
    assert answer.error_text == json.dumps(event, separators=(",", ":"))
    assert answer.rows == ()


def test_an_openai_chat_error_chunk_is_the_error_text() -> None:
    event = {"error": {"message": "context_length_exceeded", "type": "invalid_request_error"}}
    answer = _in_stream_error("openai_chat", event)
    assert answer.error_text == json.dumps(event["error"], separators=(",", ":"))
    assert answer.rows == ()


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_thinking_blocks_add_no_text_to_the_answers_row(stream: bool) -> None:
    payload = {
        "model": "m",
        "max_tokens": 2048,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "messages": [{"role": "user", "content": "think"}],
        "stream": stream,
    }
    fake = FakeProvider("anthropic", "m", context_window=200_000)
    answer, reply = answer_of("anthropic", fake, payload)
    assert b'"thinking"' in reply.body  # the answer did think
    assert [(row.role, row.content) for row in answer.rows] == [("assistant", DEFAULT_REPLY_TEXT)]
