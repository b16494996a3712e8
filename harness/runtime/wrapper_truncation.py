"""The provider wrapper's own overflow truncation (spec 9, ``reliable.rs::truncate_for_context``).

Not one of the three trimmers: it knows no budget and no token estimate. On an overflow
the reference's provider wrapper halves the *request's copy* of the history once and
retries; the agent's history is untouched, no breadcrumb is inserted and nothing is
announced. Its rules, read off the reference (``docs/decisions.md``):

- every system row is kept wherever it stands; only non-system rows are counted and dropped;
- a turn opens at a user row that is neither a prompt-mode tool-result carrier (content,
  after trimming leading whitespace, starts with ``[Tool results]``) nor the pruned-context
  separator (content, trimmed, equal to ``[context continues]``);
- with at most one turn, nothing is dropped;
- otherwise the cut is the first turn opening, after the first one, at a non-system
  position of at least half the non-system rows (rounded down), else the last turn
  opening: everything non-system before it goes, so tool calls keep all their results and
  the newest turn always stays;
- the count returned is the number of non-system rows dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.runtime.constants import PRUNED_CONTEXT_SEPARATOR, TOOL_RESULTS_PREFIX
from harness.runtime.messages import ChatMessage
from harness.runtime.text import rust_trim, rust_trim_start


@dataclass(frozen=True, slots=True)
class ContextTruncation:
    history: list[ChatMessage]
    dropped: int
    """Non-system rows dropped; ``0`` means ``history`` equals the input."""


def opens_context_turn(message: ChatMessage) -> bool:
    """``reliable.rs::is_context_turn_boundary`` (its own rule, not spec 2.1's)."""
    if message.role != "user":
        return False
    if rust_trim_start(message.content).startswith(TOOL_RESULTS_PREFIX):
        return False
    return rust_trim(message.content) != PRUNED_CONTEXT_SEPARATOR


def truncate_for_context(history: Sequence[ChatMessage]) -> ContextTruncation:
    """Drop about the oldest half of the non-system rows at a turn opening (see module)."""
    non_system = [i for i, row in enumerate(history) if row.role != "system"]
    openings = [pos for pos, i in enumerate(non_system) if opens_context_turn(history[i])]
    if len(openings) <= 1:
        return ContextTruncation(list(history), 0)
    target = len(non_system) // 2
    first_kept = next((pos for pos in openings[1:] if pos >= target), openings[-1])
    cut = non_system[first_kept]
    kept = [row for i, row in enumerate(history) if i >= cut or row.role == "system"]
    return ContextTruncation(kept, first_kept)
