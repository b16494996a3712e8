"""Spec 3.3 and the conversation column of the 3.7 table:
``trim_conversation_to_recent_turns`` over structured history."""

from harness.runtime import (
    AssistantToolCalls,
    Chat,
    ConversationMessage,
    ToolCall,
    ToolResultMessage,
    ToolResults,
    insert_conversation_breadcrumb,
    trim_conversation_to_recent_turns,
)
from tests.runtime.builders import asst, crumb, sys, user


def c(role: str, content: str) -> Chat:
    return Chat(
        sys(content) if role == "system" else user(content) if role == "user" else asst(content)
    )


def tool_exchange(index: int) -> list[ConversationMessage]:
    call_id = f"call-{index}"
    return [
        AssistantToolCalls(f"calling tool {index}", (ToolCall(call_id, "shell", "{}"),)),
        ToolResults((ToolResultMessage(call_id, f"result {index}", "shell"),)),
    ]


def three_turns() -> list[ConversationMessage]:
    return [
        c("system", "s"),
        c("user", "1"),
        c("assistant", "a1"),
        c("user", "2"),
        c("assistant", "a2"),
        c("user", "3"),
        c("assistant", "a3"),
    ]


def test_at_or_under_the_cap_is_untouched() -> None:
    """Spec 3.3 step 3: ``total <= max_turns`` -> untouched."""
    history = three_turns()
    result = trim_conversation_to_recent_turns(history, 3)
    assert not result.trimmed
    assert result.history == history
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (0, 0, 3)


def test_keeps_the_newest_turns_and_drops_the_oldest() -> None:
    """Spec 3.3 steps 4-5: body = [1, a1, 2, a2, 3, a3]; B = [0, 2, 4]; kept 2,
    dropped 1, first_kept 2; output system + body[2:]."""
    result = trim_conversation_to_recent_turns(three_turns(), 2)
    assert result.trimmed
    assert result.history == [
        c("system", "s"),
        c("user", "2"),
        c("assistant", "a2"),
        c("user", "3"),
        c("assistant", "a3"),
    ]
    assert result.dropped_messages == 2
    assert result.dropped_turns == 1
    assert result.kept_turns == 2


def test_cap_zero_is_treated_as_one() -> None:
    """Spec 3.3 step 4 / 3.7: ``max(max_turns, 1)``: the newest turn is kept."""
    result = trim_conversation_to_recent_turns(three_turns(), 0)
    assert result.history == [c("system", "s"), c("user", "3"), c("assistant", "a3")]
    assert result.dropped_messages == 4
    assert result.kept_turns == 1


def test_tool_exchanges_stay_with_their_turn() -> None:
    """Spec 2.1: ``AssistantToolCalls`` and ``ToolResults`` belong to the enclosing turn and
    use no turn slots (IDX-HT tool-heavy-turn tests)."""
    history: list[ConversationMessage] = [c("user", "old"), c("assistant", "old answer")]
    history.append(c("user", "new"))
    for index in range(25):
        history.extend(tool_exchange(index))
    history.append(c("assistant", "new answer"))
    result = trim_conversation_to_recent_turns(history, 1)
    assert result.history == history[2:]
    assert result.dropped_messages == 2
    assert result.kept_turns == 1


def test_all_system_rows_move_to_the_front_when_it_trims() -> None:
    """Spec 3.3 step 4 / 17.5: leading and late system rows form ``system`` in their
    relative order; everything else is ``body``."""
    history = [
        c("system", "primary"),
        c("user", "old"),
        c("assistant", "old answer"),
        c("system", "late"),
        c("user", "new"),
        c("assistant", "new answer"),
    ]
    result = trim_conversation_to_recent_turns(history, 1)
    assert result.history == [
        c("system", "primary"),
        c("system", "late"),
        c("user", "new"),
        c("assistant", "new answer"),
    ]
    # body = [old, old answer, new, new answer]; first_kept = 2
    assert result.dropped_messages == 2


def test_late_system_rows_keep_their_positions_when_untouched() -> None:
    """Spec 3.3 step 3: untouched includes the original positions of late system rows."""
    history = [c("user", "request"), c("assistant", "answer"), c("system", "late")]
    result = trim_conversation_to_recent_turns(history, 1)
    assert not result.trimmed
    assert result.history == history


def test_flagged_breadcrumb_is_excluded_from_counts_and_omitted_from_the_output() -> None:
    """Spec 3.3: crumb_index 1, synthetic 1; total 3 > 2; body = [crumb, 1, a1, 2, a2, 3,
    a3]; B = [1, 3, 5]; kept 2, dropped 1, first_kept 3; dropped_messages = 3 - 1 = 2."""
    history = [c("system", "s"), Chat(crumb()), *three_turns()[1:]]
    result = trim_conversation_to_recent_turns(history, 2, has_leading_breadcrumb=True)
    assert result.history == [
        c("system", "s"),
        c("user", "2"),
        c("assistant", "a2"),
        c("user", "3"),
        c("assistant", "a3"),
    ]
    assert result.dropped_messages == 2
    assert result.dropped_turns == 1
    assert result.kept_turns == 2


