"""The Anthropic client keeps its compaction blocks and sends them back (issue 17)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from harness.providers.clients.kept_compactions import KeptCompactions, anchor_of

BLOCK: dict[str, object] = {"type": "compaction", "content": "summary"}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def test_the_block_goes_back_at_the_head_of_the_answer_to_the_compacted_request() -> None:
    kept = KeptCompactions()
    sent: list[object] = [user("u1"), assistant("a1"), user("u2")]
    kept.keep(sent, [BLOCK, {"type": "text", "text": "a2"}])
    later: list[object] = [*sent, assistant("a2"), user("u3")]
    resent = kept.resend(later)
    assert resent[:3] == sent
    assert resent[3] == {"role": "assistant", "content": [BLOCK, {"type": "text", "text": "a2"}]}
    assert resent[4:] == [user("u3")]


def test_a_failed_compaction_is_not_kept_and_a_trimmed_prefix_gets_no_block() -> None:
    kept = KeptCompactions()
    sent: list[object] = [user("u1"), assistant("a1"), user("u2")]
    kept.keep(sent, [{"type": "compaction", "content": None}])
    assert len(kept) == 0
    kept.keep(sent, [BLOCK])
    trimmed: list[object] = [user("u2"), assistant("a2"), user("u3")]
    assert kept.resend(trimmed) == trimmed


def test_breakpoints_do_not_break_the_anchor_and_a_missing_answer_is_inserted() -> None:
    kept = KeptCompactions()
    marked = {"type": "text", "text": "u1", "cache_control": {"type": "ephemeral"}}
    kept.keep([{"role": "user", "content": [marked]}], [BLOCK])
    later: list[object] = [user("u1"), user("u2")]
    assert kept.resend(later) == [user("u1"), {"role": "assistant", "content": [BLOCK]}, user("u2")]


def test_the_store_is_bounded() -> None:
    kept = KeptCompactions(limit=2)
    for n in range(5):
        kept.keep([user(f"u{n}")], [BLOCK])
    assert len(kept) == 2


def convo(texts: list[str]) -> list[object]:
    return [user(t) if n % 2 == 0 else assistant(t) for n, t in enumerate(texts)]


texts = st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6)


@given(anchors=st.lists(texts, max_size=4), conversation=texts)
def test_resend_only_ever_adds_one_block_after_a_kept_anchor(
    anchors: list[list[str]], conversation: list[str]
) -> None:
    kept = KeptCompactions()
    for anchor in anchors:
        kept.keep(convo(anchor), [BLOCK])
    messages = convo(conversation)
    resent = kept.resend(messages)
    without = [
        m if not isinstance(m, dict) else {**m, "content": [b for b in m["content"] if b != BLOCK]}
        for m in resent
    ]
    without = [m for m in without if not (isinstance(m, dict) and m["content"] == [])]
    assert without == messages  # nothing of the runtime's history changes
    blocks = sum(1 for m in resent if isinstance(m, dict) and BLOCK in m["content"])
    matching = [
        a
        for a in anchors
        if len(a) < len(messages) and anchor_of(messages[: len(a)]) == anchor_of(convo(a))
    ]
    assert blocks == (1 if matching else 0)


def test_responses_item_replaces_the_input_it_summarised() -> None:
    kept = KeptCompactions()
    item: dict[str, object] = {"id": "cmp_1", "type": "compaction", "encrypted_content": "x"}
    sent: list[object] = [user("u1"), assistant("a1"), user("u2")]
    kept.keep(sent, [item, {"type": "message", "role": "assistant", "content": "a2"}])
    later: list[object] = [*sent, assistant("a2"), user("u3")]
    assert kept.resend_items(later) == [item, assistant("a2"), user("u3")]
    assert kept.resend_items(sent) == sent  # nothing follows the anchor: nothing to replace
