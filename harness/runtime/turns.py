"""Turns, the system prefix and the breadcrumb (spec 2, 4).

A turn opens at a user row whose content does not start with the raw, case-sensitive
``[Tool results]`` prefix (no whitespace trimming: that is the carrier test's business).
Provenance of the breadcrumb is an owner flag, never the row's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import attrgetter, eq

from harness.runtime.constants import BREADCRUMB, TOOL_RESULTS_PREFIX
from harness.runtime.memo import OPENS_TURN
from harness.runtime.messages import Chat, ChatMessage, ConversationMessage

BREADCRUMB_MESSAGE = ChatMessage("user", BREADCRUMB)


def is_turn_boundary(message: ChatMessage) -> bool:
    return message.role == "user" and not message.content.startswith(TOOL_RESULTS_PREFIX)


_ROLE = attrgetter("role")


def opening_flags(rows: Sequence[ChatMessage], start: int = 0) -> list[bool]:
    """Whether each row from ``start`` on opens a turn (``start`` spares a long history's
    caller a copy of its tail). The verdict is remembered on each row (a hidden slot of
    ``ChatMessage``), so re-reading a long history costs C-level work."""
    try:
        return OPENS_TURN.read_all(islice(rows, start, None))
    except AttributeError:
        # First scan: C-level passes, Python only for the user rows (is_turn_boundary).
        tail = rows[start:]
        flags = [False] * len(tail)
        for index in compress(range(len(tail)), map(eq, map(_ROLE, tail), repeat("user"))):
            flags[index] = not tail[index].content.startswith(TOOL_RESULTS_PREFIX)
        OPENS_TURN.write_all(tail, flags)
        return flags


def is_conversation_system(message: ConversationMessage) -> bool:
    return isinstance(message, Chat) and message.message.role == "system"


def is_conversation_turn_boundary(message: ConversationMessage, *, is_breadcrumb: bool) -> bool:
    return isinstance(message, Chat) and is_turn_boundary(message.message) and not is_breadcrumb


def leading_system_count(history: Sequence[ChatMessage]) -> int:
    count = 0
    for message in history:
        if message.role != "system":
            break
        count += 1
    return count


def count_turns(history: Sequence[ChatMessage]) -> int:
    """Boundary rows over the whole list (a flagged breadcrumb is a user row: callers
    subtract it)."""
    return sum(1 for message in history if is_turn_boundary(message))


def crumb_offset(history: Sequence[ChatMessage], crumb_present: bool) -> int:
    """1 when the owner flag says a breadcrumb sits right after the system prefix."""
    return int(crumb_present and len(history) > leading_system_count(history))


def insert_breadcrumb_deduped(
    history: Sequence[ChatMessage], crumb_present: bool
) -> list[ChatMessage]:
    """Insert a breadcrumb after the system prefix unless the owner flag says one is there.

    The owner sets its flag to ``True`` afterwards in both cases.
    """
    rows = list(history)
    if not crumb_present:
        rows.insert(leading_system_count(rows), BREADCRUMB_MESSAGE)
    return rows


def insert_conversation_breadcrumb(
    history: Sequence[ConversationMessage],
) -> list[ConversationMessage]:
    """Always insert (the Agent calls it right after a trim that removed the old one)."""
    rows = list(history)
    position = 0
    while position < len(rows) and is_conversation_system(rows[position]):
        position += 1
    rows.insert(position, Chat(BREADCRUMB_MESSAGE))
    return rows


@dataclass(frozen=True, slots=True)
class TurnSegments:
    """Spec 4: ``[0, system_end)`` system rows, an optional breadcrumb index, pre-turn rows
    ``[pre_turn_start, first_turn)``, and turns as ``(start, end)`` index pairs."""

    system_end: int
    breadcrumb_index: int | None
    pre_turn_start: int
    turns: tuple[tuple[int, int], ...]

    @property
    def first_turn(self) -> int:
        return self.turns[0][0] if self.turns else -1


def segment_turns(history: Sequence[ChatMessage], crumb_present: bool = False) -> TurnSegments:
    system_end = leading_system_count(history)
    offset = crumb_offset(history, crumb_present)
    body_start = system_end + offset
    starts = [i for i in range(body_start, len(history)) if is_turn_boundary(history[i])]
    ends = [*starts[1:], len(history)]
    return TurnSegments(
        system_end=system_end,
        breadcrumb_index=system_end if offset else None,
        pre_turn_start=body_start,
        turns=tuple(zip(starts, ends[: len(starts)], strict=True)),
    )
