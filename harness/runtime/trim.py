"""The trimmers (spec 3): pure functions that return frozen result records.

Every trimmer keeps the leading system rows and a suffix of whole turns, drops oldest
turns first, and always keeps the newest turn. None inserts a breadcrumb or emits an
event: the caller does that once, in one place, when ``trimmed`` is true.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import add
from typing import Final, Generic, TypeVar

from harness.runtime.carriers import is_prompt_tool_carrier
from harness.runtime.estimate import row_costs
from harness.runtime.messages import ChatMessage, ConversationMessage
from harness.runtime.turns import (
    count_turns,
    crumb_offset,
    is_conversation_system,
    is_conversation_turn_boundary,
    is_turn_boundary,
    leading_system_count,
    opening_flags,
)

T = TypeVar("T", ChatMessage, ConversationMessage)

_BLOCK: Final = 256
"""Rows per block of a trim's suffix sums (``_SuffixSums``): a suffix costs one block's
partial sum, the blocks' sums one C-level pass."""


@dataclass(frozen=True, slots=True)
class TrimResult:
    """Outcome of a token-budget trim. ``trimmed`` is true only when a turn was dropped."""

    history: list[ChatMessage]
    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    tokens_before: int
    tokens_after: int
    trimmed: bool


@dataclass(frozen=True, slots=True)
class TurnCountTrimResult(Generic[T]):
    """Outcome of a turn-count trim (either history representation)."""

    history: list[T]
    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    trimmed: bool


def _last_plain_user_row(history: Sequence[ChatMessage]) -> int | None:
    for index in range(len(history) - 1, -1, -1):
        row = history[index]
        if row.role == "user" and not is_prompt_tool_carrier(row.content):
            return index
    return None


def _row_costs(rows: Sequence[ChatMessage], *, all_current: bool = False) -> list[int]:
    return row_costs(rows, None if all_current else _last_plain_user_row(rows))


class _ProbeCosts:
    """Estimates of ``prefix + body[start:]`` for every start, in linear total time.

    A row's cost depends on its position only through one fact: whether it is a carrier
    at or after the last plain (non-carrier) user row of the *candidate* list. Dropping
    body rows from the front changes that anchor only once the original anchor row itself
    is dropped; from then on no plain user row is left in the body, so every kept body
    carrier is current and the prefix is priced on its own. Two suffix-sum tables (the
    second built only if a candidate needs it) therefore cover every candidate, where the
    reference re-estimates each probe from scratch (quadratic).
    """

    def __init__(self, rows: Sequence[ChatMessage], body_start: int) -> None:
        self._rows = rows
        self._body_start = body_start
        self._suffix = _SuffixSums(_row_costs(rows), body_start)  # one pass, no copies
        self.total = self._suffix.whole
        self._prefix_cost = self.total - self._suffix[0]
        anchor = _last_plain_user_row(rows)
        self._anchor = anchor - body_start if anchor is not None and anchor >= body_start else -1
        self._past_anchor: tuple[int, _SuffixSums] | None = None

    def cost(self, start: int) -> int:
        if start <= self._anchor or self._anchor < 0:
            return self._prefix_cost + self._suffix[start]
        if self._past_anchor is None:
            prefix = self._rows[: self._body_start]
            body = self._rows[self._body_start :]
            self._past_anchor = (
                sum(_row_costs(prefix)),
                _SuffixSums(_row_costs(body, all_current=True)),
            )
        prefix_cost, suffix = self._past_anchor
        return prefix_cost + suffix[start]

    def first_fitting(self, opens: list[bool], budget: int) -> int:
        """The first turn opening after the first one (``opens``: whether each body row
        opens a turn; at least two do) whose probe fits, as the reference's loop stops
        there; else the last opening. Within each side of the anchor, probe costs only
        fall as the start moves on, row by row: each side is a binary search for its first
        fitting row, then a C-level look for the next opening from there. The first side
        is searched first because the reference would stop there."""
        rows = len(opens)
        first = opens.index(True, opens.index(True) + 1)
        anchor = self._anchor
        past = max(first, anchor + 1)
        sides = [(first, rows)] if anchor < 0 else [(first, anchor + 1), (past, rows)]
        for low, high in sides:
            if low >= high:
                continue
            span = range(low, high)
            fits = bisect_left(span, True, key=lambda start: self.cost(start) <= budget)
            with suppress(ValueError):  # no opening from there on: nothing on this side fits
                return opens.index(True, low + fits, high)
        return rows - 1 - opens[::-1].index(True)


