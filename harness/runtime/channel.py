"""Channel sender caches (spec 12): row-counted FIFO, 0 means the default.

Unlike every other limit here these count *rows*, are not turn-aware and may split a
tool pair; the orphan sweep cleans that up later, as in the reference.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.runtime.constants import (
    CHANNEL_OVERFLOW_KEEP_ROWS,
    CHANNEL_OVERFLOW_ROW_CHARS,
    MAX_CHANNEL_HISTORY,
)
from harness.runtime.messages import ChatMessage

# The reference's `util::truncate_with_ellipsis` keeps the first N chars and appends three
# ASCII dots (spec 12 only says "an ellipsis"; U+2026 would change the row's text).
ELLIPSIS = "..."


def channel_history_cap(max_history_messages: int | None) -> int:
    if max_history_messages is None or max_history_messages <= 0:
        return MAX_CHANNEL_HISTORY
    return max_history_messages


def append_sender_turn(
    rows: Sequence[ChatMessage], message: ChatMessage, max_history_messages: int | None
) -> list[ChatMessage]:
    """Push one row, then drop the oldest rows while the cache is over its cap."""
    cap = channel_history_cap(max_history_messages)
    updated = [*rows, message]
    return updated[max(0, len(updated) - cap) :]


def restore_sender_history(rows: Sequence[ChatMessage]) -> list[ChatMessage]:
    """On restart, restored sender histories keep their last 50 rows."""
    return list(rows[-MAX_CHANNEL_HISTORY:])


def _cut(content: str) -> str:
    if len(content) <= CHANNEL_OVERFLOW_ROW_CHARS:
        return content
    return content[:CHANNEL_OVERFLOW_ROW_CHARS] + ELLIPSIS


def compact_sender_history(rows: Sequence[ChatMessage]) -> list[ChatMessage]:
    """On an overflow error: the last 12 rows, each cut to 600 characters plus an ellipsis."""
    return [ChatMessage(row.role, _cut(row.content)) for row in rows[-CHANNEL_OVERFLOW_KEEP_ROWS:]]
