"""A session's prints at rest: columns of fixed-size numbers instead of one object a row.

An idle session keeps its last request's and answer's prints until its next call; as
``RowPrint`` objects they cost over a hundred bytes a row, as columns about twenty
(an 8-byte key, two 4-byte token counts, a flag byte and a role byte), plus 8 bytes a
tool-call id for the rows that carry or answer one. ``PackedPrints`` is a read-only
sequence of ``RowPrint``: the inference reads it like a tuple, each row made anew.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import accumulate
from typing import Final, overload

from harness.wire.prints import RowPrint

_ROLES: Final = ("system", "user", "assistant", "tool")
_CODES: Final = {role: code for code, role in enumerate(_ROLES)}
_OTHER: Final = 255
_TOKEN_LIMIT: Final = 2**32
_ANSWERS: Final = 0x80
"""Flag bit of a packed row: it answers a tool call (its id's digest is in ``_answers``)."""


class PackedPrints(Sequence[RowPrint]):
    """The prints of one request (or answer), packed; equal in content to ``prints``."""

    __slots__ = (
        "_answers",
        "_answers_before",
        "_call_ends",
        "_calls",
        "_current",
        "_flags",
        "_keys",
        "_older",
        "_rare",
        "_roles",
    )

    def __init__(self, prints: Sequence[RowPrint]) -> None:
        self._keys = array("Q", [p.key for p in prints])
        # Token counts past 4 bytes (16 GiB of text in one row) are kept whole as rare.
        self._older = array("I", [min(p.older_tokens, _TOKEN_LIMIT - 1) for p in prints])
        self._current = array("I", [min(p.current_tokens, _TOKEN_LIMIT - 1) for p in prints])
        self._flags = bytes(p.flags | (_ANSWERS if p.answers is not None else 0) for p in prints)
        self._roles = bytes(_CODES.get(p.role, _OTHER) for p in prints)
        self._answers = array("Q", [p.answers for p in prints if p.answers is not None])
        # How many rows before each answer one (none kept when no row answers a call).
        before = array("I", accumulate((p.answers is not None for p in prints), initial=0))
        self._answers_before = before if self._answers else None
        self._calls = array("Q", [call for p in prints for call in p.calls])
        # Where each row's calls end in ``_calls`` (none kept when no row carries a call).
        ends = array("I", accumulate(len(p.calls) for p in prints))
        self._call_ends = ends if self._calls else None
        rare = {
            index: p
            for index, p in enumerate(prints)
            if p.role not in _CODES or max(p.older_tokens, p.current_tokens) >= _TOKEN_LIMIT
        }
        self._rare = rare or None  # rows of an unknown role or outsized: kept whole

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> RowPrint: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[RowPrint, ...]: ...
    def __getitem__(self, index: int | slice) -> RowPrint | tuple[RowPrint, ...]:
        if isinstance(index, slice):
            return tuple(self._row(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._row(index)

    def __iter__(self) -> Iterator[RowPrint]:
        return (self._row(i) for i in range(len(self)))

    def _row(self, index: int) -> RowPrint:
        if self._rare is not None and index in self._rare:
            return self._rare[index]
        flags = self._flags[index]
        answers = None
        if flags & _ANSWERS and self._answers_before is not None:
            answers = self._answers[self._answers_before[index]]
        calls: tuple[int, ...] = ()
        if self._call_ends is not None:
            start = self._call_ends[index - 1] if index else 0
            calls = tuple(self._calls[start : self._call_ends[index]])
        return RowPrint(
            role=_ROLES[self._roles[index]],
            key=self._keys[index],
            older_tokens=self._older[index],
            current_tokens=self._current[index],
            flags=flags & ~_ANSWERS,
            calls=calls,
            answers=answers,
        )

    @property
    def keys(self) -> tuple[int, ...]:
        return tuple(self._keys)


def pack(prints: Sequence[RowPrint]) -> PackedPrints:
    return prints if isinstance(prints, PackedPrints) else PackedPrints(prints)