class _SuffixSums:
    """``self[i] == sum(costs[offset + i:])``; ``whole`` is ``sum(costs)``.

    A trim asks for a few dozen suffixes (a binary search), so no running sum of every row
    is built (a new int per row: most of a warm trim of a long history). The sums of
    ``_BLOCK``-row blocks are taken at C level once; a suffix is the whole less the blocks
    before it and the part of one block."""

    def __init__(self, costs: list[int], offset: int = 0) -> None:
        self._costs = costs
        self._offset = offset
        starts = range(0, len(costs), _BLOCK)
        blocks = map(costs.__getitem__, map(slice, starts, map(add, starts, repeat(_BLOCK))))
        self._before = list(accumulate(map(sum, blocks), initial=0))  # sum of blocks < k
        self.whole = self._before[-1]

    def __getitem__(self, start: int) -> int:
        end = self._offset + start  # sum(costs[:end]), from its block's running sum
        block = end // _BLOCK
        head = self._before[block] + sum(self._costs[block * _BLOCK : end])
        return self.whole - head


def trim_to_recent_turns(
    history: Sequence[ChatMessage], budget_tokens: int, crumb_present: bool = False
) -> TrimResult:
    """Drop the fewest oldest whole turns so the estimate fits ``budget_tokens`` (spec 3.1).

    Budget 0 disables the trim. A single turn, or an overrun caused only by system or
    pre-turn rows, is left alone. The newest turn is kept even when it alone is over budget.
    """
    # Read in place (a long history's copy costs as much as reading its memos); only an
    # untouched result copies it, so no result shares the caller's list.
    rows = history if isinstance(history, list) else list(history)
    body_start = leading_system_count(rows) + crumb_offset(rows, crumb_present)
    probes = _ProbeCosts(rows, body_start)  # first: measuring a row remembers its boundary
    opens = opening_flags(rows, body_start)
    turns = opens.count(True)
    if budget_tokens == 0 or probes.total <= budget_tokens or turns <= 1:
        return TrimResult(list(rows), 0, 0, turns, probes.total, probes.total, False)
    start = probes.first_fitting(opens, budget_tokens)
    dropped_turns = opens[:start].count(True)
    return TrimResult(
        history=rows[:body_start] + rows[body_start + start :],
        dropped_messages=start,
        dropped_turns=dropped_turns,
        kept_turns=turns - dropped_turns,
        tokens_before=probes.total,
        tokens_after=probes.cost(start),
        trimmed=True,
    )


def trim_to_recent_turn_count(
    history: Sequence[ChatMessage], max_turns: int, has_leading_breadcrumb: bool = False
) -> TurnCountTrimResult[ChatMessage]:
    """Keep at most ``max_turns`` newest turns of a provider-facing history (spec 3.2).

    ``max_turns = 0`` acts as 1 once trimming is needed. A flagged breadcrumb is kept and
    is neither counted as a turn nor as a dropped message.
    """
    rows = list(history)
    total = max(0, count_turns(rows) - int(has_leading_breadcrumb))
    if total <= max_turns or total <= 1:
        return TurnCountTrimResult(rows, 0, 0, total, False)
    system_end = leading_system_count(rows)
    body = rows[system_end:]
    boundaries = [
        i
        for i, row in enumerate(body)
        if is_turn_boundary(row) and not (has_leading_breadcrumb and i == 0)
    ]
    kept_turns = min(max(max_turns, 1), len(boundaries))
    dropped_turns = len(boundaries) - kept_turns
    first_kept = boundaries[dropped_turns]
    crumb = body[:1] if has_leading_breadcrumb else []
    return TurnCountTrimResult(
        history=rows[:system_end] + crumb + body[first_kept:],
        dropped_messages=first_kept - int(has_leading_breadcrumb),
        dropped_turns=dropped_turns,
        kept_turns=kept_turns,
        trimmed=True,
    )


