"""Spec 3.1 and the budget column of the 3.7 edge-case table: ``trim_to_recent_turns``.

Shared fixture (plain formula ``ceil(bytes/4) + 4``, spec 5.1):

    sys("s"*12)  12/4 + 4 = 7
    user("u"*36) 36/4 + 4 = 13     assistant rows "a"*28: 28/4 + 4 = 11
    three turns of 13 + 11 = 24 each: total 7 + 3*24 = 79
    probes: without turn 1 -> 7 + 48 = 55; without turns 1-2 -> 7 + 24 = 31
"""

from harness.runtime import ChatMessage, trim_to_recent_turns
from tests.runtime.builders import asst, call, carrier, crumb, sys, tool, user


def three_turns() -> list[ChatMessage]:
    return [
        sys("s" * 12),
        user("u" * 36),
        asst("a" * 28),
        user("v" * 36),
        asst("b" * 28),
        user("w" * 36),
        asst("c" * 28),
    ]


def test_under_budget_is_untouched() -> None:
    """Spec 3.1 step 4: ``tokens_before <= budget`` leaves the history untouched."""
    history = three_turns()
    result = trim_to_recent_turns(history, 1_000)
    assert not result.trimmed
    assert result.history == history
    assert (result.dropped_messages, result.dropped_turns, result.kept_turns) == (0, 0, 3)
    assert result.tokens_before == result.tokens_after == 79


def test_budget_equal_to_the_estimate_is_untouched() -> None:
    """Spec 3.1 step 4: the comparison is ``<=`` (79 <= 79)."""
    result = trim_to_recent_turns(three_turns(), 79)
    assert not result.trimmed
    assert result.tokens_after == 79


def test_budget_zero_disables_trim() -> None:
    """Spec 3.1 step 4 / 3.7: budget 0 disables the budget trim entirely."""
    history = three_turns()
    result = trim_to_recent_turns(history, 0)
    assert not result.trimmed
    assert result.history == history
    assert result.kept_turns == 3
    assert result.tokens_before == result.tokens_after == 79


def test_drops_the_fewest_oldest_whole_turns() -> None:
    """Spec 3.1 step 6: stop at the first probe that fits (78 -> drop one turn: 55)."""
    history = three_turns()
    result = trim_to_recent_turns(history, 78)
    assert result.trimmed
    assert result.history == [history[0], *history[3:]]
    assert result.dropped_messages == 2
    assert result.dropped_turns == 1
    assert result.kept_turns == 2
    assert result.tokens_before == 79
    assert result.tokens_after == 55


def test_probe_equal_to_budget_fits() -> None:
    """Spec 3.1 step 6: ``estimate(probe) <= budget`` stops (55 <= 55)."""
    result = trim_to_recent_turns(three_turns(), 55)
    assert result.dropped_turns == 1
    assert result.tokens_after == 55


def test_keeps_dropping_oldest_turns_until_a_probe_fits() -> None:
    """Spec 3.1 step 6: budget 54 < 55 so the second probe (31) is taken."""
    history = three_turns()
    result = trim_to_recent_turns(history, 54)
    assert result.history == [history[0], *history[5:]]
    assert result.dropped_messages == 4
    assert result.dropped_turns == 2
    assert result.kept_turns == 1
    assert result.tokens_after == 31


def test_newest_turn_kept_even_when_over_budget() -> None:
    """Spec 3.1 step 6: when no probe fits, only the newest turn is kept, over budget."""
    history = three_turns()
    result = trim_to_recent_turns(history, 1)
    assert result.trimmed
    assert result.history == [history[0], *history[5:]]
    assert result.kept_turns == 1
    assert result.tokens_after == 31  # > budget 1: the budget is a target


def test_leading_system_rows_are_always_kept() -> None:
    """Spec 2.2 / 3.1 step 2: the whole leading system prefix is kept untouched."""
    history = [sys("s" * 12), sys("t" * 12), *three_turns()[1:]]
    result = trim_to_recent_turns(history, 1)
    assert result.history[:2] == [sys("s" * 12), sys("t" * 12)]
    assert result.history[2:] == history[6:]


