"""Spec 2.3: the breadcrumb row, its position, and provenance by owner flag (not text)."""

from harness.runtime import (
    BREADCRUMB,
    BREADCRUMB_MESSAGE,
    Chat,
    ChatMessage,
    drop_oldest_whole_turn,
    insert_breadcrumb_deduped,
    insert_conversation_breadcrumb,
    trim_conversation_to_recent_turns,
    trim_to_recent_turn_count,
    trim_to_recent_turns,
)
from tests.runtime.builders import asst, crumb, sys, user


def test_breadcrumb_text_is_the_canonical_english_string() -> None:
    """Spec 2.3 / 18: ``[earlier turns omitted to fit the context window]``."""
    assert BREADCRUMB == "[earlier turns omitted to fit the context window]"


def test_breadcrumb_role_is_user() -> None:
    """Spec 2.3: role **user**."""
    assert ChatMessage("user", BREADCRUMB) == BREADCRUMB_MESSAGE


def test_insert_breadcrumb_deduped_inserts_after_leading_system_rows() -> None:
    """Spec 2.3: position is directly after the leading system rows."""
    history = [sys("s1"), sys("s2"), user("turn1"), asst("a1")]
    assert insert_breadcrumb_deduped(history, crumb_present=False) == [
        sys("s1"),
        sys("s2"),
        crumb(),
        user("turn1"),
        asst("a1"),
    ]


def test_insert_breadcrumb_deduped_goes_before_late_system_rows() -> None:
    """Spec 2.2 / 2.3: only the leading run is the prefix; late system rows are body."""
    history = [user("turn1"), sys("late"), asst("a1")]
    assert insert_breadcrumb_deduped(history, crumb_present=False) == [
        crumb(),
        user("turn1"),
        sys("late"),
        asst("a1"),
    ]


def test_insert_breadcrumb_deduped_does_nothing_when_the_flag_is_set() -> None:
    """Spec 2.3: if ``crumb_present`` is true it does nothing (no stacking)."""
    history = [sys(), crumb(), user("turn1")]
    assert insert_breadcrumb_deduped(history, crumb_present=True) == history


def test_breadcrumb_provenance_is_the_flag_not_the_text() -> None:
    """Spec 2.3: a user row whose text equals the breadcrumb is a real turn unless the flag
    says otherwise, so with the flag false a fresh breadcrumb is still inserted."""
    colliding = [sys(), user(BREADCRUMB), asst("a1")]
    out = insert_breadcrumb_deduped(colliding, crumb_present=False)
    assert out == [sys(), crumb(), user(BREADCRUMB), asst("a1")]
    assert sum(1 for row in out if row == crumb()) == 2


def test_insert_conversation_breadcrumb_always_inserts() -> None:
    """Spec 2.3: ``insert_conversation_breadcrumb`` always inserts, after the system rows."""
    history = [Chat(sys()), Chat(crumb()), Chat(user("x"))]
    assert insert_conversation_breadcrumb(history) == [
        Chat(sys()),
        Chat(crumb()),
        Chat(crumb()),
        Chat(user("x")),
    ]


def test_insert_conversation_breadcrumb_goes_after_leading_system_rows_only() -> None:
    """Spec 2.3: position is directly after the leading system rows."""
    history = [Chat(sys("a")), Chat(sys("b")), Chat(user("x")), Chat(sys("late"))]
    assert insert_conversation_breadcrumb(history) == [
        Chat(sys("a")),
        Chat(sys("b")),
        Chat(crumb()),
        Chat(user("x")),
        Chat(sys("late")),
    ]


def test_text_equal_to_the_breadcrumb_is_a_real_turn_unless_flagged() -> None:
    """Spec 2.3: unflagged, the crumb-text row is the oldest real turn and is dropped."""
    history = [
        sys("s" * 12),  # 7
        user(BREADCRUMB),  # 49 B -> 13 + 4 = 17
        asst("a" * 28),  # 11
        user("u" * 36),  # 13
        asst("b" * 28),  # 11
    ]
    # total = 7 + 17 + 11 + 13 + 11 = 59; probe without the crumb-text turn = 7 + 24 = 31
    result = trim_to_recent_turns(history, 31, crumb_present=False)
    assert result.trimmed
    assert result.history == [history[0], history[3], history[4]]
    assert result.dropped_messages == 2
    assert result.dropped_turns == 1
    assert result.kept_turns == 1


def test_flagged_breadcrumb_is_excluded_from_counts_kept_and_not_dropped() -> None:
    """Spec 2.3: in the budget trimmer a flagged breadcrumb is excluded from turn counts,
    never dropped, and not counted in ``dropped_messages``."""
    history = [
        sys("s" * 12),  # 7
        crumb(),  # 17
        user("u" * 36),  # 13
        asst("a" * 28),  # 11
        user("v" * 36),  # 13
        asst("b" * 28),  # 11
    ]
    # total = 7 + 17 + 24 + 24 = 72; probe prefix(sys, crumb) + turn 2 = 7 + 17 + 24 = 48
    result = trim_to_recent_turns(history, 50, crumb_present=True)
    assert result.trimmed
    assert result.history == [history[0], history[1], history[4], history[5]]
    assert result.dropped_messages == 2  # body rows only, never the crumb
    assert result.dropped_turns == 1
    assert result.kept_turns == 1  # the crumb is not a turn
    assert result.tokens_after == 48


def test_count_trimmer_keeps_the_flagged_breadcrumb() -> None:
    """Spec 2.3 / 19.4: the ChatMessage count trimmer keeps a flagged breadcrumb."""
    history = [sys(), crumb(), user("1"), asst("a"), user("2"), asst("b")]
    result = trim_to_recent_turn_count(history, 1, has_leading_breadcrumb=True)
    assert result.history == [sys(), crumb(), user("2"), asst("b")]


def test_conversation_trimmer_omits_the_flagged_breadcrumb() -> None:
    """Spec 2.3 / 19.4: the ConversationMessage trimmer drops it; the Agent re-inserts one."""
    history = [Chat(r) for r in (sys(), crumb(), user("1"), asst("a"), user("2"), asst("b"))]
    result = trim_conversation_to_recent_turns(history, 1, has_leading_breadcrumb=True)
    assert result.history == [Chat(sys()), Chat(user("2")), Chat(asst("b"))]
    reinserted = insert_conversation_breadcrumb(result.history)
    assert sum(1 for row in reinserted if row == Chat(crumb())) == 1


def test_trimmers_never_insert_a_breadcrumb() -> None:
    """Spec 3.1 notes: the breadcrumb is not inserted by the trimmer; callers do it."""
    history = [user("u" * 400), asst("a"), user("v"), asst("b")]
    result = trim_to_recent_turns(history, 10)
    assert result.trimmed
    assert crumb() not in result.history
    count = trim_to_recent_turn_count(history, 1)
    assert count.trimmed
    assert crumb() not in count.history


def test_drop_oldest_whole_turn_uses_the_owner_flag_not_text_inference() -> None:
    """Spec 2.3 / 3.4 (IDX-HT test of the same name): the crumb-text row drops as a turn."""
    history = [sys(), user(BREADCRUMB), asst("answer"), user("newest"), asst("newest answer")]
    out, dropped = drop_oldest_whole_turn(history, crumb_present=False)
    assert dropped == 2
    assert out == [sys(), user("newest"), asst("newest answer")]
