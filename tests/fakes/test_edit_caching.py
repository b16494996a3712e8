"""Provider-side edits meet the prompt cache: the cache sees the context the model saw.

Anthropic's context-editing guide ("Context editing and prompt caching"): clearing tool
results invalidates the cached prompt prefix; later requests reuse the newly cached one.
The fakes edit the body before it is decoded, so the cache is keyed on the edited rows:
an edited row is a miss from that row on; so is cleared thinking, which is not a row but is
part of the prefix ("cleared thinking invalidates the cache where the clearing happens").
See ``docs/decisions.md``, "Prompt caching simulation" (issue 17 follow-up).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakes import FakeBehaviour, FakeProvider
from fakes.rows import CanonicalRequest
from fakes.simulations.context_edits import CLEARED_RESULT, CONTEXT_MANAGEMENT_BETA
from fakes.simulations.prefix_chain import prefixes
from fakes.simulations.thinking import sign
from fakes.wire.base import RequestContext

BETA = {"anthropic-beta": CONTEXT_MANAGEMENT_BETA}
SYSTEM_TOKENS = 1100  # over Anthropic's 1,024-token minimum on its own
RESULT_TOKENS = 300
NEVER = 1_000_000  # a trigger no test conversation reaches


def result_text(variant: int) -> str:
    return chr(ord("a") + variant) * (RESULT_TOKENS * 4)


def thought(i: int) -> dict[str, Any]:
    """A thinking block as the fake would have given it (it refuses unsigned ones)."""
    text = f"step {i}: look it up"
    return {"type": "thinking", "thinking": text, "signature": sign(text)}


def conversation(results: list[int], thinking_from: int | None = None) -> list[dict[str, Any]]:
    """Tool rounds; from round ``thinking_from`` on, each assistant turn starts with its
    thinking block (as a tool loop with extended thinking sends them back)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for i, variant in enumerate(results):
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "lookup", "input": {"q": i}}
        thinks = thinking_from is not None and i >= thinking_from
        messages.append({"role": "assistant", "content": [thought(i), use] if thinks else [use]})
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}"}
        messages.append({"role": "user", "content": [{**result, "content": result_text(variant)}]})
    return messages


def clear_thinking(keep_turns: int) -> dict[str, Any]:
    return {
        "type": "clear_thinking_20251015",
        "keep": {"type": "thinking_turns", "value": keep_turns},
    }


def request(
    results: list[int],
    trigger: int,
    keep: int,
    thinking: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """``thinking``: (first round with thinking, thinking turns the clearing keeps)."""
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": trigger},
        "keep": {"type": "tool_uses", "value": keep},
    }
    edits = [clear_thinking(thinking[1]), edit] if thinking else [edit]
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 16,
        "system": "s" * (SYSTEM_TOKENS * 4),
        "messages": conversation(results, thinking[0] if thinking else None),
        "cache_control": {"type": "ephemeral"},  # a breakpoint after the last block
        "context_management": {"edits": edits},
    }


def _is_thinking(block: dict[str, Any]) -> bool:
    return bool(block["type"] == "thinking")


def expected_edit(
    payload: dict[str, Any], trigger: int, keep: int, keep_thinking: int | None = None
) -> dict[str, Any]:
    """The body as the guide says the model sees it: the thinking of all but the newest
    ``keep_thinking`` thinking turns is gone; past the trigger, every tool result but the
    last ``keep`` holds the placeholder (written here without the fake's code)."""
    body = copy.deepcopy({k: v for k, v in payload.items() if k != "context_management"})
    lists = [m for m in body["messages"] if isinstance(m["content"], list)]
    thinking = [m for m in lists if any(_is_thinking(b) for b in m["content"])]
    if keep_thinking is not None and len(thinking) > keep_thinking:
        for message in thinking[: len(thinking) - keep_thinking]:
            message["content"] = [b for b in message["content"] if not _is_thinking(b)]
    results = [m for m in lists if m["content"][0]["type"] == "tool_result"]
    if len(results) > trigger:
        for message in results[: max(0, len(results) - keep)]:
            message["content"][0]["content"] = CLEARED_RESULT
    return body


def row_keys(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """Per row of ``body`` (one system row, then one per message in these conversations):
    its role and every block, thinking included: what a cached prefix is made of."""
    keys: list[tuple[str, Any]] = [("system", body["system"])]
    return keys + [(m["role"], json.dumps(m["content"])) for m in body["messages"]]


def fake() -> FakeProvider:
    return FakeProvider("anthropic", "claude-sonnet-4-5", context_window=200_000, clock=lambda: 0.0)


def send(provider: FakeProvider, payload: dict[str, Any]) -> tuple[tuple[int, int], Any]:
    ctx = RequestContext(None, BETA)
    answer = provider.answer(
        provider.wire("anthropic"), json.dumps(payload).encode(), ctx, 0, FakeBehaviour()
    )
    assert answer.status == 200, answer.body
    body: Any = answer.body
    usage = body["usage"]
    return (usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]), answer


def decoded(provider: FakeProvider, body: dict[str, Any]) -> CanonicalRequest:
    return provider.wire("anthropic").decode(body, RequestContext(None, BETA))


def test_clearing_tool_results_is_a_miss_then_the_cleared_prefix_is_reused() -> None:
    provider = fake()
    results = [0, 1, 2, 0, 1, 2]
    unedited = request(results, NEVER, 2)
    (read, written), _ = send(provider, unedited)
    assert read == 0
    assert written > SYSTEM_TOKENS
    (read, _), _ = send(provider, unedited)
    assert read == written  # before any edit the whole prompt is a hit

    edited = request(results, 3, 2)  # six tool uses over a trigger of three: four cleared
    (read, rewritten), answer = send(provider, edited)
    assert read == 0  # the only breakpoint's prefix ran through the cleared results
    assert 0 < rewritten < written  # the edited, shorter context is written anew
    reported: Any = answer.body
    assert reported["context_management"]["applied_edits"][0]["cleared_tool_uses"] == 4
    (read, again), _ = send(provider, edited)
    assert (read, again) == (rewritten, 0)  # the same edit again reuses the new prefix


