"""Anthropic context editing in the fake, rule by rule (``fakes.simulations.context_edits``)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fakes import FakeBehaviour, FakeProvider
from fakes.serving.answer import Answer
from fakes.serving.discovery import HANDLERS, DiscoveryRequest
from fakes.simulations.context_edits import (
    CLEARED_RESULT,
    COMPACT_BETA,
    CONTEXT_MANAGEMENT_BETA,
    NOT_PERMITTED,
)
from fakes.simulations.provider_side import ProviderSide
from fakes.simulations.thinking import sign
from fakes.wire.base import RequestContext

BETA = {"anthropic-beta": CONTEXT_MANAGEMENT_BETA}


def obj(value: object) -> dict[str, Any]:
    """A JSON object, narrowed for the type checker (the wire's bodies are ``JSONValue``)."""
    assert isinstance(value, dict), value
    return value


def tool_turns(n: int, result: str = "r" * 400, name: str = "lookup") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for i in range(n):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {"q": "x" * 40}}
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": result}
                ],
            }
        )
    return messages


def body(messages: list[dict[str, Any]], *edits: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"model": "fake-model", "max_tokens": 16, "messages": messages}
    if edits:
        out["context_management"] = {"edits": list(edits)}
    return out


def clear(**options: Any) -> dict[str, Any]:
    return {"type": "clear_tool_uses_20250919", **options}


def send(
    fake: FakeProvider, payload: dict[str, Any], headers: dict[str, str] | None = None
) -> Answer:
    ctx = RequestContext(None, BETA if headers is None else headers)
    raw = json.dumps(payload).encode()
    return fake.answer(fake.wire("anthropic"), raw, ctx, 0, FakeBehaviour())


def fake(window: int = 200_000, **side: Any) -> FakeProvider:
    provider = FakeProvider("anthropic", context_window=window)
    provider.provider_side = ProviderSide(**side)
    return provider


def plain_tokens(payload: dict[str, Any]) -> int:
    answer = send(fake(), {k: v for k, v in payload.items() if k != "context_management"}, {})
    assert answer.tokens is not None
    return answer.tokens.total


def applied(answer: Answer) -> list[Any]:
    assert isinstance(answer.body, dict), answer.body
    return list(obj(answer.body)["context_management"]["applied_edits"])


def test_context_management_without_its_beta_header_is_an_extra_input() -> None:
    answer = send(fake(), body(tool_turns(1), clear()), headers={})
    assert answer.status == 400
    assert isinstance(answer.body, dict)
    assert str(answer.body.pop("request_id")).startswith("req_011C")
    assert answer.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": NOT_PERMITTED},
    }


def test_clear_tool_uses_clears_all_but_the_newest_kept_and_reports_the_tokens() -> None:
    payload = body(
        tool_turns(5),
        clear(
            trigger={"type": "input_tokens", "value": 10}, keep={"type": "tool_uses", "value": 2}
        ),
    )
    answer = send(fake(), payload)
    before = plain_tokens(payload)
    [edit] = applied(answer)
    assert edit["type"] == "clear_tool_uses_20250919"
    assert edit["cleared_tool_uses"] == 3
    assert answer.tokens is not None
    assert edit["cleared_input_tokens"] == before - answer.tokens.total > 0
    results = [r.content for r in answer.rows if r.role == "tool"]
    assert [CLEARED_RESULT in r for r in results] == [True, True, True, False, False]


def test_clear_tool_uses_waits_for_its_trigger() -> None:
    payload = body(tool_turns(5), clear(trigger={"type": "tool_uses", "value": 5}))
    answer = send(fake(), payload)
    assert applied(answer) == []
    assert answer.tokens is not None
    assert answer.tokens.total == plain_tokens(payload)


def test_clear_tool_uses_default_keeps_three() -> None:
    payload = body(tool_turns(5), clear(trigger={"type": "tool_uses", "value": 4}))
    [edit] = applied(send(fake(), payload))
    assert edit["cleared_tool_uses"] == 2


