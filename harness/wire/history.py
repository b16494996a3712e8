"""What happened to a session's history between two requests: kept, trimmed or compacted.

The history at the moment of a trim is what the previous request sent, then the answer,
then the rows appended since (tool results, the next user message); a trimmed request
carries the system rows, maybe the breadcrumb, and a suffix of that history. The counts
are defined exactly as the reference's ``HistoryTrimmed`` (``harness.runtime.trim``):
``dropped_messages`` are the body rows dropped (system rows and a flagged breadcrumb are
not body), ``dropped_turns`` the turn openings among them, ``kept_turns`` the openings
kept, ``tokens_before``/``tokens_after`` the runtime estimate of the history before the
cut and after it (a breadcrumb inserted by the cut not counted, as the reference inserts
it after measuring).

Within a turn the reference trims the previous request's rows; at a new turn it trims
its whole stored conversation afresh, which has no breadcrumb. So a cut at a new turn
counts again the rows earlier requests cut (``Tally``) and measures the history without
the breadcrumb.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from harness.wire.prints import RowPrint, estimate_prints, keys_of, leading_system

Prints = tuple[RowPrint, ...]
"""Prints being compared: a tuple (a session keeps them as ``prints.PackedPrints``)."""


@dataclass(frozen=True, slots=True)
class Tally:
    """Rows of the conversation cut by earlier requests and not sent since: how many,
    the turns they opened, their estimate as older rows."""

    rows: int = 0
    turns: int = 0
    tokens: int = 0

    def plus(self, rows: Sequence[RowPrint]) -> Tally:
        return Tally(
            self.rows + len(rows),
            self.turns + sum(p.opens_turn for p in rows),
            self.tokens + sum(p.older_tokens for p in rows),
        )


@dataclass(frozen=True, slots=True)
class Before:
    """What the session remembers of its last call: the request's prints, the answer's
    prints (empty when none came), whether the request's row after the system rows is a
    breadcrumb the observer saw inserted (the reference's owner flag), and the tally of
    the rows earlier requests cut (``earlier``)."""

    request: Sequence[RowPrint]
    answer: Sequence[RowPrint] = ()
    crumb_present: bool = False
    earlier: Tally = Tally()

    def unpacked(self) -> Before:
        """The same, its prints as tuples: read many times within one call, a packed row
        would be made anew at each reading."""
        return replace(self, request=tuple(self.request), answer=tuple(self.answer))

    @property
    def body_start(self) -> int:
        system = leading_system(self.request)
        crumb = self.crumb_present and len(self.request) > system
        return system + int(crumb)


@dataclass(frozen=True, slots=True)
class HistoryChange:
    """A cut: ``kind`` is ``trim`` (a suffix of the history kept) or ``compaction`` (the
    dropped rows replaced by ``summary_rows`` rows never seen before); the other fields
    are the findings' (``docs/findings.md``)."""

    kind: Literal["trim", "compaction"]
    dropped_messages: int
    dropped_turns: int
    kept_turns: int
    tokens_before: int
    tokens_after: int
    breadcrumb: bool
    on_turn_boundary: bool
    summary_rows: int = 0


@dataclass(frozen=True, slots=True)
class Reading:
    """How a new request relates to the previous one: ``change`` is the cut (``None``: the
    history was kept as it was and extended), ``appended`` the rows new since the previous
    request and its answer; ``crumb_present`` and ``earlier`` are the owner flag and the
    tally of cut rows for the next comparison."""

    change: HistoryChange | None
    appended: Prints
    crumb_present: bool
    earlier: Tally


def _starts_with(rows: Sequence[RowPrint], head: Sequence[RowPrint]) -> bool:
    return len(rows) >= len(head) and keys_of(rows[: len(head)]) == keys_of(head)


def find_cut(history: Sequence[RowPrint], kept: Sequence[RowPrint]) -> int | None:
    """The fewest leading rows of ``history`` (at least one, not all) whose removal leaves
    a head of ``kept``: ``kept`` starts with ``history[cut:]``. ``None``: no such cut."""
    if not kept:
        return None
    first, keys = kept[0].key, keys_of(history)
    kept_keys = keys_of(kept)
    for cut in range(1, len(keys)):
        tail = keys[cut:]
        if keys[cut] == first and kept_keys[: len(tail)] == tail:
            return cut
    return None


def _crumb_at(prints: Sequence[RowPrint], index: int) -> bool:
    return index < len(prints) and prints[index].is_breadcrumb


def _opens_turn(rows: Sequence[RowPrint]) -> bool:
    return any(row.opens_turn for row in rows)


@dataclass(frozen=True, slots=True)
class _New:
    """The new request split: ``prefix`` (system rows and the breadcrumb the owner flag
    keeps), ``body`` after it, ``cut_body`` after any breadcrumb row."""

    prefix: Prints
    body: Prints
    cut_body: Prints
    crumb_row: bool
    flagged: bool


def _split(before: Before, new: Prints) -> _New:
    system = leading_system(new)
    crumb_row = _crumb_at(new, system)
    flagged = before.crumb_present and crumb_row
    end = system + int(flagged)
    return _New(new[:end], new[end:], new[system + int(crumb_row) :], crumb_row, flagged)


def read_change(before: Before, new: Prints) -> Reading:
    """Compare ``new`` with the history ``before`` left (see the module docstring).

    Tried in order: the history kept and extended (with or without the answer: a client
    may drop a failed answer); a suffix kept (trim); never-seen rows in front of a kept
    suffix (compaction); nothing of it kept at all (a trim to the rows behind an inserted
    breadcrumb; a fresh start when one row opening a turn is all there is; else a
    compaction).

    A cut at a new turn (an appended row opens one) counts the rows earlier requests cut
    as dropped again: the reference trims each turn's history afresh from the whole
    stored conversation, and within a turn from the previous request's rows.
    """
    start = before.body_start
    asked = tuple(before.request[start:])
    answered = asked + tuple(before.answer)
    split = _split(before, new)
    for history in (answered, asked):
        if _starts_with(split.body, history):
            return _kept(before, split, split.body[len(history) :])
    for history in (answered, asked):
        cut = find_cut(history, split.cut_body)
        if cut is not None:
            return _cut(before, history, cut, split)
    return _replaced(before, answered, split)


def _kept(before: Before, split: _New, appended: Prints) -> Reading:
    """Nothing more cut. (A cut repeated where the previous request already had it shows
    nothing new on the wire: no finding.)"""
    return Reading(None, appended, split.flagged, before.earlier)


def _cut(before: Before, history: Prints, cut: int, split: _New, summary: int = 0) -> Reading:
    """The accounting of a cut of ``history[:cut]``; the request sends ``split.cut_body``
    after the system rows and breadcrumb, its first ``summary`` rows new."""
    body = split.cut_body
    appended = body[summary + len(history) - cut :]
    new_turn = _opens_turn(appended)
    earlier = before.earlier if new_turn else Tally()
    # At a new turn the reference trims its stored history, which has no breadcrumb (it
    # inserts one after each cut): the breadcrumb is measured only within a turn.
    prefix = split.prefix[: leading_system(split.prefix)] if new_turn else split.prefix
    change = HistoryChange(
        kind="compaction" if summary else "trim",
        dropped_messages=earlier.rows + cut,
        dropped_turns=earlier.turns + sum(p.opens_turn for p in history[:cut]),
        kept_turns=sum(p.opens_turn for p in body),
        tokens_before=earlier.tokens + estimate_prints(prefix + history + appended),
        tokens_after=estimate_prints(prefix + body),
        breadcrumb=split.crumb_row,
        on_turn_boundary=not body or body[0].opens_turn,
        summary_rows=summary,
    )
    return Reading(change, appended, split.crumb_row, before.earlier.plus(history[:cut]))


def _run_at(rows: Sequence[RowPrint], run: Sequence[RowPrint]) -> int | None:
    """Where ``run`` stands whole in ``rows`` (the first place), if it does."""
    keys, wanted = keys_of(rows), keys_of(run)
    for start in range(len(keys) - len(wanted) + 1):
        if keys[start : start + len(wanted)] == wanted:
            return start
    return None


def _replaced(before: Before, history: Prints, split: _New) -> Reading:
    """Neither extended nor a suffix kept. In order: the whole history behind rows put in
    front of it (older rows sent again, as on a switch to a larger window: the tally of
    cut rows is cleared); rows never seen in front of a kept suffix (a compaction); rows
    edited in place (the first row kept, later ones changed: a provider's or client's
    clearing of old tool results is no cut); else nothing of it is kept."""
    body = split.cut_body
    again = _run_at(body, history) if history else None
    if again is not None:
        return Reading(None, body[again + len(history) :], split.crumb_row, Tally())
    seen = set(keys_of(history))
    summary = next((i for i, p in enumerate(body) if p.key in seen), len(body))
    if summary and summary < len(body):
        cut = find_cut(history, body[summary:])
        if cut is not None:
            return _cut(before, history, cut, split, summary)
    if not history or not body or body[0].key == history[0].key:
        return Reading(None, body[len(history) :], split.crumb_row, before.earlier)
    # Nothing of the history is kept. Rows behind an inserted breadcrumb are the rows
    # appended since: a trim of everything before them. One row that opens a turn, with no
    # breadcrumb, starts the conversation afresh (a cleared history): no cut, nothing
    # earlier missing. Anything else stands for the history: a compaction into all but
    # its last row.
    if not split.crumb_row and len(body) == 1 and body[0].opens_turn:
        return Reading(None, body, False, Tally())
    summary = 0 if split.crumb_row else max(len(body) - 1, 1)
    return _cut(before, history, len(history), split, summary)


def overlap(before: Before, new: Sequence[RowPrint]) -> int:
    """How many rows of the history ``before`` left ``new`` carries on: all of them when
    it extends that history (or sends it whole behind older rows again), the kept suffix
    after a trim, else 0. The session a request belongs to is the one it carries on
    most."""
    start = before.body_start
    system = leading_system(new)
    body = new[system + int(_crumb_at(new, system)) :]
    whole = new[system:]
    best = 0
    asked = tuple(before.request[start:])
    for history in (asked + tuple(before.answer), asked):
        if (
            _starts_with(body, history)
            or _starts_with(whole, history)
            or (history and _run_at(body, history) is not None)
        ):
            best = max(best, len(history))
        cut = find_cut(history, body)
        if cut is not None:
            best = max(best, len(history) - cut)
    return best


def index_keys(before: Before) -> tuple[int, ...]:
    """Keys of the rows every request that carries this history on still carries: the
    last row of the request and of the answer (a continuation extends them, a trim keeps
    the newest rows, a compaction the rows after its summary, a retry may leave the
    answer out)."""
    ends = [rows[-1].key for rows in (before.request, before.answer) if rows]
    return tuple(dict.fromkeys(ends))
