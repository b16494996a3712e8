"""Answers of every wire format as the fakes send them, as bytes: rendered from a reply
plan by a fake's wire codec, or answered by a whole fake provider in process (so provider
edits, overflows and in-stream errors come as the fakes make them)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from fakes import FakeProvider
from fakes.scripting.script import FakeBehaviour
from fakes.serving.answer import Answer, encode_event, json_bytes
from fakes.wire import WIRES
from fakes.wire.base import PlannedToolCall, ReplyPlan, RequestContext, StopReason, Usage
from harness.runtime import ChatMessage, ToolCall, native_tool_call_row
from harness.runtime.messages import to_json
from harness.wire import WireKind
from tests.providers.test_properties import ARGS, NAMES
from tests.wire.bodies import TEXT


@dataclass(frozen=True, slots=True)
class Sent:
    """One answer as it travelled: status, every byte, and whether it streamed."""

    status: int
    body: bytes
    streamed: bool


def sent(answer: Answer) -> Sent:
    if answer.events is not None:
        body = b"".join(encode_event(event, answer.media) for event in answer.events)
        return Sent(answer.status, body, streamed=True)
    if answer.raw is not None:
        return Sent(answer.status, answer.raw, streamed=False)
    return Sent(answer.status, json_bytes(answer.body), streamed=False)


def rendered(wire: WireKind, plan: ReplyPlan, *, streamed: bool) -> Sent:
    codec = WIRES[wire]
    if streamed:
        return sent(Answer(200, None, {}, codec.stream(plan), codec.stream_media))
    return sent(Answer(200, codec.reply(plan)))


def answered(
    fake: FakeProvider, wire: WireKind, payload: dict[str, Any], headers: dict[str, str]
) -> Sent:
    """What ``fake`` answers to ``payload`` on ``wire``, in process."""
    context = RequestContext("m", headers)
    raw = json.dumps(payload).encode()
    return sent(fake.answer(fake.wire(wire), raw, context, 0, FakeBehaviour()))


@st.composite
def usages(draw: st.DrawFn) -> Usage:
    cached = draw(st.integers(0, 500))
    created = draw(st.integers(0, 500))
    whole = cached + created + draw(st.integers(1, 5000))
    return Usage(whole, draw(st.integers(1, 900)), cached, created)


@st.composite
def plans(draw: st.DrawFn) -> ReplyPlan:
    calls = tuple(
        PlannedToolCall(f"call_{n}", draw(NAMES), args, to_json(args))
        for n, args in enumerate(draw(st.lists(ARGS, max_size=3)))
    )
    text = draw(st.one_of(st.none(), TEXT))
    stops: list[StopReason] = ["stop", "length"]
    stop: StopReason = "tool_calls" if calls else draw(st.sampled_from(stops))
    return ReplyPlan(0, "m", text, calls, draw(usages()), stop, 1_700_000_000, "resp_abc123")


def expected_row(wire: WireKind, plan: ReplyPlan) -> ChatMessage:
    """The row the plan's answer adds: Gemini answers carry no call ids, so a call is
    known by its function's name, as its next request would name it."""
    calls = [
        ToolCall(c.name if wire == "gemini" else c.id, c.name, c.arguments_json)
        for c in plan.tool_calls
    ]
    if calls:
        return native_tool_call_row(plan.text, calls)
    return ChatMessage("assistant", plan.text or "")
