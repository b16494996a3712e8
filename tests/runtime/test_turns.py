"""Spec 2.1, 2.2, 4 and 17.14: what opens a turn, the system prefix, turn segmentation."""

from harness.runtime import (
    BREADCRUMB,
    AssistantToolCalls,
    Chat,
    ChatMessage,
    ToolCall,
    ToolResultMessage,
    ToolResults,
    count_turns,
    is_conversation_turn_boundary,
    is_turn_boundary,
    segment_turns,
    trim_to_recent_turns,
)
from tests.runtime.builders import asst, call, carrier, crumb, raw, sys, tool, user


def test_user_row_opens_a_turn() -> None:
    """Spec 2.1: a row opens a turn iff role == "user" and no ``[Tool results]`` prefix."""
    assert is_turn_boundary(user("hello"))


def test_assistant_tool_and_system_rows_never_open_turns() -> None:
    """Spec 2.1: assistant, tool and system rows never open turns."""
    assert not is_turn_boundary(asst("hello"))
    assert not is_turn_boundary(call("c1"))
    assert not is_turn_boundary(tool("c1"))
    assert not is_turn_boundary(sys("hello"))


def test_user_text_starting_tool_results_is_not_a_boundary() -> None:
    """Spec 2.1: a user row whose text begins with ``[Tool results]`` belongs to the
    preceding turn, even when a human typed it."""
    assert not is_turn_boundary(user("[Tool results] I typed this myself"))
    assert not is_turn_boundary(carrier("output"))


def test_tool_results_prefix_check_is_case_sensitive() -> None:
    """Spec 2.1: the check is case-sensitive."""
    assert is_turn_boundary(user("[tool results]\nnot the prefix"))
    assert is_turn_boundary(user("[TOOL RESULTS]\nnot the prefix"))


def test_leading_space_tool_results_is_a_boundary() -> None:
    """Spec 2.1 / 17.3 / 19.3: the raw string is tested, whitespace is not trimmed."""
    assert is_turn_boundary(user("  [Tool results]\nout"))
    assert is_turn_boundary(user("\n[Tool results]\nout"))


def test_prefix_must_be_at_the_start_of_the_text() -> None:
    """Spec 2.1: "does not start with" — the prefix elsewhere in the text is irrelevant."""
    assert is_turn_boundary(user("see [Tool results] below"))


def test_conversation_chat_user_row_opens_a_turn() -> None:
    """Spec 2.1: a ``Chat`` user row without the prefix opens a turn."""
    assert is_conversation_turn_boundary(Chat(user("hi")), is_breadcrumb=False)


def test_conversation_tool_variants_never_open_turns() -> None:
    """Spec 2.1: ``AssistantToolCalls`` and ``ToolResults`` never open turns."""
    calls = AssistantToolCalls("calling", (ToolCall("c1", "shell", "{}"),))
    results = ToolResults((ToolResultMessage("c1", "ok", "shell"),))
    assert not is_conversation_turn_boundary(calls, is_breadcrumb=False)
    assert not is_conversation_turn_boundary(results, is_breadcrumb=False)
    assert not is_conversation_turn_boundary(Chat(asst("x")), is_breadcrumb=False)
    assert not is_conversation_turn_boundary(Chat(sys("x")), is_breadcrumb=False)


def test_conversation_tool_results_prefix_is_not_a_boundary() -> None:
    """Spec 2.1: a ``Chat`` user row with the ``[Tool results]`` prefix is not a boundary."""
    assert not is_conversation_turn_boundary(Chat(user("[Tool results]\nx")), is_breadcrumb=False)


def test_conversation_flagged_breadcrumb_index_is_not_a_boundary() -> None:
    """Spec 2.1: a ``Chat`` user row at the flagged breadcrumb index opens no turn."""
    assert not is_conversation_turn_boundary(Chat(crumb()), is_breadcrumb=True)
    assert is_conversation_turn_boundary(Chat(crumb()), is_breadcrumb=False)


def test_turn_count_is_the_number_of_boundary_rows() -> None:
    """Spec 2.1: the turn count is the number of boundary rows, over the whole list."""
    history = [
        sys(),
        asst("pre-turn"),
        user("1"),
        call("c1"),
        tool("c1"),
        carrier("prompt-mode"),
        asst("a"),
        user("2"),
        sys("late"),
        user("3"),
    ]
    # boundaries: user("1"), user("2"), user("3") -> 3 (the carrier is not one)
    assert count_turns(history) == 3


