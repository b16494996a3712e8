"""Spec 3.2 and the count column of the 3.7 table: ``trim_to_recent_turn_count``."""

from harness.runtime import ChatMessage, trim_to_recent_turn_count
from tests.runtime.builders import asst, call, carrier, crumb, sys, tool, user


def three_turns() -> list[ChatMessage]:
    return [sys(), user("1"), asst("a1"), user("2"), asst("a2"), user("3"), asst("a3")]


def test_at_or_under_the_cap_is_untouched() -> None:
    """Spec 3.2 step 2: ``total <= max_turns`` -> untouched with ``kept_turns = total``."""
    history = three_turns()
    for cap in (3, 4, 50):
        result = trim_to_recent_turn_count(history, cap)
        assert not result.trimmed
        assert result.history == history
        assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (0, 0, 3)


def test_keeps_the_newest_max_turns() -> None:
    """Spec 3.2 steps 3-5: B = [0, 2, 4] (body indices); kept 2, dropped 1, first_kept 2."""
    history = three_turns()
    result = trim_to_recent_turn_count(history, 2)
    assert result.trimmed
    assert result.history == [sys(), user("2"), asst("a2"), user("3"), asst("a3")]
    assert result.dropped_messages == 2
    assert result.dropped_turns == 1
    assert result.kept_turns == 2


def test_cap_zero_is_treated_as_one_once_trimming_is_needed() -> None:
    """Spec 3.2: ``max_turns = 0`` acts as 1; the newest turn is always kept."""
    result = trim_to_recent_turn_count(three_turns(), 0)
    assert result.history == [sys(), user("3"), asst("a3")]
    assert result.dropped_messages == 4
    assert result.dropped_turns == 2
    assert result.kept_turns == 1


def test_tool_rows_do_not_use_up_slots() -> None:
    """Spec 11: the unit is whole user turns; a turn with many tool rows is one turn."""
    history = [
        user("1"),
        *(r for i in range(30) for r in (call(f"c{i}"), tool(f"c{i}"))),
        asst("x"),
    ]
    result = trim_to_recent_turn_count(history, 1)
    assert not result.trimmed
    assert result.kept_turns == 1


def test_flag_subtracts_the_breadcrumb_from_the_total() -> None:
    """Spec 3.2 step 1: ``total = count_turns - 1`` with the flag: 3 - 1 = 2 <= 2."""
    history = [sys(), crumb(), user("1"), asst("a1"), user("2"), asst("a2")]
    result = trim_to_recent_turn_count(history, 2, has_leading_breadcrumb=True)
    assert not result.trimmed
    assert result.kept_turns == 2


def test_flagged_breadcrumb_is_kept_and_not_counted_in_dropped_messages() -> None:
    """Spec 3.2 steps 3-5: body = [crumb, 1, a1, 2, a2, 3, a3]; B = [1, 3, 5] (index 0
    excluded); kept 1, dropped 2, first_kept 5; dropped_messages = 5 - 1 = 4."""
    history = [sys(), crumb(), *three_turns()[1:]]
    result = trim_to_recent_turn_count(history, 1, has_leading_breadcrumb=True)
    assert result.history == [sys(), crumb(), user("3"), asst("a3")]
    assert result.dropped_messages == 4
    assert result.dropped_turns == 2
    assert result.kept_turns == 1


def test_unflagged_breadcrumb_text_counts_as_a_turn() -> None:
    """Spec 2.3 / 3.2: without the flag the crumb-text row is a real turn: total 3 > 2,
    B = [0, 1, 3]; kept 2, first_kept 1."""
    history = [sys(), crumb(), user("1"), asst("a1"), user("2"), asst("a2")]
    result = trim_to_recent_turn_count(history, 2, has_leading_breadcrumb=False)
    assert result.history == [sys(), user("1"), asst("a1"), user("2"), asst("a2")]
    assert result.dropped_messages == 1
    assert result.dropped_turns == 1
    assert result.kept_turns == 2


def test_turn_count_is_taken_over_the_whole_list() -> None:
    """Spec 3.2 step 1: ``count_turns`` runs over the whole list (late boundaries too)."""
    history = [sys(), user("1"), asst("a"), sys("late"), user("2"), asst("b")]
    assert trim_to_recent_turn_count(history, 2).kept_turns == 2


def test_late_system_rows_are_dropped_with_their_turn() -> None:
    """Spec 2.2 / 17.5: only the leading run is kept; late rows go with their turn."""
    history = [sys(), user("1"), sys("late"), asst("a1"), user("2"), asst("a2")]
    result = trim_to_recent_turn_count(history, 1)
    assert result.history == [sys(), user("2"), asst("a2")]
    assert result.dropped_messages == 3


# --- spec 3.7, count column ---------------------------------------------------------------


def test_empty_history_is_untouched_with_zero_kept() -> None:
    """Spec 3.7: empty history -> untouched, kept 0."""
    result = trim_to_recent_turn_count([], 0)
    assert not result.trimmed
    assert result.history == []
    assert result.kept_turns == 0


def test_only_system_rows_are_untouched() -> None:
    """Spec 3.7: only system rows -> untouched."""
    history = [sys("a"), sys("b")]
    result = trim_to_recent_turn_count(history, 0)
    assert not result.trimmed
    assert result.history == history


def test_history_without_user_rows_is_untouched_with_zero_kept() -> None:
    """Spec 3.7: no user row but assistant/tool rows -> untouched, kept 0."""
    history = [sys(), asst("a"), call("c1"), tool("c1")]
    result = trim_to_recent_turn_count(history, 0)
    assert not result.trimmed
    assert result.kept_turns == 0


def test_single_turn_is_untouched_even_with_cap_zero() -> None:
    """Spec 3.2 step 2 / 3.7: ``total <= 1`` -> untouched, even with cap 0."""
    history = [sys(), user("only"), asst("a")]
    result = trim_to_recent_turn_count(history, 0)
    assert not result.trimmed
    assert result.history == history
    assert result.kept_turns == 1


def test_cap_zero_is_treated_as_one() -> None:
    """Spec 3.7: cap 0 is treated as 1 (newest turn kept)."""
    history = [user("1"), asst("a1"), user("2"), asst("a2")]
    assert trim_to_recent_turn_count(history, 0).history == [user("2"), asst("a2")]


def test_user_text_starting_tool_results_is_not_a_boundary() -> None:
    """Spec 3.7: ``[Tool results]`` user text is not a boundary."""
    history = [user("1"), carrier("x"), user("[Tool results] typed"), asst("a")]
    result = trim_to_recent_turn_count(history, 0)
    assert not result.trimmed
    assert result.kept_turns == 1


def test_leading_space_tool_results_is_a_boundary() -> None:
    """Spec 3.7: ``"  [Tool results]…"`` is a boundary."""
    history = [user("1"), asst("a"), user("  [Tool results]\nx"), asst("b")]
    result = trim_to_recent_turn_count(history, 1)
    assert result.trimmed
    assert result.history == history[2:]


def test_rows_before_the_first_user_row_are_dropped_with_the_first_turn() -> None:
    """Spec 3.7: pre-turn rows go with the first turn; they count in ``dropped_messages``."""
    history = [sys(), asst("pre"), tool("c0"), user("1"), asst("a1"), user("2"), asst("a2")]
    result = trim_to_recent_turn_count(history, 1)
    assert result.history == [sys(), user("2"), asst("a2")]
    assert result.dropped_messages == 4
    assert result.dropped_turns == 1
