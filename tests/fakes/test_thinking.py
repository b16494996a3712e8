"""Extended thinking in the fake (``fakes.simulations.thinking``): signed blocks come back, only the
fake's own signatures are taken back, and a gateway's handling of context management
leaves thinking alone."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.serving.answer import Answer
from fakes.simulations.context_edits import COMPACT_BETA
from fakes.simulations.thinking import (
    INVALID_SIGNATURE,
    MIN_BUDGET_TOKENS,
    Thinking,
    add_events,
    sign,
)
from fakes.wire.base import StreamEvent
from tests.fakes.shapes import fixture
from tests.fakes.test_context_edits import (
    BETA,
    body,
    compact,
    fake,
    long_conversation,
    obj,
    send,
)

ENABLED = {"type": "enabled", "budget_tokens": MIN_BUDGET_TOKENS}


def ask(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"model": "fake-model", "max_tokens": 2048, "messages": messages, **extra}


def content(answer: Answer) -> list[dict[str, Any]]:
    assert answer.status == 200, answer.body
    return list(obj(answer.body)["content"])


def message(answer: Answer) -> str:
    return str(obj(answer.body)["error"]["message"])


def test_thinking_enabled_answers_with_one_signed_block_first() -> None:
    [first, *rest] = content(
        send(fake(), ask([{"role": "user", "content": "hi"}], thinking=ENABLED))
    )
    assert first["type"] == "thinking"
    assert first["signature"] == sign(first["thinking"])
    assert [b["type"] for b in rest] == ["text"]


@pytest.mark.parametrize("thinking", [None, {"type": "disabled"}])
def test_without_thinking_no_block_comes_back(thinking: dict[str, Any] | None) -> None:
    extra = {"thinking": thinking} if thinking else {}
    blocks = content(send(fake(), ask([{"role": "user", "content": "hi"}], **extra)))
    assert "thinking" not in [b["type"] for b in blocks]


def test_each_turn_thinks_anew() -> None:
    provider = fake()
    first = content(send(provider, ask([{"role": "user", "content": "a"}], thinking=ENABLED)))
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": first},
        {"role": "user", "content": "b"},
    ]
    second = content(send(provider, ask(history, thinking=ENABLED)))
    assert second[0]["thinking"] != first[0]["thinking"]


@pytest.mark.parametrize(
    ("config", "max_tokens", "says"),
    [
        ({"type": "enabled"}, 2048, "thinking.enabled.budget_tokens"),
        ({"type": "enabled", "budget_tokens": 1023}, 2048, "greater than or equal to 1024"),
        ({"type": "enabled", "budget_tokens": 2048}, 2048, "`max_tokens` must be greater"),
        ({"type": "sometimes"}, 2048, "thinking.type"),
    ],
)
def test_a_bad_thinking_config_is_a_400_naming_it(
    config: dict[str, Any], max_tokens: int, says: str
) -> None:
    payload = ask([{"role": "user", "content": "hi"}], thinking=config)
    answer = send(fake(), {**payload, "max_tokens": max_tokens})
    assert answer.status == 400
    assert says in message(answer)


@given(text=st.text(max_size=60), forged=st.text(max_size=60))
def test_a_thinking_block_the_fake_did_not_sign_is_refused(text: str, forged: str) -> None:
    if forged == sign(text):
        return
    block = {"type": "thinking", "thinking": text, "signature": forged}
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "b"},
    ]
    answer = send(fake(foreign_history="strict"), ask(history))
    assert answer.status == 400
    assert message(answer) == INVALID_SIGNATURE.format(message=1, block=0)


def _history(block: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "b"},
    ]


def test_a_block_the_real_api_signed_is_taken_as_opaque_by_default() -> None:
    real = fixture("foreign_history.json")["anthropic_thinking"]["block"]
    assert send(fake(), ask(_history(real), thinking=ENABLED)).status == 200
    refused = send(fake(foreign_history="strict"), ask(_history(real), thinking=ENABLED))
    assert refused.status == 400


@given(text=st.text(max_size=60), digest=st.binary(min_size=32, max_size=32))
def test_a_block_signed_in_the_fakes_form_is_checked_even_when_opaque(
    text: str, digest: bytes
) -> None:
    forged = base64.b64encode(digest).decode("ascii")
    if forged == sign(text):
        return
    block = {"type": "thinking", "thinking": text, "signature": forged}
    answer = send(fake(), ask(_history(block)))
    assert answer.status == 400  # an edited block of the fake's own is still refused


def test_a_gateway_that_drops_context_management_still_thinks() -> None:
    edit = {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}
    payload = ask(
        [{"role": "user", "content": "hi"}],
        thinking=ENABLED,
        context_management={"edits": [edit]},
    )
    answer = send(fake(handling="ignore"), payload, BETA)
    assert content(answer)[0]["type"] == "thinking"
    assert "context_management" not in obj(answer.body)


# -- streamed answers ------------------------------------------------------------------


def streamed(answer: Answer) -> list[dict[str, Any]]:
    assert answer.status == 200, answer.body
    assert answer.events is not None
    return [obj(e.data) for e in answer.events]


def shape(event: dict[str, Any]) -> tuple[str, Any, Any]:
    """An event's type, index and delta or block type: what its order is judged on."""
    inner = event.get("delta") or event.get("content_block") or {}
    return (event["type"], event.get("index"), inner.get("type"))


