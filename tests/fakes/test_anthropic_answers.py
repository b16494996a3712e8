"""Anthropic answers have the recorded shapes (``fidelity/anthropic_answers.json``, each
record cited): the usage object (``cache_creation``, ``service_tier``, ``inference_geo``),
``message_delta``'s usage with the input counts, ``ping`` after the first block's start, a
tool use's ``caller``, and the compaction of one oversized message: a summary, the answer
from it, ``usage.iterations``, the summary streamed in a ``compaction_delta``."""

from __future__ import annotations

import json
from typing import Any

from fakes import ScriptedToolCall, call_tools
from fakes.simulations.context_edits import COMPACT_BETA
from fakes.wire.base import RequestContext
from tests.fakes.shapes import fixture, key_paths
from tests.fakes.test_context_edits import BIG, body, compact, fake, obj, send

REAL = fixture("anthropic_answers.json")
COMPACTING = {"anthropic-beta": COMPACT_BETA}
MODEL_KEY = "$.iterations[].model"
"""The message iteration's ``model``: in the SDK's ``BetaMessageIterationUsage``, not in
the record (an older answer); kept."""


def _order(events: list[dict[str, Any]]) -> list[str]:
    kinds: list[str] = []
    for event in events:
        kind = str(event["type"])
        if not (kinds and kind == kinds[-1] == "content_block_delta"):
            kinds.append(kind)
    return kinds


def _events(answer: Any) -> list[dict[str, Any]]:
    assert answer.status == 200, answer.body
    assert answer.events is not None
    return [obj(e.data) for e in answer.events]


def one_big_message(**extra: Any) -> dict[str, Any]:
    return {**body([{"role": "user", "content": BIG}], compact()), **extra}


def test_one_oversized_message_is_compacted_and_answered_from_the_summary() -> None:
    real = REAL["compaction_one_message"]
    answer = send(fake(), one_big_message(), COMPACTING)
    message = obj(answer.body)
    assert [b["type"] for b in message["content"]] == real["content_types"]
    assert isinstance(message["content"][0]["content"], str)
    assert key_paths(message["usage"]) - {MODEL_KEY} == set(real["usage_paths"])
    step, answered = message["usage"]["iterations"]
    assert answered["input_tokens"] < step["input_tokens"]  # the answer read the summary only
    assert answer.tokens is not None
    assert answer.tokens.total < 1_000


def test_one_oversized_message_streams_its_summary_in_a_compaction_delta() -> None:
    real = REAL["compaction_one_message_stream"]
    events = _events(send(fake(), one_big_message(stream=True), COMPACTING))
    assert _order(events) == real["order"]
    assert events[1]["content_block"] == real["compaction_start"]
    delta = events[3]["delta"]
    assert key_paths(delta) == set(real["compaction_delta_paths"])
    assert isinstance(delta["content"], str)
    assert delta["content"]
    usage = next(e for e in events if e["type"] == "message_delta")["usage"]
    assert key_paths(usage) - {MODEL_KEY} == set(real["message_delta_usage_paths"])


def send_tool_call(payload: dict[str, Any]) -> Any:
    """The fake answering ``payload`` with one tool call (and the text before it)."""
    step = call_tools(ScriptedToolCall("get_weather", {"location": "Florence"}), text="Let me")
    raw = json.dumps(payload).encode()
    provider = fake()
    return provider.answer(provider.wire("anthropic"), raw, RequestContext(None, {}), 0, step)


def test_a_streamed_tool_call_has_the_recorded_order_and_usage() -> None:
    real = REAL["tool_stream"]
    events = _events(send_tool_call(body([{"role": "user", "content": "w?"}]) | {"stream": True}))
    assert _order(events) == real["order"]
    assert key_paths(events[0]["message"]["usage"]) == set(real["message_start_usage_paths"])
    delta = next(e for e in events if e["type"] == "message_delta")
    assert key_paths(delta["usage"]) == set(real["message_delta_usage_paths"])
    start = next(
        e
        for e in events
        if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"
    )
    assert key_paths(start["content_block"]) == set(real["tool_use_start_paths"])


def test_a_tool_call_answer_has_the_recorded_usage_and_block() -> None:
    real = REAL["tool"]
    message = obj(send_tool_call(body([{"role": "user", "content": "w?"}])).body)
    assert key_paths(message["usage"]) == set(real["usage_paths"])
    used = next(b for b in message["content"] if b["type"] == "tool_use")
    assert key_paths(used) == set(real["tool_use_paths"])


def test_a_streamed_text_answer_has_the_recorded_order() -> None:
    events = _events(send(fake(), body([{"role": "user", "content": "hi"}]) | {"stream": True}))
    recorded = REAL["tool_stream"]["order"]  # text then a tool use: the text half
    assert _order(events) == [*recorded[:5], *recorded[-2:]]