def test_late_system_rows_are_dropped_with_their_turn() -> None:
    """Spec 2.2: late system rows are ordinary body rows in the ChatMessage trimmers."""
    history = three_turns()
    history.insert(2, sys("late"))  # inside turn 1
    result = trim_to_recent_turns(history, 1)
    assert sys("late") not in result.history
    assert result.dropped_messages == 5  # u, late, a, v, b


def test_tokens_before_includes_system_rows_and_breadcrumb() -> None:
    """Spec 3.1 step 1: ``tokens_before`` is the estimate of the full input."""
    history = [sys("s" * 12), crumb(), *three_turns()[1:]]
    # 79 + breadcrumb 49 B -> 13 + 4 = 17 -> 96
    result = trim_to_recent_turns(history, 1_000, crumb_present=True)
    assert result.tokens_before == 96


def test_tokens_after_is_the_estimate_of_the_output() -> None:
    """Spec 3.1 step 7: ``tokens_after`` is the estimate of the returned history."""
    history = [sys("s" * 12), crumb(), *three_turns()[1:]]
    # prefix 7 + 17 = 24; newest turn 24 -> 48 with the flagged crumb kept
    result = trim_to_recent_turns(history, 1, crumb_present=True)
    assert result.tokens_after == 48


def test_flagged_breadcrumb_is_not_a_turn_and_not_a_dropped_message() -> None:
    """Spec 3.1 step 2 / 2.3: ``prefix = history[0 : L+1]`` when the flag is set."""
    history = [sys("s" * 12), crumb(), *three_turns()[1:]]
    result = trim_to_recent_turns(history, 1, crumb_present=True)
    assert result.history == [history[0], history[1], *history[6:]]
    assert result.dropped_messages == 4
    assert result.dropped_turns == 2
    assert result.kept_turns == 1


def test_untouched_kept_turns_exclude_the_flagged_breadcrumb() -> None:
    """Spec 3.1 step 3: ``total_turns`` counts boundaries in the body only."""
    history = [sys(), crumb(), user("1"), user("2")]
    assert trim_to_recent_turns(history, 1_000, crumb_present=True).kept_turns == 2
    assert trim_to_recent_turns(history, 1_000, crumb_present=False).kept_turns == 3


def test_crumb_flag_without_rows_after_the_system_prefix_has_no_offset() -> None:
    """Spec 3.1 step 2: ``crumb_offset = 1`` only if ``len > L``."""
    result = trim_to_recent_turns([sys("s" * 400)], 1, crumb_present=True)
    assert not result.trimmed
    assert result.kept_turns == 0


def test_kept_turns_count_late_boundaries_in_the_body() -> None:
    """Spec 17.13: ``kept_turns`` counts body boundaries, late ones included."""
    history = [*three_turns(), sys("late"), user("x" * 36), asst("y" * 28)]
    # 79 + late sys 4 B -> 1 + 4 = 5 + 24 = 108; keep newest: 7 + 24 = 31
    result = trim_to_recent_turns(history, 31)
    assert result.kept_turns == 1
    assert result.dropped_turns == 3
    assert result.dropped_messages == 7  # 6 turn rows + the late system row


def test_tool_rows_stay_with_their_turn() -> None:
    """Spec 2.1: tool calls, results and carriers belong to the enclosing turn."""
    history = [
        sys(),
        user("old " + "o" * 400),
        call("c1"),
        tool("c1", "r1"),
        carrier("prompt-mode"),
        asst("done"),
        user("new"),
        call("c2"),
        tool("c2", "r2"),
        asst("done2"),
    ]
    result = trim_to_recent_turns(history, 100)
    assert result.history == [history[0], *history[6:]]
    assert result.dropped_messages == 5