def reassembled(events: list[dict[str, Any]], index: int) -> dict[str, Any]:
    """The block at ``index`` as a client builds it: its start, every delta applied."""
    [start] = [e for e in events if e["type"] == "content_block_start" and e["index"] == index]
    block = dict(start["content_block"])
    for e in events:
        if e["type"] == "content_block_delta" and e["index"] == index:
            delta = e["delta"]
            key = {"thinking_delta": "thinking", "signature_delta": "signature"}.get(
                delta["type"], "text"
            )
            block[key] = block.get(key, "") + delta[key]
    return block


def test_a_streamed_answer_thinks_first_as_the_api_streams_it() -> None:
    payload = ask([{"role": "user", "content": "hi"}], thinking=ENABLED, stream=True)
    shapes = [shape(e) for e in streamed(send(fake(), payload))]
    kinds = [s[0] for s in shapes]
    # the real order: ping right after the first block's start (fantasy's
    # TestAnthropicThinking/claude-sonnet-4/thinking-streaming.yaml)
    assert kinds[:3] == ["message_start", "content_block_start", "ping"]
    assert shapes[1] == ("content_block_start", 0, "thinking")
    stop = shapes.index(("content_block_stop", 0, None))
    deltas = shapes[3:stop]
    assert len(deltas) >= 2
    assert set(deltas[:-1]) == {("content_block_delta", 0, "thinking_delta")}
    assert deltas[-1] == ("content_block_delta", 0, "signature_delta")
    assert shapes[stop + 1] == ("content_block_start", 1, "text")
    assert {s[1] for s in shapes[stop + 1 :] if s[0].startswith("content_block")} == {1}
    assert kinds[-2:] == ["message_delta", "message_stop"]


def test_the_streamed_block_starts_empty_and_reassembles_to_the_json_one() -> None:
    message = [{"role": "user", "content": "hi"}]
    events = streamed(send(fake(), ask(message, thinking=ENABLED, stream=True)))
    assert events[1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    whole = content(send(fake(), ask(message, thinking=ENABLED)))
    assert reassembled(events, 0) == whole[0]
    assert reassembled(events, 1) == whole[1]


@pytest.mark.parametrize("edit", [False, True])
def test_a_reassembled_block_sent_back_is_taken_and_an_edited_one_refused(edit: bool) -> None:
    provider = fake()
    first = [{"role": "user", "content": "a"}]
    events = streamed(send(provider, ask(first, thinking=ENABLED, stream=True)))
    thought, text = reassembled(events, 0), reassembled(events, 1)
    if edit:
        thought["thinking"] += " (edited)"
    history = [*first, {"role": "assistant", "content": [thought, text]}]
    history.append({"role": "user", "content": "b"})
    answer = send(provider, ask(history, thinking=ENABLED, stream=True))
    assert answer.status == (400 if edit else 200)
    if edit:
        assert message(answer) == INVALID_SIGNATURE.format(message=1, block=0)


@pytest.mark.parametrize("thinking", [None, {"type": "disabled"}])
def test_without_thinking_the_stream_is_unchanged(thinking: dict[str, Any] | None) -> None:
    extra = {"thinking": thinking} if thinking else {}
    payload = ask([{"role": "user", "content": "hi"}], stream=True, **extra)
    with_config = streamed(send(fake(), payload))
    plain = streamed(send(fake(), ask([{"role": "user", "content": "hi"}], stream=True)))
    stripped = streamed(send(fake(thinks=False), {**payload, "thinking": ENABLED}))
    assert with_config == plain == stripped
    assert all(shape(e)[2] not in ("thinking", "thinking_delta") for e in plain)
    assert [shape(e) for e in plain][1] == ("content_block_start", 0, "text")


KINDS = ["ping", "content_block_start", "content_block_delta", "content_block_stop"]


@given(
    kinds=st.lists(st.sampled_from(KINDS), max_size=12),
    turn=st.integers(min_value=1, max_value=10_000),
)
def test_thinking_events_come_once_before_the_blocks_whose_indexes_move_up(
    kinds: list[str], turn: int
) -> None:
    """Any stream: the thinking events come once, before the first content block event,
    and the stream's own events follow in order, each block's index one up."""
    ends: list[dict[str, Any]] = [{"type": "message_delta"}, {"type": "message_stop"}]
    given_events: list[dict[str, Any]] = [
        {"type": k, "index": n} if k != "ping" else {"type": k} for n, k in enumerate(kinds)
    ]
    stream = tuple(StreamEvent(e, event=str(e["type"])) for e in [*given_events, *ends])
    thought = [obj(e.data) for e in Thinking(turn).events()]
    out = [obj(e.data) for e in add_events(stream, Thinking(turn))]
    first = next(n for n, e in enumerate(out) if e in thought)
    assert out[first : first + len(thought)] == thought
    assert all(e["type"] == "ping" for e in out[:first])
    rest = out[:first] + out[first + len(thought) :]
    moved = [{**e, "index": e["index"] + 1} if "index" in e else e for e in given_events]
    assert rest == [*moved, *ends]
    assert reassembled(thought, 0) == Thinking(turn).block()


def test_after_a_streamed_compaction_the_blocks_come_in_the_json_answers_order() -> None:
    """Compaction block, thinking, text: the stream's indexes give the JSON content's order."""
    payload = {
        **body(long_conversation(), compact()),
        "max_tokens": 2048,
        "thinking": ENABLED,
    }
    headers = {"anthropic-beta": COMPACT_BETA}
    whole = content(send(fake(), payload, headers))
    events = streamed(send(fake(), {**payload, "stream": True}, headers))
    starts = [e["index"] for e in events if e["type"] == "content_block_start"]
    assert starts == list(range(len(whole)))
    assert [b["type"] for b in whole] == ["compaction", "thinking", "text"]
    assert reassembled(events, 1) == whole[1]