def trim_conversation_to_recent_turns(
    history: Sequence[ConversationMessage], max_turns: int, has_leading_breadcrumb: bool = False
) -> TurnCountTrimResult[ConversationMessage]:
    """Structured-history turn limit (spec 3.3).

    When it trims, every system row (leading and late) moves to the front in its relative
    order, and the old breadcrumb is *not* carried over: the Agent re-inserts exactly one.
    """
    rows = list(history)
    first_non_system = next(
        (i for i, row in enumerate(rows) if not is_conversation_system(row)), None
    )
    crumb_index = first_non_system if has_leading_breadcrumb else None
    synthetic = int(crumb_index is not None)
    total = sum(
        1
        for i, row in enumerate(rows)
        if is_conversation_turn_boundary(row, is_breadcrumb=i == crumb_index)
    )
    if total <= max_turns or total <= 1:
        return TurnCountTrimResult(rows, 0, 0, total, False)
    system = [row for row in rows if is_conversation_system(row)]
    body = [row for row in rows if not is_conversation_system(row)]
    boundaries = [
        i
        for i, row in enumerate(body)
        if is_conversation_turn_boundary(row, is_breadcrumb=has_leading_breadcrumb and i == 0)
    ]
    kept_turns = min(max(max_turns, 1), len(boundaries))
    dropped_turns = len(boundaries) - kept_turns
    first_kept = boundaries[dropped_turns]
    return TurnCountTrimResult(
        history=system + body[first_kept:],
        dropped_messages=first_kept - synthetic,
        dropped_turns=dropped_turns,
        kept_turns=kept_turns,
        trimmed=True,
    )


_TWO_TURNS = 2
"""Dropping the oldest turn needs one to drop and one to keep."""


def drop_oldest_whole_turn(
    history: Sequence[ChatMessage], crumb_present: bool
) -> tuple[list[ChatMessage], int]:
    """Remove the oldest turn and any pre-turn rows; ``(history, 0)`` below two turns."""
    rows = list(history)
    body_start = leading_system_count(rows) + crumb_offset(rows, crumb_present)
    boundaries = [i for i in range(body_start, len(rows)) if is_turn_boundary(rows[i])]
    if len(boundaries) < _TWO_TURNS:
        return rows, 0
    second = boundaries[1]
    return rows[:body_start] + rows[second:], second - body_start


_HALF = 0.5


def _round_half_away_from_zero(value: float) -> int:
    """Rust's ``f64::round`` for the non-negative values used here (Python's ``round``
    rounds half to even, and ``int(v + 0.5)`` misrounds 0.49999999999999994)."""
    whole = math.floor(value)
    return whole + 1 if value - whole >= _HALF else whole


def trim_to_reported_budget(  # noqa: PLR0917 - the reference's signature, spec 3.5
    history: Sequence[ChatMessage],
    budget_tokens: int,
    reported_input_tokens: int,
    reported_population_estimated: int,
    tool_schema_tokens: int,
    crumb_present: bool = False,
) -> TrimResult:
    """Post-call enforcement from provider-reported usage (spec 3.5).

    ``reported_population_estimated`` is the estimate of the exact messages the provider
    counted. The selection target is the budget scaled by estimate/reported, less the tool
    schemas; ``tokens_before/after`` are in the provider's units.
    """
    rows = list(history)
    estimated = reported_population_estimated
    if budget_tokens == 0 or reported_input_tokens <= budget_tokens or estimated == 0:
        kept = max(0, count_turns(rows) - int(crumb_present))
        return TrimResult(rows, 0, 0, kept, reported_input_tokens, reported_input_tokens, False)
    target_total = max(1, budget_tokens * estimated // reported_input_tokens)
    scaled = max(1, target_total - tool_schema_tokens)  # saturating, then at least 1
    result = trim_to_recent_turns(rows, scaled, crumb_present)
    ratio = reported_input_tokens / estimated
    return TrimResult(
        history=result.history,
        dropped_messages=result.dropped_messages,
        dropped_turns=result.dropped_turns,
        kept_turns=result.kept_turns,
        tokens_before=reported_input_tokens,
        tokens_after=_round_half_away_from_zero(
            float(result.tokens_after + tool_schema_tokens) * ratio
        ),
        trimmed=result.trimmed,
    )
