"""Spec 3.6 and 14: the legacy ``history::trim_history`` (count trim, then hygiene; logs
only, no breadcrumb, no event, flag untouched)."""

import inspect

from harness.runtime import trim_history
from harness.runtime.legacy import LEGACY_TRIM_LOG_MESSAGE
from tests.runtime.builders import asst, call, crumb, sys, tool, user


def test_count_trim_uses_whole_turn_units() -> None:
    """Spec 3.6 step 1: ``trim_to_recent_turn_count(history, max_history_turns, flag)``."""
    history = [sys(), user("1"), call("c1"), tool("c1"), asst("a1"), user("2"), asst("a2")]
    result = trim_history(history, 1)
    assert result.trimmed
    assert result.history == [sys(), user("2"), asst("a2")]
    assert result.dropped_messages == 4
    assert result.dropped_turns == 1
    assert result.kept_turns == 1


def test_untrimmed_history_gets_no_sweep_and_no_normalisation() -> None:
    """Spec 3.6 step 2: hygiene runs *only if* the count trim trimmed."""
    history = [sys("A"), tool("orphan"), user("1"), asst("a1"), sys("late")]
    result = trim_history(history, 5)
    assert not result.trimmed
    assert result.history == history  # orphan and late system row both left in place


def test_a_trim_is_followed_by_the_orphan_sweep_then_normalisation() -> None:
    """Spec 3.6 step 2: after a trim, the orphan sweep (15) then
    ``normalize_system_messages`` (2.2) run on the result."""
    history = [
        sys("A"),
        user("1"),
        asst("a1"),
        user("2"),
        sys("B"),
        tool("zz"),  # walks back to sys("B"): no owning assistant -> orphan
        asst("a2"),
    ]
    result = trim_history(history, 1)
    assert result.history == [sys("A\n\nB"), user("2"), asst("a2")]
    assert result.orphans_removed == 1


def test_no_breadcrumb_is_inserted() -> None:
    """Spec 3.6 step 3 / 2.3: the legacy trim never inserts a breadcrumb."""
    history = [sys(), user("1"), asst("a1"), user("2"), asst("a2")]
    result = trim_history(history, 1)
    assert crumb() not in result.history


def test_flag_is_read_and_never_modified() -> None:
    """Spec 3.6 step 3: the flag is passed to the count trim and not modified: the result
    carries no flag, and a flagged breadcrumb is kept and not counted as a turn."""
    history = [sys(), crumb(), user("1"), asst("a1"), user("2"), asst("a2")]
    result = trim_history(history, 1, crumb_present=True)
    assert result.history == [sys(), crumb(), user("2"), asst("a2")]
    assert result.dropped_messages == 2
    assert not hasattr(result, "crumb_present")
    assert list(inspect.signature(trim_history).parameters) == [
        "history",
        "max_history_turns",
        "crumb_present",
    ]


def test_log_record_carries_the_reference_attributes() -> None:
    """Spec 3.6 step 3: attributes ``messages_before``, ``messages_after``,
    ``dropped_messages``, ``dropped_turns``, ``kept_turns``, ``max_history_turns``.
    6 rows before; the count trim keeps [A, 2, B, a2] (dropped 2) and normalisation
    merges the system rows -> [A\n\nB, 2, a2], 3 rows."""
    history = [sys("A"), user("1"), asst("a1"), user("2"), sys("B"), asst("a2")]
    result = trim_history(history, 1)
    assert result.log_attributes() == {
        "messages_before": 6,
        "messages_after": 3,
        "dropped_messages": 2,
        "dropped_turns": 1,
        "kept_turns": 1,
        "max_history_turns": 1,
    }


def test_log_message_is_the_reference_text() -> None:
    """Spec 3.6 step 3: the message is "trim_history: dropped oldest whole turns"."""
    assert LEGACY_TRIM_LOG_MESSAGE == "trim_history: dropped oldest whole turns"


def test_cap_zero_keeps_the_newest_turn() -> None:
    """Spec 11 / 3.2: 0 is authoritative and the newest turn is still kept."""
    history = [user("1"), asst("a1"), user("2"), asst("a2")]
    assert trim_history(history, 0).history == [user("2"), asst("a2")]
