"""Spec 12 (channel sender caches: row FIFO, 0 means the default, restore and overflow
compaction) and the channel orchestrator's smaller overflow list (spec 10)."""

import pytest

from harness.runtime import (
    MAX_CHANNEL_HISTORY,
    append_sender_turn,
    channel_history_cap,
    compact_sender_history,
    is_channel_context_window_overflow,
    restore_sender_history,
)
from harness.runtime.overflow import CHANNEL_OVERFLOW_HINTS
from tests.runtime.builders import asst, call, tool, user


def test_cap_is_max_history_messages_when_positive() -> None:
    """Spec 12: the cap is ``max_history_messages`` if it is > 0."""
    assert channel_history_cap(7) == 7


def test_zero_means_the_default_of_fifty_rows() -> None:
    """Spec 12: 0 means the default here (``MAX_CHANNEL_HISTORY = 50``)."""
    assert channel_history_cap(0) == 50
    assert channel_history_cap(None) == 50
    assert MAX_CHANNEL_HISTORY == 50


def test_oldest_row_is_removed_after_a_push_while_over_the_cap() -> None:
    """Spec 12: after each push, the oldest *row* goes while ``len > cap``."""
    rows = [user("1"), asst("a1"), user("2")]
    assert append_sender_turn(rows, asst("a2"), 3) == [asst("a1"), user("2"), asst("a2")]


def test_push_under_the_cap_keeps_every_row() -> None:
    """Spec 12: nothing is removed while ``len <= cap``."""
    rows = [user("1")]
    assert append_sender_turn(rows, asst("a1"), 2) == [user("1"), asst("a1")]


def test_fifo_counts_rows_and_may_split_a_tool_pair() -> None:
    """Spec 12: row-level FIFO, not turn-aware: it can split tool pairs."""
    rows = [user("go"), call("c1"), tool("c1")]
    out = append_sender_turn(rows, asst("done"), 2)
    assert out == [tool("c1"), asst("done")]  # the call row is gone, its result stays


def test_zero_cap_keeps_fifty_rows() -> None:
    """Spec 12: with ``max_history_messages = 0`` the cache holds 50 rows."""
    rows = [user(str(i)) for i in range(50)]
    out = append_sender_turn(rows, user("50"), 0)
    assert len(out) == 50
    assert out[0] == user("1")
    assert out[-1] == user("50")


def test_restored_sender_history_keeps_the_last_fifty_rows() -> None:
    """Spec 12: on restart, restored sender histories are cut to their last 50 rows."""
    rows = [user(str(i)) for i in range(80)]
    assert restore_sender_history(rows) == rows[30:]


def test_overflow_compaction_keeps_the_last_twelve_rows() -> None:
    """Spec 12: on an overflow error the cache is compacted to its last 12 rows."""
    rows = [user(str(i)) for i in range(20)]
    assert compact_sender_history(rows) == rows[8:]


def test_overflow_compaction_cuts_each_row_to_600_characters_with_an_ellipsis() -> None:
    """Spec 12 ("600 characters with an ellipsis"; the ellipsis is three ASCII dots, as
    the reference's ``truncate_with_ellipsis`` writes it): characters, not bytes."""
    out = compact_sender_history([user("é" * 601), asst("x" * 600), user("y" * 700)])
    assert out == [user("é" * 600 + "..."), asst("x" * 600), user("y" * 600 + "...")]


def test_overflow_compaction_of_a_short_cache_keeps_every_row() -> None:
    """Spec 12: fewer than 12 rows -> all kept."""
    rows = [user("1"), asst("a")]
    assert compact_sender_history(rows) == rows


def test_channel_overflow_list_lacks_the_llama_cpp_and_zai_phrases() -> None:
    """Spec 10: the channel list is the reference list minus "exceeds the available
    context size" (llama.cpp) and "prompt exceeds max length" (Z.AI)."""
    assert not is_channel_context_window_overflow("exceeds the available context size")
    assert not is_channel_context_window_overflow("prompt exceeds max length")
    assert tuple(CHANNEL_OVERFLOW_HINTS) == (
        "exceeds the context window",
        "context window of this model",
        "maximum context length",
        "context length exceeded",
        "too many tokens",
        "token limit exceeded",
        "prompt is too long",
        "input is too long",
    )


@pytest.mark.parametrize(
    "hint",
    [
        "exceeds the context window",
        "context window of this model",
        "maximum context length",
        "context length exceeded",
        "too many tokens",
        "token limit exceeded",
        "prompt is too long",
        "input is too long",
    ],
)
def test_channel_overflow_list_matches_its_eight_phrases(hint: str) -> None:
    """Spec 10: the channel list still matches the other eight phrases, case-insensitive."""
    assert is_channel_context_window_overflow(f"Error: {hint.upper()}")
