"""Memo slots: what the runtime remembers on an immutable row, behind one typed accessor.

``ChatMessage`` is a frozen dataclass of ``role`` and ``content``; equality, hashing and
``repr`` see nothing else. It also declares hidden slots (``ChatMessage.__slots__``) where
the runtime keeps what it measured of the row: rows persist across turns and are
re-examined at every trim and loop iteration, and measuring them again each time would
dominate the agent's own cost.

Writing a slot steps around the frozen dataclass, and this module is the only code that
does it. It does not break "nothing mutates its input": a slot holds a pure function of
the row's two fields, the same value whoever computes it and whenever, so no caller can
observe that it was written (only that the second reading is faster).

``Memo.read`` raises ``AttributeError`` when the slot was never written; a missing value is
therefore distinct from a remembered ``None``. ``read_all`` reads a whole list at C speed
(``map`` over an ``attrgetter``) and raises as soon as one row lacks the slot;
``write_all`` writes one at C speed too (``map`` over the slot's own setter: a Python loop
of ``object.__setattr__`` by name cost most of a cold measure, issue 15).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Final, Generic, TypeVar, cast

from harness.runtime.messages import ChatMessage

T = TypeVar("T")


class Memo(Generic[T]):
    """One hidden slot of ``ChatMessage``, typed."""

    __slots__ = ("_get", "_set", "name")

    def __init__(self, name: str) -> None:
        if name not in ChatMessage.__slots__:
            raise ValueError(f"ChatMessage has no memo slot {name!r}")
        self.name = name
        self._get = attrgetter(name)
        # The slot's own setter: it steps around the frozen dataclass's ``__setattr__`` (as
        # ``object.__setattr__`` does) without looking the slot up by name on every call.
        self._set: Callable[[ChatMessage, T], None] = getattr(ChatMessage, name).__set__

    def read(self, row: ChatMessage) -> T:
        """The remembered value; ``AttributeError`` if none was remembered."""
        return cast(T, self._get(row))

    def read_all(self, rows: Iterable[ChatMessage]) -> list[T]:
        """Every row's remembered value; ``AttributeError`` if one row has none."""
        return cast(list[T], list(map(self._get, rows)))

    def write(self, row: ChatMessage, value: T) -> None:
        self._set(row, value)

    def write_all(self, rows: Sequence[ChatMessage], values: Sequence[T]) -> None:
        """``write`` for each row and its value: one call for a whole first scan, C-level."""
        if len(rows) != len(values):
            raise ValueError(f"{len(rows)} rows but {len(values)} values")
        deque(map(self._set, rows, values), maxlen=0)


OLDER_TOKENS: Final = Memo[int]("_older_tokens")
"""The row's cost priced as an older row (spec 5.3)."""
CURRENT_TOKENS: Final = Memo[int]("_current_tokens")
"""The row's cost priced as a row of the current turn (carriers by their declaration)."""
OPENS_TURN: Final = Memo[bool]("_opens_turn")
"""Whether the row opens a turn (spec 2.1)."""
TOOL_CALL_IDS: Final = Memo["tuple[str, ...] | None"]("_tool_call_ids")
"""The native tool-call ids an assistant row's JSON carries (spec 15)."""
TOOL_RESULT_ID: Final = Memo["str | None"]("_tool_result_id")
"""The ``tool_call_id`` a tool row's JSON carries (spec 15)."""
# ``carriers.CARRIER`` (a row's parsed carrier declaration) is declared beside its type.