def test_excluded_tools_are_never_cleared() -> None:
    messages = tool_turns(2, name="memory") + tool_turns(3)[1:]
    payload = body(
        messages,
        clear(
            trigger={"type": "tool_uses", "value": 1},
            keep={"type": "tool_uses", "value": 0},
            exclude_tools=["memory"],
        ),
    )
    [edit] = applied(send(fake(), payload))
    assert edit["cleared_tool_uses"] == 3


def test_clear_at_least_not_reached_leaves_the_prompt_alone() -> None:
    payload = body(
        tool_turns(3),
        clear(
            trigger={"type": "tool_uses", "value": 1},
            keep={"type": "tool_uses", "value": 2},
            clear_at_least={"type": "input_tokens", "value": 10_000},
        ),
    )
    answer = send(fake(), payload)
    assert applied(answer) == []
    assert answer.tokens is not None
    assert answer.tokens.total == plain_tokens(payload)


def test_clear_tool_inputs_empties_the_cleared_calls_inputs() -> None:
    payload = body(
        tool_turns(2),
        clear(
            trigger={"type": "tool_uses", "value": 1},
            keep={"type": "tool_uses", "value": 1},
            clear_tool_inputs=True,
        ),
    )
    answer = send(fake(), payload)
    calls = [json.loads(r.content) for r in answer.rows if r.role == "assistant"]
    assert [c["tool_calls"][0]["arguments"] for c in calls] == ["{}", '{"q":"' + "x" * 40 + '"}']


def test_bad_values_are_400s_naming_the_key() -> None:
    bad = [
        (clear(keep={"type": "tool_uses", "value": -1}), "context_management.edits.0.keep.value"),
        (clear(trigger={"type": "turns", "value": 3}), "context_management.edits.0.trigger.type"),
        ({"type": "clear_everything"}, "context_management.edits.0.type"),
        (clear(exclude_tools="memory"), "context_management.edits.0.exclude_tools"),
    ]
    for edit, key in bad:
        answer = send(fake(), body(tool_turns(1), edit))
        assert answer.status == 400
        assert isinstance(answer.body, dict)
        assert obj(answer.body)["error"]["message"].startswith(key), (edit, answer.body)


def thinking_turns(n: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for i in range(n):
        messages.append({"role": "user", "content": f"q{i}"})
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "t" * 80, "signature": sign("t" * 80)},
                    {"type": "text", "text": f"a{i}"},
                ],
            }
        )
    messages.append({"role": "user", "content": "last"})
    return messages


def test_clear_thinking_keeps_the_newest_turns_thinking() -> None:
    edit = {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}
    [done] = applied(send(fake(), body(thinking_turns(3), edit)))
    assert done["type"] == "clear_thinking_20251015"
    assert done["cleared_thinking_turns"] == 2
    assert done["cleared_input_tokens"] > 0
    keep_all = {"type": "clear_thinking_20251015", "keep": "all"}
    assert applied(send(fake(), body(thinking_turns(3), keep_all))) == []


BIG = "b" * 240_000  # 60,004 tokens: over the smallest compaction trigger


def compact(**options: Any) -> dict[str, Any]:
    return {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": 50_000},
        **options,
    }


def long_conversation() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": BIG},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": "and now?"},
    ]


def test_compaction_summarises_and_answers_with_the_block_first() -> None:
    answer = send(fake(), body(long_conversation(), compact()), {"anthropic-beta": COMPACT_BETA})
    assert isinstance(answer.body, dict)
    block, *rest = obj(answer.body)["content"]
    assert block["type"] == "compaction"
    assert isinstance(block["content"], str)
    assert rest
    assert rest[0]["type"] == "text"
    assert obj(answer.body)["stop_reason"] == "end_turn"
    assert answer.tokens is not None
    assert answer.tokens.total < 100