def test_the_cache_is_keyed_on_the_edited_rows_not_the_sent_ones() -> None:
    provider = fake()
    results = [0, 1, 2, 0, 1]
    edited = request(results, 2, 1)
    send(provider, edited)
    # The plain request the edit produced hits the whole entry: the cache saw that context.
    plain = expected_edit(edited, 2, 1)
    (read, written), _ = send(provider, plain)
    assert read > SYSTEM_TOKENS
    assert written == 0


def test_clearing_thinking_is_a_miss_from_the_first_cleared_block_on() -> None:
    provider = fake()
    plain = request([0, 1, 2, 0], NEVER, 2, thinking=(1, 1))  # rounds 1-3 think
    del plain["context_management"]
    results = plain["messages"][2]["content"]  # round 0's result: cached on its own
    results[-1] = {**results[-1], "cache_control": {"type": "ephemeral"}}
    (_, written), _ = send(provider, plain)
    (read, _), _ = send(provider, plain)
    assert read == written  # thinking and all, the same prompt is a whole hit

    clearing = {**plain, "context_management": {"edits": [clear_thinking(1)]}}
    (read, rewritten), answer = send(provider, clearing)
    reported: Any = answer.body
    assert reported["context_management"]["applied_edits"][0]["cleared_thinking_turns"] == 2
    # rows: system, start, round 0's call and result; round 1's call lost its thinking
    before_cleared = prefixes(provider.counter, decoded(provider, plain), written)[4].tokens
    assert read == before_cleared < written
    assert rewritten > 0
    (reread, again), _ = send(provider, clearing)
    assert (reread, again) == (read + rewritten, 0)  # the cleared context is reused whole


tool_results = st.lists(st.integers(0, 2), min_size=1, max_size=6)  # result variants
requests = st.tuples(
    st.integers(0, 1),  # which conversation of the pool
    st.integers(0, 6),  # trigger (tool uses)
    st.integers(0, 3),  # keep (tool uses)
    st.none() | st.tuples(st.integers(0, 5), st.integers(0, 3)),  # thinking, kept turns
)


@settings(max_examples=40, deadline=None)
@given(
    # two conversations at most, so that requests often resend one with other edits
    pool=st.lists(tool_results, min_size=1, max_size=2),
    sequence=st.lists(requests, min_size=1, max_size=6),
)
def test_cached_tokens_never_exceed_the_common_prefix_with_an_earlier_edited_context(
    pool: list[list[int]], sequence: list[tuple[int, int, int, tuple[int, int] | None]]
) -> None:
    provider = fake()  # the clock never moves: every earlier entry is still live
    seen: list[list[tuple[str, Any]]] = []
    for which, trigger, keep, thinking in sequence:
        results = pool[which % len(pool)]
        payload = request(results, trigger, keep, thinking)
        (read, _), answer = send(provider, payload)
        expected = expected_edit(payload, trigger, keep, thinking[1] if thinking else None)
        oracle = decoded(provider, expected)
        assert answer.rows == oracle.rows  # the model saw the edited context
        chain = prefixes(provider.counter, oracle, provider.count(oracle).total)
        keys = row_keys(expected)
        assert len(keys) == len(oracle.rows)
        bounds = [0]
        for earlier in seen:
            common = 0
            for ours, theirs in zip(keys, earlier, strict=False):
                if ours != theirs:
                    break
                common += 1
            bounds.append(chain[common].tokens)
        assert read <= max(bounds)
        seen.append(keys)


def responses_send(provider: FakeProvider, body: dict[str, Any]) -> tuple[int, Any]:
    ctx = RequestContext(None, {})
    raw = json.dumps(body).encode()
    answer = provider.answer(provider.wire("openai_responses"), raw, ctx, 0, FakeBehaviour())
    assert answer.status == 200, answer.body
    reply: Any = answer.body
    return reply["usage"]["input_tokens_details"]["cached_tokens"], reply


def test_responses_compaction_keeps_only_the_unedited_prefix_cached_and_its_item_reuses() -> None:
    provider = FakeProvider("openai", "m", context_window=100_000, clock=lambda: 0.0)
    instructions = "i" * (SYSTEM_TOKENS * 4)  # the prefix compaction leaves in place
    items: list[dict[str, Any]] = []
    for n in range(6):
        items += [{"role": "user", "content": f"u{n} " + "x" * 2000}]
        items += [{"role": "assistant", "content": f"a{n} " + "y" * 2000}]
    items.append({"role": "user", "content": "last"})
    plain = {"model": "m", "instructions": instructions, "input": items}
    responses_send(provider, plain)
    full, _ = responses_send(provider, plain)
    compaction = [{"type": "compaction", "compact_threshold": 2000}]
    compacting = {**plain, "context_management": compaction}
    read, answer = responses_send(provider, compacting)
    assert answer["output"][0]["type"] == "compaction"
    assert 0 < read <= SYSTEM_TOKENS < full  # a hit on the instructions only, not the items
    # Sending the item back (as a client keeps it) is the compacted context: a full hit.
    reuse = {**plain, "input": [answer["output"][0], items[-1]]}
    again, reply = responses_send(provider, reuse)
    assert again == answer["usage"]["input_tokens"] // 128 * 128
    assert reply["output"][0]["type"] == "message"  # no compaction this time