def test_breadcrumb_row_is_counted_by_count_turns_callers_subtract_it() -> None:
    """Spec 2.1 / 3.2: the count is over the whole list; the flag subtracts one later."""
    assert count_turns([sys(), crumb(), user("a"), user("b")]) == 3


def test_turn_runs_until_the_next_boundary_row() -> None:
    """Spec 2.1 / 4: a turn runs from its boundary row up to (not including) the next."""
    history = [user("1"), call("c1"), tool("c1"), carrier("x"), asst("a"), user("2"), asst("b")]
    segments = segment_turns(history)
    # turn 1 = rows 0..5 (tool rows, the carrier and the reply belong to it); turn 2 = 5..7
    assert segments.turns == ((0, 5), (5, 7))


def test_rows_before_the_first_boundary_do_not_form_a_turn() -> None:
    """Spec 2.1 / 4: rows after the system prefix but before the first boundary are pre-turn
    rows, not a turn."""
    history = [sys(), asst("pre"), tool("c0"), user("1"), asst("a")]
    segments = segment_turns(history)
    assert segments.system_end == 1
    assert segments.breadcrumb_index is None
    assert segments.pre_turn_start == 1
    assert segments.first_turn == 3  # pre-turn rows are [1, 3)
    assert segments.turns == ((3, 5),)


def test_segment_turns_reports_the_flagged_breadcrumb_index() -> None:
    """Spec 4: leading-system slice [0, L), breadcrumb index L, pre-turn rows [L+c, B0)."""
    history = [sys("a"), sys("b"), crumb(), asst("pre"), user("1"), asst("x"), user("2")]
    segments = segment_turns(history, crumb_present=True)
    assert segments.system_end == 2
    assert segments.breadcrumb_index == 2
    assert segments.pre_turn_start == 3
    assert segments.turns == ((4, 6), (6, 7))


def test_leading_system_messages_are_the_maximal_run_at_index_zero() -> None:
    """Spec 2.2: only the ``take_while`` run of system rows at index 0 is the prefix."""
    history = [sys("a"), sys("b"), user("1"), sys("late"), user("2")]
    assert segment_turns(history).system_end == 2
    assert segment_turns([user("1"), sys("late")]).system_end == 0


def test_user_text_matching_tool_results_prefix_is_dropped_with_its_turn() -> None:
    """Spec 2.1 (IDX-HT test of the same name): such a row belongs to the preceding turn
    and goes when that turn is dropped."""
    history = [
        sys("s" * 12),  # 12/4 + 4 = 7
        user("u" * 36),  # 36/4 + 4 = 13   turn 1 starts
        asst("a" * 28),  # 28/4 + 4 = 11
        user("[Tool results] typed by a human"),  # still turn 1 (31 B -> 8 + 4 = 12)
        user("v" * 36),  # 13              turn 2 starts
        asst("b" * 28),  # 11
    ]
    # total = 7 + 13 + 11 + 12 + 13 + 11 = 67; probe without turn 1 = 7 + 13 + 11 = 31
    result = trim_to_recent_turns(history, 40)
    assert result.trimmed
    assert result.history == [history[0], history[4], history[5]]
    assert result.dropped_messages == 3
    assert result.dropped_turns == 1
    assert result.kept_turns == 1
    assert result.tokens_before == 67
    assert result.tokens_after == 31


def test_runtime_inserted_user_rows_open_turns() -> None:
    """Spec 17.14: the parse-error feedback row, the max-iteration summary prompt and the
    Agent's dated user message are all turn boundaries for trimming."""
    assert is_turn_boundary(user("[Tool call parse error]\nexpected JSON"))
    assert is_turn_boundary(
        user("You have reached the maximum number of tool iterations. Summarize.")
    )
    assert is_turn_boundary(user("[CURRENT DATE & TIME: 2026-08-01 10:00]\n\nhello"))


def test_breadcrumb_text_is_a_boundary_row_by_text() -> None:
    """Spec 2.3: only the owner flag makes the breadcrumb synthetic; by text it is a user
    row like any other."""
    assert is_turn_boundary(ChatMessage("user", BREADCRUMB))


def test_non_user_roles_with_the_breadcrumb_text_are_not_boundaries() -> None:
    """Spec 2.1: the role decides first."""
    assert not is_turn_boundary(raw("assistant", BREADCRUMB))
    assert not is_turn_boundary(raw("tool", "hello"))