def test_stale_tool_images_do_not_force_a_trim() -> None:
    """Spec 5.3 (IDX-HT test of the same name): markers in an older carrier are priced as
    bytes, so they do not push an otherwise fitting history over budget."""
    markers = "\n".join(f"[IMAGE:/tmp/slide-{i}.png]" for i in range(10))
    stale = tool("c1", markers)
    history = [sys("s" * 12), user("u" * 36), call("c1"), stale, user("v" * 36), asst("a" * 28)]
    # content of the stale tool row = '{"tool_call_id":"c1","content":"' (32 B) +
    # markers with "\n" escaped as "\\n" + '","attachments":[]}' (20 B)
    # markers: 10 markers of "[IMAGE:/tmp/slide-N.png]" = 24 B each = 240 B, 9 escaped
    # newlines of 2 B = 18 B -> 258 B; row = 32 + 258 + 20 = 310 B -> 78 + 4 = 82
    # call("c1") = 75 B -> 19 + 4 = 23
    # total = 7 + 13 + 23 + 82 + 13 + 11 = 149 (charged per image it would be > 16,000)
    result = trim_to_recent_turns(history, 149)
    assert not result.trimmed
    assert result.tokens_before == 149


# --- spec 3.7, budget column -------------------------------------------------------------


def test_empty_history_is_untouched_with_zero_tokens() -> None:
    """Spec 3.7: empty history -> untouched, kept 0, tokens 0."""
    result = trim_to_recent_turns([], 10)
    assert not result.trimmed
    assert result.history == []
    assert (result.kept_turns, result.tokens_before, result.tokens_after) == (0, 0, 0)


def test_only_system_rows_are_untouched() -> None:
    """Spec 3.7: only system rows -> untouched (no boundary), even over budget."""
    history = [sys("s" * 400), sys("t" * 400)]
    result = trim_to_recent_turns(history, 1)
    assert not result.trimmed
    assert result.history == history


def test_history_without_user_rows_is_untouched_with_zero_kept_turns() -> None:
    """Spec 3.7: no user row but assistant/tool rows -> untouched, kept 0."""
    history = [sys(), asst("a" * 400), call("c1"), tool("c1", "r" * 400)]
    result = trim_to_recent_turns(history, 1)
    assert not result.trimmed
    assert result.kept_turns == 0
    assert result.history == history


def test_single_turn_is_untouched_even_over_budget() -> None:
    """Spec 3.1 step 5 / 3.7: a single turn (any size) is untouched even if over budget."""
    history = [sys(), user("u" * 4_000), asst("a" * 4_000)]
    result = trim_to_recent_turns(history, 1)
    assert not result.trimmed
    assert result.history == history
    assert result.kept_turns == 1
    assert result.tokens_after == result.tokens_before


def test_overrun_caused_only_by_pre_turn_rows_is_untouched() -> None:
    """Spec 3.1 step 5: one boundary means nothing can be dropped, whatever the overrun."""
    history = [sys(), asst("pre-turn " + "p" * 4_000), user("only turn")]
    assert not trim_to_recent_turns(history, 1).trimmed


def test_user_text_starting_tool_results_is_not_a_boundary() -> None:
    """Spec 3.7: ``[Tool results]`` user text is not a boundary: two such rows after one
    user row still make a single, untouchable turn."""
    history = [user("u" * 400), user("[Tool results]\n" + "x" * 400), user("[Tool results]")]
    result = trim_to_recent_turns(history, 1)
    assert not result.trimmed
    assert result.kept_turns == 1


def test_leading_space_tool_results_is_a_boundary() -> None:
    """Spec 3.7: ``"  [Tool results]…"`` **is** a boundary (raw prefix test)."""
    history = [user("u" * 400), asst("a"), user("  [Tool results]\nx"), asst("b")]
    result = trim_to_recent_turns(history, 1)
    assert result.trimmed
    assert result.history == history[2:]
    assert result.kept_turns == 1


def test_rows_before_the_first_user_row_are_dropped_with_the_first_turn() -> None:
    """Spec 3.7 / 3.1 step 7: ``dropped_messages = start`` includes pre-turn rows."""
    history = [sys(), asst("pre"), tool("c0"), user("u" * 400), asst("a"), user("new")]
    result = trim_to_recent_turns(history, 1)
    assert result.history == [history[0], history[5]]
    assert result.dropped_messages == 4  # 2 pre-turn rows + the 2 rows of turn 1
    assert result.dropped_turns == 1
