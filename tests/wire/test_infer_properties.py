"""The inference against trimmers: the reference's rules are read as clean trims with the
reference's own counts; deliberately wrong trimmers are read as what they break."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from harness.runtime import (
    ChatMessage,
    drop_oldest_whole_turn,
    estimate_history_tokens,
    insert_breadcrumb_deduped,
    is_turn_boundary,
    trim_to_recent_turn_count,
    trim_to_recent_turns,
)
from harness.wire import WireObserver
from tests.wire.strategies import Conversation, conversations
from tests.wire.support import feed, kinds, only

CLEAN_KINDS = {"trim", "cache_break"}


@st.composite
def mid_conversation(draw: st.DrawFn) -> tuple[Conversation, int, int]:
    """A conversation, the index ``p`` of the answer row to a previous request
    ``rows[:p]``, and the end ``q`` of the history when the next request is made (after a
    user or tool row)."""
    conv = draw(conversations(min_turns=2))
    rows = conv.rows
    answers = [i for i in range(1, len(rows)) if rows[i].role == "assistant"]
    p = draw(st.sampled_from(answers[:-1] or answers))
    ends = [
        q
        for q in range(p + 2, len(rows) + 1)
        if rows[q - 1].role in {"user", "tool"} and (q == len(rows) or rows[q].role != "tool")
    ]
    assume(ends)
    return conv, p, draw(st.sampled_from(ends))


def _observer_after(rows: list[ChatMessage], p: int) -> WireObserver:
    observer = WireObserver()
    feed(observer, rows[:p], rows[p : p + 1], session="s")
    return observer


@given(mid_conversation(), st.data())
def test_a_reference_trim_is_a_trim_with_the_references_counts(
    case: tuple[Conversation, int, int], data: st.DataObject
) -> None:
    conv, p, q = case
    rows = conv.rows
    working = rows[:q]
    total = estimate_history_tokens(working)
    result = trim_to_recent_turns(working, data.draw(st.integers(1, total)))
    assume(result.trimmed and result.dropped_messages <= p + 1 - len(conv.system))
    request = insert_breadcrumb_deduped(result.history, crumb_present=False)
    findings = feed(_observer_after(rows, p), request, session="s")
    assert set(kinds(findings)) <= CLEAN_KINDS
    trim = only(findings, "trim")
    assert (trim.dropped_messages, trim.dropped_turns, trim.kept_turns) == (
        result.dropped_messages,
        result.dropped_turns,
        result.kept_turns,
    )
    assert (trim.tokens_before, trim.tokens_after) == (result.tokens_before, result.tokens_after)
    assert trim.on_turn_boundary is True
    assert trim.breadcrumb is True


@given(mid_conversation(), st.data())
def test_a_reference_turn_count_trim_or_oldest_turn_drop_is_a_trim_with_its_counts(
    case: tuple[Conversation, int, int], data: st.DataObject
) -> None:
    """The other reference trimmers: the turn limit (``trim_to_recent_turn_count``) and
    the unsatisfiable-floor recovery (``drop_oldest_whole_turn``)."""
    conv, p, q = case
    working = conv.rows[:q]
    if data.draw(st.booleans()):
        limit = trim_to_recent_turn_count(working, data.draw(st.integers(0, 4)))
        assume(limit.trimmed)
        kept, dropped, turns = limit.history, limit.dropped_messages, limit.kept_turns
    else:
        kept, dropped = drop_oldest_whole_turn(working, crumb_present=False)
        assume(dropped > 0)
        turns = sum(is_turn_boundary(row) for row in kept)
    assume(dropped <= p + 1 - len(conv.system))
    request = insert_breadcrumb_deduped(kept, crumb_present=False)
    findings = feed(_observer_after(conv.rows, p), request, session="s")
    assert set(kinds(findings)) <= CLEAN_KINDS
    trim = only(findings, "trim")
    assert (trim.dropped_messages, trim.kept_turns) == (dropped, turns)
    assert trim.on_turn_boundary is True


@given(mid_conversation(), st.data())
def test_a_count_cut_inside_a_tool_round_orphans_a_result(
    case: tuple[Conversation, int, int], data: st.DataObject
) -> None:
    conv, p, q = case
    rows = conv.rows
    tools = [k for k in range(len(conv.system), p + 1) if rows[k].role == "tool"]
    assume(tools)
    cut = data.draw(st.sampled_from(tools))
    findings = feed(_observer_after(rows, p), [*conv.system, *rows[cut:q]], session="s")
    assert "orphan_tool_result" in kinds(findings)
    trim = only(findings, "trim")
    assert trim.on_turn_boundary is False
    assert trim.dropped_messages == cut - len(conv.system)


@given(mid_conversation())
def test_dropping_the_system_rows_is_system_dropped(case: tuple[Conversation, int, int]) -> None:
    conv, p, q = case
    assume(conv.system)
    findings = feed(_observer_after(conv.rows, p), conv.rows[len(conv.system) : q], session="s")
    assert "system_dropped" in kinds(findings)
    assert "trim" not in kinds(findings)


@given(mid_conversation())
def test_a_changed_system_row_is_system_changed(case: tuple[Conversation, int, int]) -> None:
    conv, p, q = case
    assume(conv.system)
    request = [ChatMessage("system", "another prompt"), *conv.rows[len(conv.system) : q]]
    assert "system_changed" in kinds(feed(_observer_after(conv.rows, p), request, session="s"))


@given(mid_conversation())
def test_a_mid_turn_request_without_its_user_row_is_user_dropped(
    case: tuple[Conversation, int, int],
) -> None:
    conv, p, q = case
    rows = conv.rows
    assume(not any(is_turn_boundary(row) for row in rows[p + 1 : q]))  # the same turn
    opener = max(i for i in range(p) if is_turn_boundary(rows[i]))
    request = [*conv.system, *rows[opener + 1 : q]]
    assert "user_dropped" in kinds(feed(_observer_after(rows, p), request, session="s"))


@given(mid_conversation())
def test_a_request_of_system_rows_only_is_user_dropped(case: tuple[Conversation, int, int]) -> None:
    conv, p, _ = case
    request = [*conv.system, ChatMessage("system", "only this")]
    assert "user_dropped" in kinds(feed(_observer_after(conv.rows, p), request, session="s"))


@given(mid_conversation(), st.data())
def test_a_summary_in_place_of_old_turns_is_a_compaction(
    case: tuple[Conversation, int, int], data: st.DataObject
) -> None:
    conv, p, q = case
    rows = conv.rows
    openings = [k for k in range(len(conv.system) + 1, p + 1) if is_turn_boundary(rows[k])]
    assume(openings)
    cut = data.draw(st.sampled_from(openings))
    summary = ChatMessage("user", "Summary of the conversation so far: never seen before")
    request = [*conv.system, summary, *rows[cut:q]]
    findings = feed(_observer_after(rows, p), request, session="s")
    compaction = only(findings, "compaction")
    assert compaction.dropped_messages == cut - len(conv.system)
    assert "trim" not in kinds(findings)


@given(mid_conversation())
def test_a_request_that_extends_the_history_has_no_finding(
    case: tuple[Conversation, int, int],
) -> None:
    conv, p, q = case
    assert feed(_observer_after(conv.rows, p), conv.rows[:q], session="s") == ()