def test_compaction_reports_its_own_iteration_beside_the_answers() -> None:
    payload = body(long_conversation(), compact())
    answer = send(fake(), payload, {"anthropic-beta": COMPACT_BETA})
    usage = obj(obj(answer.body)["usage"])
    step, message = usage["iterations"]
    # the summary step read the whole prompt, as the fake counts it without the edit
    assert step == {
        "type": "compaction",
        "input_tokens": plain_tokens(payload),
        "output_tokens": step["output_tokens"],
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    }
    assert 0 < step["output_tokens"] < 100  # the summary, not the prompt
    # the answer's step is the top-level usage, which leaves the compaction out
    assert message == {"type": "message", "model": "fake-model"} | {
        key: usage[key]
        for key in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
            "cache_creation",
        )
    }
    assert usage["input_tokens"] < step["input_tokens"]


def test_a_streamed_compaction_reports_its_iterations_in_message_delta() -> None:
    payload = {**body(long_conversation(), compact()), "stream": True}
    answer = send(fake(), payload, {"anthropic-beta": COMPACT_BETA})
    assert answer.events is not None
    [start] = [obj(e.data) for e in answer.events if e.event == "message_start"]
    [delta] = [obj(e.data) for e in answer.events if e.event == "message_delta"]
    step, message = obj(delta["usage"])["iterations"]
    assert (step["type"], step["input_tokens"]) == ("compaction", plain_tokens(payload))
    opening = obj(obj(start["message"])["usage"])
    assert message["input_tokens"] == opening["input_tokens"]
    assert message["output_tokens"] == obj(delta["usage"])["output_tokens"]


def test_no_iterations_without_a_compaction_nor_for_a_failed_one() -> None:
    headers = {"anthropic-beta": COMPACT_BETA}
    small = [{"role": "user", "content": "hi"}]
    assert "iterations" not in obj(obj(send(fake(), body(small, compact()), headers).body)["usage"])
    failed = send(fake(compaction_fails=True), body(long_conversation(), compact()), headers)
    assert "iterations" not in obj(obj(failed.body)["usage"])
    paused = send(fake(), body(long_conversation(), compact(pause_after_compaction=True)), headers)
    assert [i["type"] for i in obj(obj(paused.body)["usage"])["iterations"]] == ["compaction"]


def test_pause_after_compaction_answers_only_the_block() -> None:
    payload = body(long_conversation(), compact(pause_after_compaction=True))
    answer = send(fake(), payload, {"anthropic-beta": COMPACT_BETA})
    assert isinstance(answer.body, dict)
    assert [b["type"] for b in obj(answer.body)["content"]] == ["compaction"]
    assert obj(answer.body)["stop_reason"] == "compaction"


def test_compaction_trigger_below_the_minimum_is_rejected() -> None:
    low = compact(trigger={"type": "input_tokens", "value": 1000})
    answer = send(fake(), body(long_conversation(), low), {"anthropic-beta": COMPACT_BETA})
    assert answer.status == 400


def test_failed_compaction_returns_a_null_block_and_the_request_overflows() -> None:
    headers = {"anthropic-beta": COMPACT_BETA}
    failing = fake(window=60_000, compaction_fails=True)
    answer = send(failing, body(long_conversation(), compact()), headers)
    assert answer.outcome == "overflow"
    ok = send(fake(compaction_fails=True), body(long_conversation(), compact()), headers)
    assert isinstance(ok.body, dict)
    assert obj(ok.body)["content"][0] == {"type": "compaction", "content": None}


def test_a_returned_compaction_block_replaces_everything_before_it() -> None:
    first = send(fake(), body(long_conversation(), compact()), {"anthropic-beta": COMPACT_BETA})
    assert isinstance(first.body, dict)
    later = [
        *long_conversation(),
        {"role": "assistant", "content": obj(first.body)["content"]},
        {"role": "user", "content": "more"},
    ]
    answer = send(fake(), body(later), {})
    assert answer.tokens is not None
    assert answer.tokens.total < 100
    assert answer.rows[-1].content == "more"


