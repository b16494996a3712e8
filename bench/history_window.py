"""An incremental history window: the budget and turn-count trims without re-reading history.

Not part of the runtime: the agent rebuilds its working copy every turn and uses the pure
trimmers, so this window lives with the benchmark that measures what it would save.

``HistoryWindow`` holds a provider-facing history and its owner's breadcrumb flag, and keeps
what the pure trimmers (spec 3.1, 3.2) recompute on every call: per-row costs, running sums
and turn boundaries. Its trims return records identical to ``trim_to_recent_turns`` and
``trim_to_recent_turn_count`` on ``window.history()``. Appending rows costs those rows;
choosing what to drop costs ``O(log turns)``; dropping costs the dropped rows (amortised).

Layout: ``system`` (leading system rows) + an optional flagged breadcrumb row + the body.
The body is a list with a head offset: dropping a prefix advances the head, and the dead
part is compacted away once it outweighs the live part.

Pricing (spec 5.3): ``bench/window_pricing.py`` says how a row is priced, and why the
window keeps a running sum of older costs and a lazily synced tail of current costs.

Within each range (``s <= A``, ``s > A``) a candidate's cost does not increase with ``s``,
so the fewest turns to drop are found by two binary searches where the reference
re-estimates a probe per turn.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate, compress, islice, repeat
from operator import add
from typing import ClassVar

from bench.window_pricing import (
    RUST_WHITESPACE_SET,
    current_cost,
    is_carrier,
    older_cost,
    plain_tokens,
)
from harness.runtime.carriers import is_prompt_tool_carrier
from harness.runtime.constants import TOOL_RESULTS_PREFIX
from harness.runtime.estimate import message_tokens, older_costs
from harness.runtime.messages import ChatMessage
from harness.runtime.trim import TrimResult, TurnCountTrimResult
from harness.runtime.turns import BREADCRUMB_MESSAGE


@dataclass(frozen=True, slots=True)
class TrimStats:
    """The counters of a ``TrimResult`` without the history (``HistoryWindow.trim_in_place``)."""

    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    tokens_before: int
    tokens_after: int
    trimmed: bool

    @classmethod
    def of(cls, result: TrimResult) -> TrimStats:
        """The counters of a full result, to compare with an in-place trim."""
        return cls(
            result.dropped_messages,
            result.dropped_turns,
            result.kept_turns,
            result.tokens_before,
            result.tokens_after,
            result.trimmed,
        )


class HistoryWindow:
    """A provider-facing history plus its breadcrumb flag, trimmed incrementally.

    Mutators: ``append``, ``extend``, ``apply`` (follow a trim result of this window),
    ``trim_in_place`` (decide and drop without building a list), ``insert_breadcrumb`` and
    ``reset``. Every other method leaves the window as it is. Not thread-safe.
    """

    compact_min_dead: ClassVar[int] = 1024
    """Dropped rows are compacted away once there are this many and they outnumber the live."""

    __slots__ = (
        "_anchor",
        "_base",
        "_bhead",
        "_bounds",
        "_crumb",
        "_crumb_boundary",
        "_crumb_current",
        "_crumb_flag",
        "_crumb_older",
        "_cum_older",
        "_head",
        "_rows",
        "_system",
        "_system_cost",
        "_tail",
        "_tail_start",
    )

    # Indices held in _head, _bounds, _anchor and _tail_start are absolute: they survive
    # compaction. A body row's storage index is its absolute index minus _base.
    _system: list[ChatMessage]
    _system_cost: int
    _crumb_flag: bool
    _crumb: ChatMessage | None  # the flagged row after the system prefix, once there is one
    _crumb_current: int
    _crumb_older: int
    _crumb_boundary: bool
    _rows: list[ChatMessage]  # body storage; rows before _head are dropped
    _base: int  # absolute index of _rows[0]
    _head: int  # absolute index of the first live body row
    _cum_older: list[int]  # _cum_older[j] = sum of the older costs of _rows[:j]
    _tail_start: int  # absolute index where the tail begins
    _tail: list[int]  # running sum of current costs from _tail_start (synced lazily)
    _bounds: list[int]  # turn-opening body rows, ascending
    _bhead: int  # first live entry of _bounds
    _anchor: int  # last plain user row of the live body (== _tail_start), or -1

    def __init__(self, history: Iterable[ChatMessage] = (), crumb_present: bool = False) -> None:
        self.reset(history, crumb_present)

    # ----------------------------------------------------------------------------- building

    def reset(self, history: Iterable[ChatMessage] = (), crumb_present: bool = False) -> None:
        """Replace the content and the owner flag (``O(len(history))``)."""
        self._system = []
        self._system_cost = 0
        self._crumb_flag = crumb_present
        self._crumb = None
        self._crumb_current = self._crumb_older = 0
        self._crumb_boundary = False
        self._rows = []
        self._base = self._head = 0
        self._cum_older = [0]
        self._tail_start = 0
        self._tail = [0]
        self._bounds = []
        self._bhead = 0
        self._anchor = -1
        self.extend(history)

    def append(self, message: ChatMessage) -> None:
        """Add one row at the end (``O(len(message.content))``)."""
        self.extend((message,))

    def extend(self, rows: Iterable[ChatMessage]) -> None:
        """Add rows at the end, in order (``O(their bytes)``; carriers are parsed later, and
        only if they still sit in the current turn when a query needs them)."""
        batch = rows if isinstance(rows, list) else list(rows)
        first = 0
        while first < len(batch) and self._crumb is None and self._body_len() == 0:
            # Everything so far is leading system rows.
            row = batch[first]
            if row.role == "system":
                self._system.append(row)
                self._system_cost += plain_tokens(row.content)
            elif self._crumb_flag:
                self._set_crumb(row)  # the flag names whatever row follows the system prefix
            else:
                break
            first += 1
        if first:
            batch = batch[first:]
        if batch:
            self._extend_body(batch)

    def insert_breadcrumb(self) -> None:
        """``insert_breadcrumb_deduped`` on the window, then set the owner flag (``O(1)``)."""
        if not self._crumb_flag:
            self._crumb_flag = True
            self._set_crumb(BREADCRUMB_MESSAGE)

    # ------------------------------------------------------------------------------ reading

    @property
    def crumb_present(self) -> bool:
        """The owner flag: the row after the system prefix (if any) is the breadcrumb."""
        return self._crumb_flag

    @property
    def turn_count(self) -> int:
        """Turns after the system prefix and the flagged breadcrumb."""
        return len(self._bounds) - self._bhead

    def __len__(self) -> int:
        return len(self._system) + (self._crumb is not None) + self._body_len()

    def __iter__(self) -> Iterator[ChatMessage]:
        return iter(self.history())

    def history(self) -> list[ChatMessage]:
        """A new list of the rows, in order (``O(len)``)."""
        return self._materialize(self._head)

    def estimate_tokens(self) -> int:
        """``estimate_history_tokens(self.history())``, without reading the history."""
        self._sync_tail()
        return self._cost(self._head)

    # -------------------------------------------------------------------------------- trims

    def trim_to_recent_turns(self, budget_tokens: int) -> TrimResult:
        """``trim_to_recent_turns(self.history(), budget_tokens, self.crumb_present)``.

        Leaves the window as it is (see ``apply`` and ``trim_in_place``). Deciding costs
        ``O(log turns)``; the returned history is a new list (a C-level copy of the kept rows).
        """
        stats = self._plan(budget_tokens)
        return TrimResult(
            history=self._materialize(self._head + stats.dropped_messages),
            dropped_messages=stats.dropped_messages,
            dropped_turns=stats.dropped_turns,
            kept_turns=stats.kept_turns,
            tokens_before=stats.tokens_before,
            tokens_after=stats.tokens_after,
            trimmed=stats.trimmed,
        )

    def trim_in_place(self, budget_tokens: int) -> TrimStats:
        """Apply the budget trim to the window and return its counters, building no list.

        The window then holds what ``trim_to_recent_turns(...).history`` would have held.
        Costs ``O(log turns + dropped rows)`` (amortised).
        """
        stats = self._plan(budget_tokens)
        self._drop(stats.dropped_messages)
        return stats

    def trim_to_recent_turn_count(self, max_turns: int) -> TurnCountTrimResult[ChatMessage]:
        """``trim_to_recent_turn_count(self.history(), max_turns, self.crumb_present)``."""
        nb = len(self._bounds) - self._bhead
        # count_turns over the whole list (the breadcrumb row included), less the flag.
        total = max(0, nb + self._crumb_boundary - self._crumb_flag)
        if total <= max_turns or total <= 1:
            return TurnCountTrimResult(self.history(), 0, 0, total, False)
        kept_turns = min(max(max_turns, 1), nb)
        dropped_turns = nb - kept_turns
        first_kept = self._bounds[self._bhead + dropped_turns]
        return TurnCountTrimResult(
            history=self._materialize(first_kept),
            dropped_messages=first_kept - self._head,
            dropped_turns=dropped_turns,
            kept_turns=kept_turns,
            trimmed=True,
        )

    def apply(self, result: TrimResult | TurnCountTrimResult[ChatMessage]) -> None:
        """Make the window hold ``result.history``, for a result of this window's trims (or
        of the pure trimmers on ``self.history()``) taken since the window last changed.

        Costs ``O(dropped rows)`` (amortised). Raises ``ValueError`` for any other result.
        """
        dropped = result.dropped_messages
        if not result.trimmed:
            if dropped == 0 and len(result.history) == len(self):
                return
            raise ValueError("the result was not taken from this window")
        prefix = len(self._system) + (self._crumb is not None)
        if (
            not 0 < dropped < self._body_len()
            or len(result.history) != len(self) - dropped
            or result.history[prefix] != self._rows[self._head + dropped - self._base]
            or result.history[-1] != self._rows[-1]
        ):
            raise ValueError("the result was not taken from this window")
        self._drop(dropped)

    # ---------------------------------------------------------------------------- internals

    def _set_crumb(self, row: ChatMessage) -> None:
        self._crumb = row
        self._crumb_current = current_cost(row)
        self._crumb_older = older_cost(row)
        self._crumb_boundary = row.role == "user" and not row.content.startswith(
            TOOL_RESULTS_PREFIX
        )

    def _extend_body(self, batch: list[ChatMessage]) -> None:
        # Written for bulk loads: the costs a row remembers (or C-level passes measuring
        # them, see estimate._measure_older); only turn-opening rows get a closer look.
        offset = self._base + len(self._rows)
        costs, opens = older_costs(batch)
        openers = list(compress(range(len(batch)), opens))
        self._bounds.extend(map(add, openers, repeat(offset)))
        last_plain_user = -1
        for j in reversed(openers):
            content = batch[j].content
            if not (content[:1] in RUST_WHITESPACE_SET and is_prompt_tool_carrier(content)):
                last_plain_user = j  # not "  [Tool results]...", which opens a turn
                break
        self._rows.extend(batch)
        self._cum_older.extend(islice(accumulate(costs, initial=self._cum_older[-1]), 1, None))
        if last_plain_user >= 0:
            # A new current turn: every earlier carrier is older from now on.
            self._anchor = self._tail_start = offset + last_plain_user
            self._tail = [0]

    def _sync_tail(self) -> None:
        """Price the tail rows appended since the last query (current costs)."""
        tail, rows, base = self._tail, self._rows, self._base
        end = base + len(rows)
        done = self._tail_start + len(tail) - 1
        if done == end:
            return
        cum_older, total = self._cum_older, tail[-1]
        for index in range(done - base, end - base):
            row = rows[index]
            if is_carrier(row.role, row.content):
                total += message_tokens(row, current_carrier=True)
            else:
                total += cum_older[index + 1] - cum_older[index]
            tail.append(total)

    def _body_len(self) -> int:
        return len(self._rows) - (self._head - self._base)

    def _materialize(self, start: int) -> list[ChatMessage]:
        rows = self._rows[start - self._base :]
        rows[0:0] = self._system if self._crumb is None else [*self._system, self._crumb]
        return rows

    def _cost(self, start: int) -> int:
        """Estimate of ``system + crumb + body[start:]`` (``start`` absolute; tail synced)."""
        tail, tail_start = self._tail, self._tail_start
        anchor = self._anchor
        if start <= anchor:
            base = self._base
            return (
                self._system_cost
                + self._crumb_older
                + self._cum_older[anchor - base]
                - self._cum_older[start - base]
                + tail[-1]
                - tail[anchor - tail_start]
            )
        return self._system_cost + self._crumb_current + tail[-1] - tail[start - tail_start]

    def _first_fitting(self, lo: int, hi: int, budget: int) -> int:
        """Smallest ``k`` in ``[lo, hi)`` with ``cost(bounds[k]) <= budget``, else ``hi``.

        Inside one anchor range the cost does not increase with ``k``.
        """
        bounds = self._bounds
        while lo < hi:
            mid = (lo + hi) // 2
            if self._cost(bounds[mid]) <= budget:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def _plan(self, budget_tokens: int) -> TrimStats:
        self._sync_tail()
        total = self._cost(self._head)
        bounds, bhead, bend = self._bounds, self._bhead, len(self._bounds)
        nb = bend - bhead
        if budget_tokens == 0 or total <= budget_tokens or nb <= 1:
            return TrimStats(0, 0, nb, total, total, False)
        # The candidates are bounds[bhead + 1 : bend], oldest first; the pure trimmer keeps
        # the first that fits. Search the ones up to the anchor, then the ones after it.
        split = max(bhead + 1, bisect_right(bounds, self._anchor, bhead, bend))
        k = self._first_fitting(bhead + 1, split, budget_tokens)
        if k == split:
            k = min(self._first_fitting(split, bend, budget_tokens), bend - 1)
        start = bounds[k]
        dropped_turns = k - bhead
        return TrimStats(
            dropped_messages=start - self._head,
            dropped_turns=dropped_turns,
            kept_turns=nb - dropped_turns,
            tokens_before=total,
            tokens_after=self._cost(start),
            trimmed=True,
        )

    def _drop(self, count: int) -> None:
        """Remove the first ``count`` body rows (a flagged breadcrumb stays)."""
        if count <= 0:
            return
        self._head += count
        head, bounds, bhead = self._head, self._bounds, self._bhead
        while bhead < len(bounds) and bounds[bhead] < head:
            bhead += 1
        self._bhead = bhead
        if self._anchor < head:
            self._anchor = -1  # it was the last plain user row: none is left
        dead = head - self._base
        if dead >= self.compact_min_dead and dead * 2 > len(self._rows):
            del self._rows[:dead]
            del self._cum_older[:dead]
            del self._bounds[:bhead]
            self._bhead = 0
            self._base = head
            if self._tail_start < head:
                self._sync_tail()
                del self._tail[: head - self._tail_start]
                self._tail_start = head
