"""The legacy ``agent::run`` count trim (spec 3.6, 14): logged only, no breadcrumb, no event."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from harness.runtime.hygiene import normalize_system_messages, remove_orphaned_tool_messages
from harness.runtime.messages import ChatMessage
from harness.runtime.trim import trim_to_recent_turn_count

LEGACY_TRIM_LOG_MESSAGE: Final = "trim_history: dropped oldest whole turns"


@dataclass(frozen=True, slots=True)
class LegacyTrimResult:
    """What the caller logs at WARN when ``trimmed`` (the attributes of the reference)."""

    history: list[ChatMessage]
    trimmed: bool
    messages_before: int
    messages_after: int
    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    max_history_turns: int
    orphans_removed: int

    def log_attributes(self) -> dict[str, int]:
        return {
            "messages_before": self.messages_before,
            "messages_after": self.messages_after,
            "dropped_messages": self.dropped_messages,
            "dropped_turns": self.dropped_turns,
            "kept_turns": self.kept_turns,
            "max_history_turns": self.max_history_turns,
        }


def trim_history(
    history: Sequence[ChatMessage], max_history_turns: int, crumb_present: bool = False
) -> LegacyTrimResult:
    """Count trim; only if it trimmed, the orphan sweep and system normalisation follow.

    The owner's breadcrumb flag is read, never modified.
    """
    before = len(history)
    counted = trim_to_recent_turn_count(history, max_history_turns, crumb_present)
    rows, orphans = counted.history, 0
    if counted.trimmed:
        sweep = remove_orphaned_tool_messages(rows)
        rows, orphans = normalize_system_messages(sweep.history), sweep.removed
    return LegacyTrimResult(
        history=rows,
        trimmed=counted.trimmed,
        messages_before=before,
        messages_after=len(rows),
        dropped_messages=counted.dropped_messages,
        dropped_turns=counted.dropped_turns,
        kept_turns=counted.kept_turns,
        max_history_turns=max_history_turns,
        orphans_removed=orphans,
    )