def test_flagged_breadcrumb_does_not_push_an_at_cap_history_over_the_limit() -> None:
    """Spec 3.3 step 2: ``total`` excludes ``crumb_index`` (2 real turns <= 2)."""
    history = [c("system", "s"), Chat(crumb()), c("user", "1"), c("assistant", "a1")]
    history += [c("user", "2"), c("assistant", "a2")]
    result = trim_conversation_to_recent_turns(history, 2, has_leading_breadcrumb=True)
    assert not result.trimmed
    assert result.history == history
    assert result.kept_turns == 2


def test_unflagged_breadcrumb_text_counts_as_a_turn() -> None:
    """Spec 2.3: without the flag, a first user row equal to the breadcrumb is a real turn."""
    history = [c("system", "s"), Chat(crumb()), c("assistant", "old answer")]
    history += [c("user", "new"), c("assistant", "new answer")]
    result = trim_conversation_to_recent_turns(history, 1, has_leading_breadcrumb=False)
    assert result.history == [c("system", "s"), c("user", "new"), c("assistant", "new answer")]
    assert result.dropped_messages == 2


def test_later_user_row_matching_the_breadcrumb_is_a_real_turn() -> None:
    """Spec 2.3 (IDX-HT ``..._counts_later_user_matching_breadcrumb``)."""
    history = [c("system", "s"), c("user", "old"), c("assistant", "old answer")]
    history += [Chat(crumb()), c("assistant", "new answer")]
    result = trim_conversation_to_recent_turns(history, 1, has_leading_breadcrumb=False)
    assert result.history == [c("system", "s"), Chat(crumb()), c("assistant", "new answer")]
    assert result.kept_turns == 1


def test_agent_reinserts_exactly_one_breadcrumb_after_a_trim() -> None:
    """Spec 3.3 step 6: the caller inserts one breadcrumb after the trim."""
    history = [c("system", "s"), Chat(crumb()), *three_turns()[1:]]
    result = trim_conversation_to_recent_turns(history, 1, has_leading_breadcrumb=True)
    reinserted = insert_conversation_breadcrumb(result.history)
    assert reinserted == [c("system", "s"), Chat(crumb()), c("user", "3"), c("assistant", "a3")]


def test_flag_without_a_non_system_row_has_no_crumb_index() -> None:
    """Spec 3.3 step 1: ``crumb_index`` exists only if a non-system row exists."""
    result = trim_conversation_to_recent_turns([c("system", "s")], 0, has_leading_breadcrumb=True)
    assert not result.trimmed
    assert result.kept_turns == 0


# --- spec 3.7, conversation column ----------------------------------------------------------


def test_empty_history_is_untouched() -> None:
    """Spec 3.7: empty history -> untouched."""
    result = trim_conversation_to_recent_turns([], 0)
    assert not result.trimmed
    assert result.history == []
    assert result.kept_turns == 0


def test_only_system_rows_are_untouched() -> None:
    """Spec 3.7: only system rows -> untouched."""
    history: list[ConversationMessage] = [c("system", "a"), c("system", "b")]
    assert trim_conversation_to_recent_turns(history, 0).history == history


def test_history_without_user_rows_is_untouched_with_zero_kept() -> None:
    """Spec 3.7: no user row but assistant/tool rows -> untouched, kept 0."""
    history = [c("system", "s"), *tool_exchange(0), c("assistant", "done")]
    result = trim_conversation_to_recent_turns(history, 1)
    assert not result.trimmed
    assert result.kept_turns == 0
    assert result.history == history


def test_single_turn_is_untouched_even_with_cap_zero() -> None:
    """Spec 3.7: a single turn is untouched even with cap 0."""
    history = [c("user", "run"), *tool_exchange(0), *tool_exchange(1), c("assistant", "done")]
    result = trim_conversation_to_recent_turns(history, 0)
    assert not result.trimmed
    assert result.kept_turns == 1


def test_user_text_starting_tool_results_is_not_a_boundary() -> None:
    """Spec 3.7 / 2.1: a ``Chat`` user row starting ``[Tool results]`` is not a boundary."""
    history = [c("user", "1"), c("user", "[Tool results]\nx"), c("assistant", "a")]
    result = trim_conversation_to_recent_turns(history, 0)
    assert not result.trimmed
    assert result.kept_turns == 1


def test_leading_space_tool_results_is_a_boundary() -> None:
    """Spec 3.7: ``"  [Tool results]…"`` is a boundary."""
    history = [c("user", "1"), c("assistant", "a"), c("user", "  [Tool results]\nx")]
    result = trim_conversation_to_recent_turns(history, 1)
    assert result.trimmed
    assert result.history == [c("user", "  [Tool results]\nx")]


def test_rows_before_the_first_user_row_are_dropped_with_the_first_turn() -> None:
    """Spec 3.7: body = [pre-call, pre-result, 1, a1, 2, a2]; B = [2, 4]; first_kept 4."""
    history = [c("system", "s"), *tool_exchange(0), c("user", "1"), c("assistant", "a1")]
    history += [c("user", "2"), c("assistant", "a2")]
    result = trim_conversation_to_recent_turns(history, 1)
    assert result.history == [c("system", "s"), c("user", "2"), c("assistant", "a2")]
    assert result.dropped_messages == 4
    assert result.dropped_turns == 1