def test_a_gateway_that_drops_the_field_turns_compaction_into_an_overflow() -> None:
    headers = {"anthropic-beta": COMPACT_BETA}
    answer = send(
        fake(window=60_000, handling="ignore"), body(long_conversation(), compact()), headers
    )
    assert answer.outcome == "overflow"
    honoured = send(fake(window=60_000), body(long_conversation(), compact()), headers)
    assert honoured.status == 200


def test_an_endpoint_that_does_not_know_the_field_rejects_it() -> None:
    answer = send(fake(handling="reject"), body(tool_turns(1), clear()))
    assert answer.status == 400
    assert isinstance(answer.body, dict)
    assert obj(answer.body)["error"]["message"] == NOT_PERMITTED


def test_streamed_answer_carries_the_applied_edits_in_message_delta() -> None:
    payload = {
        **body(tool_turns(4), clear(trigger={"type": "tool_uses", "value": 1})),
        "stream": True,
    }
    answer = send(fake(), payload)
    assert answer.events is not None
    [delta] = [e.data for e in answer.events if e.event == "message_delta"]
    assert isinstance(delta, dict)
    assert delta["context_management"] == {
        "applied_edits": [
            {
                "type": "clear_tool_uses_20250919",
                "cleared_tool_uses": 1,
                "cleared_input_tokens": obj(delta["context_management"])["applied_edits"][0][
                    "cleared_input_tokens"
                ],
            }
        ]
    }


@given(
    uses=st.integers(min_value=0, max_value=8),
    keep=st.integers(min_value=0, max_value=9),
    trigger=st.integers(min_value=0, max_value=9),
)
def test_clearing_never_grows_the_prompt_and_spares_the_newest_kept(
    uses: int, keep: int, trigger: int
) -> None:
    payload = body(
        tool_turns(uses),
        clear(
            trigger={"type": "tool_uses", "value": trigger},
            keep={"type": "tool_uses", "value": keep},
        ),
    )
    answer = send(fake(), payload)
    assert answer.tokens is not None
    edits = applied(answer)
    cleared = edits[0]["cleared_input_tokens"] if edits else 0
    assert answer.tokens.total == plain_tokens(payload) - cleared
    results = [r.content for r in answer.rows if r.role == "tool"]
    spared = results[max(0, uses - keep) :]
    assert not any(CLEARED_RESULT in r for r in spared)
    if uses > trigger and uses > keep:
        assert edits
        assert edits[0]["cleared_tool_uses"] == uses - keep


def test_count_tokens_counts_the_edited_prompt_and_reports_the_original() -> None:
    provider = fake()
    endpoint = next(e for e in provider.profile.endpoints if e.kind == "anthropic_count_tokens")
    edit = clear(trigger={"type": "tool_uses", "value": 1}, keep={"type": "tool_uses", "value": 1})
    payload = body(tool_turns(3), edit)
    raw = json.dumps(payload).encode()
    status, counted = HANDLERS[endpoint.kind](provider, endpoint, DiscoveryRequest(None, raw, BETA))
    assert status == 200
    before = plain_tokens(payload)
    answer = send(fake(), payload)
    assert answer.tokens is not None
    assert counted == {
        "input_tokens": answer.tokens.total,
        "context_management": {"original_input_tokens": before},
    }
    assert answer.tokens.total < before
    plain = {k: v for k, v in payload.items() if k != "context_management"}
    _, without = HANDLERS[endpoint.kind](
        provider, endpoint, DiscoveryRequest(None, json.dumps(plain).encode(), {})
    )
    assert without == {"input_tokens": before}


def test_compaction_keeps_a_trailing_tool_result_with_its_tool_use() -> None:
    # Before the fix the summary replaced the tool use and the fake refused its own result.
    messages = [*long_conversation()[:2], *tool_turns(1, result="r" * 400)[1:]]
    answer = send(fake(), body(messages, compact()), {"anthropic-beta": COMPACT_BETA})
    assert answer.status == 200, answer.body
    block = obj(answer.body)["content"][0]
    assert block["type"] == "compaction"
    assert block["content"] == "[summary of 2 earlier messages]"
    assert answer.tokens is not None
    assert answer.tokens.total < 1000
