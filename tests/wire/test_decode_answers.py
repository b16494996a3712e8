"""Answers decoded: the row an answer adds is the row the next request carries (checked
through the fakes' own decoding of that next request), usage is read in each wire's
convention, and errors, in a body or in a stream, are the error text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.wire.base import ReplyPlan
from harness.runtime import ChatMessage, native_tool_result_row
from harness.wire import WIRE_KINDS, WireKind, decode_answer
from tests.wire.answers import Sent, expected_row, plans, rendered
from tests.wire.bodies import fake_rows, render


def decoded(wire: WireKind, answer: Sent) -> tuple[ChatMessage, ...]:
    return decode_answer(wire, answer.status, answer.body, streamed=answer.streamed).rows


@given(plans(), st.booleans())
def test_an_answer_adds_the_row_its_next_request_carries(plan: ReplyPlan, streamed: bool) -> None:
    for wire in WIRE_KINDS:
        rows = decoded(wire, rendered(wire, plan, streamed=streamed))
        assert rows == (expected_row(wire, plan),), wire
        answered_calls = [native_tool_result_row(name, "ok") for name in _call_ids(rows[0])]
        following = render(wire, [ChatMessage("user", "go"), rows[0], *answered_calls])
        assert fake_rows(wire, following)[1] == (rows[0].role, rows[0].content), wire


def _call_ids(row: ChatMessage) -> list[str]:
    envelope = json.loads(row.content) if row.content.startswith('{"content"') else {}
    return [call["id"] for call in envelope.get("tool_calls", [])]


def _usage_as_reported(wire: WireKind, plan: ReplyPlan) -> tuple[int | None, ...]:
    """(input, cached, output) as each wire reports the plan's usage; input is always the
    whole prompt, cache reads included (Anthropic's parts are added back up)."""
    usage = plan.usage
    # Bedrock leaves the cache counts out when nothing was cached, but for Claude
    cached_on_bedrock = usage.cached_tokens or usage.cache_creation_tokens
    claude = "anthropic." in plan.model.lower()
    cached: dict[WireKind, int | None] = {
        "gemini": usage.cached_tokens or None,  # the field is left out when zero
        "bedrock": usage.cached_tokens if cached_on_bedrock or claude else None,
        "ollama": None,
        "cohere": None,
    }
    return (usage.input_tokens, cached.get(wire, usage.cached_tokens), usage.output_tokens)


@given(plans(), st.booleans())
def test_usage_is_read_in_each_wires_convention(plan: ReplyPlan, streamed: bool) -> None:
    for wire in WIRE_KINDS:
        sent = rendered(wire, plan, streamed=streamed)
        answer = decode_answer(wire, sent.status, sent.body, streamed=sent.streamed)
        tokens = (answer.input_tokens, answer.cached_tokens, answer.output_tokens)
        assert tokens == _usage_as_reported(wire, plan), wire
        assert answer.stop_reason is not None, wire
        assert answer.error_text is None, wire


@pytest.mark.parametrize("wire", WIRE_KINDS)
def test_a_non_2xx_answer_is_its_body_as_error_text_and_adds_no_row(wire: WireKind) -> None:
    body = b'{"error":{"message":"prompt is too long: 1200 tokens > 1000 maximum"}}'
    answer = decode_answer(wire, 400, body, streamed=False)
    assert answer.error_text == body.decode()
    assert answer.rows == ()


@pytest.mark.parametrize("wire", WIRE_KINDS)
def test_no_answer_at_all_is_an_empty_record(wire: WireKind) -> None:
    answer = decode_answer(wire, None, b"", streamed=True)
    assert answer.rows == ()
    assert answer.error_text is None


def _captured_error_bodies() -> list[Any]:
    """Overflow bodies captured from real servers (``tests/corpus/overflow.jsonl``, each
    with its source), those recorded as the raw body with their HTTP status."""
    with open("tests/corpus/overflow.jsonl", encoding="utf-8") as corpus:
        entries = [json.loads(line) for line in corpus if line.strip()]
    return [
        pytest.param(e["provider"], e["status"], e["body"], id=e["id"])
        for e in entries
        if e["capture"] == "body" and isinstance(e["status"], int)
    ]


WIRE_OF_PROVIDER: dict[str, WireKind] = {"anthropic": "anthropic", "gemini": "gemini"}


@pytest.mark.parametrize(("provider", "status", "body"), _captured_error_bodies())
def test_captured_overflow_bodies_are_the_error_text_verbatim(
    provider: str, status: int, body: str
) -> None:
    wire = WIRE_OF_PROVIDER.get(provider, "openai_chat")
    answer = decode_answer(wire, status, body.encode(), streamed=False)
    assert answer.error_text == body
    assert answer.rows == ()


@given(plans())
def test_a_responses_stream_cut_before_its_terminal_event_reads_its_finished_items(
    plan: ReplyPlan,
) -> None:
    events = rendered("openai_responses", plan, streamed=True).body.split(b"\n\n")
    cut = b"\n\n".join(e for e in events if b"response.completed" not in e)
    answer = decode_answer("openai_responses", 200, cut, streamed=True)
    assert answer.rows == (expected_row("openai_responses", plan),)
    assert answer.input_tokens is None  # usage comes with the terminal event only


def test_a_failed_response_event_is_the_error_text() -> None:
    failed = {
        "type": "response.failed",
        "response": {"status": "failed", "error": {"code": "server_error", "message": "boom"}},
    }
    body = b"event: response.failed\ndata: " + json.dumps(failed).encode() + b"\n\n"
    answer = decode_answer("openai_responses", 200, body, streamed=True)
    assert answer.error_text == '{"code":"server_error","message":"boom"}'
    assert answer.rows == ()
