"""Invariants of every trimmer over generated histories (hypothesis).

Output is the system prefix (plus a flagged breadcrumb) followed by a suffix of whole
turns; no tool call is separated from its result; the newest turn is always kept; nothing
changes when nothing needs trimming; trimming a trimmed history again changes nothing.
"""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given
from hypothesis import strategies as st

from bench.naive import naive_trim_to_recent_turns
from harness.runtime import (
    Chat,
    ChatMessage,
    ConversationMessage,
    drop_oldest_whole_turn,
    estimate_history_tokens,
    insert_conversation_breadcrumb,
    is_turn_boundary,
    remove_orphaned_tool_messages,
    segment_turns,
    trim_conversation_to_recent_turns,
    trim_to_recent_turn_count,
    trim_to_recent_turns,
    trim_to_reported_budget,
)
from harness.runtime import trim as trim_module
from harness.runtime.hygiene import assistant_tool_call_ids, tool_call_id_of
from tests.runtime.strategies import histories

budgets = st.integers(min_value=0, max_value=6000)
caps = st.integers(min_value=0, max_value=10)


def _kept_suffix_start(
    history: list[ChatMessage], output: list[ChatMessage], crumb_present: bool
) -> int:
    """Assert ``output`` is prefix + history[start:] for a turn start; return ``start``."""
    segments = segment_turns(history, crumb_present)
    prefix = history[: segments.pre_turn_start]
    assert output[: len(prefix)] == prefix
    start = len(history) - (len(output) - len(prefix))
    assert output[len(prefix) :] == history[start:]
    turn_starts = {s for s, _ in segments.turns}
    assert start == segments.pre_turn_start or start in turn_starts
    return start


def _native_pairs(rows: list[ChatMessage]) -> tuple[set[str], set[str]]:
    called: set[str] = set()
    answered: set[str] = set()
    for row in rows:
        if row.role == "assistant":
            called.update(assistant_tool_call_ids(row.content) or [])
        elif row.role == "tool" and (result_id := tool_call_id_of(row.content)) is not None:
            answered.add(result_id)
    return called, answered


@given(histories(), budgets)
def test_budget_trim_is_identical_to_the_reference_probe_loop(
    generated: tuple[list[ChatMessage], bool], budget: int
) -> None:
    history, crumb = generated
    assert trim_to_recent_turns(history, budget, crumb) == naive_trim_to_recent_turns(
        history, budget, crumb
    )


@given(histories(), budgets, st.integers(min_value=1, max_value=9))
def test_budget_trim_is_identical_to_the_reference_at_any_suffix_block_size(
    generated: tuple[list[ChatMessage], bool], budget: int, block: int
) -> None:
    # The suffix sums are kept per block of ``_BLOCK`` rows (256); drawn histories are
    # shorter, so small blocks make every probe cross block edges.
    history, crumb = generated
    with patch.object(trim_module, "_BLOCK", block):
        trimmed = trim_to_recent_turns(history, budget, crumb)
    assert trimmed == naive_trim_to_recent_turns(history, budget, crumb)


@given(histories(), budgets)
def test_budget_trim_keeps_prefix_and_a_suffix_of_whole_turns(
    generated: tuple[list[ChatMessage], bool], budget: int
) -> None:
    history, crumb = generated
    result = trim_to_recent_turns(history, budget, crumb)
    start = _kept_suffix_start(history, result.history, crumb)
    assert result.dropped_messages == start - segment_turns(history, crumb).pre_turn_start
    assert result.tokens_after == estimate_history_tokens(result.history)


@given(histories(min_turns=1), budgets)
def test_budget_trim_keeps_the_newest_turn(
    generated: tuple[list[ChatMessage], bool], budget: int
) -> None:
    history, crumb = generated
    segments = segment_turns(history, crumb)
    if not segments.turns:
        return
    newest_start = segments.turns[-1][0]
    result = trim_to_recent_turns(history, budget, crumb)
    assert result.history[-(len(history) - newest_start) :] == history[newest_start:]


@given(histories(), budgets)
def test_budget_trim_never_separates_a_tool_call_from_its_result(
    generated: tuple[list[ChatMessage], bool], budget: int
) -> None:
    history, crumb = generated
    result = trim_to_recent_turns(history, budget, crumb)
    called, answered = _native_pairs(result.history)
    assert called == answered
    assert remove_orphaned_tool_messages(result.history).removed == 0


@given(histories())
def test_budget_trim_changes_nothing_when_the_history_fits(
    generated: tuple[list[ChatMessage], bool],
) -> None:
    history, crumb = generated
    result = trim_to_recent_turns(history, estimate_history_tokens(history), crumb)
    assert not result.trimmed
    assert result.history == history
    assert result.dropped_messages == result.dropped_turns == 0


@given(histories(), budgets)
def test_budget_trim_is_idempotent(generated: tuple[list[ChatMessage], bool], budget: int) -> None:
    history, crumb = generated
    once = trim_to_recent_turns(history, budget, crumb)
    twice = trim_to_recent_turns(once.history, budget, crumb)
    assert not twice.trimmed
    assert twice.history == once.history


@given(histories(), caps)
def test_count_trim_keeps_prefix_newest_turns_and_pairs(
    generated: tuple[list[ChatMessage], bool], cap: int
) -> None:
    history, crumb = generated
    result = trim_to_recent_turn_count(history, cap, crumb)
    _kept_suffix_start(history, result.history, crumb)
    called, answered = _native_pairs(result.history)
    assert called == answered
    if result.trimmed:
        assert result.kept_turns == max(cap, 1)
        assert trim_to_recent_turn_count(result.history, cap, crumb).trimmed is False
    else:
        assert result.history == history


@given(histories(), caps)
def test_conversation_trim_then_one_breadcrumb_is_stable(
    generated: tuple[list[ChatMessage], bool], cap: int
) -> None:
    history, crumb = generated
    conversation: list[ConversationMessage] = [Chat(row) for row in history]
    result = trim_conversation_to_recent_turns(conversation, cap, crumb)
    if not result.trimmed:
        assert result.history == conversation
        return
    rows = [m.message for m in result.history if isinstance(m, Chat)]
    systems = [r for r in rows if r.role == "system"]
    assert rows[: len(systems)] == systems  # every system row moved to the front
    assert sum(1 for r in rows if is_turn_boundary(r)) == result.kept_turns
    with_crumb = insert_conversation_breadcrumb(result.history)
    again = trim_conversation_to_recent_turns(with_crumb, cap, has_leading_breadcrumb=True)
    assert not again.trimmed


@given(histories())
def test_drop_oldest_whole_turn_removes_exactly_the_first_turn(
    generated: tuple[list[ChatMessage], bool],
) -> None:
    history, crumb = generated
    segments = segment_turns(history, crumb)
    rows, dropped = drop_oldest_whole_turn(history, crumb)
    if len(segments.turns) < 2:
        assert (rows, dropped) == (history, 0)
        return
    second = segments.turns[1][0]
    assert dropped == second - segments.pre_turn_start
    assert rows == history[: segments.pre_turn_start] + history[second:]


@given(histories(), budgets, st.integers(1, 20000), st.integers(0, 300))
def test_reported_budget_trim_keeps_whole_turns_and_reports_provider_units(
    generated: tuple[list[ChatMessage], bool], budget: int, reported: int, schema: int
) -> None:
    history, crumb = generated
    estimated = estimate_history_tokens(history)
    result = trim_to_reported_budget(history, budget, reported, estimated, schema, crumb)
    assert result.tokens_before == reported
    _kept_suffix_start(history, result.history, crumb)
    if not result.trimmed:
        assert result.history == history
