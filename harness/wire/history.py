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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness.wire.prints import RowPrint, estimate_prints, keys_of, leading_system

Prints = tuple[RowPrint, ...]


@dataclass(frozen=True, slots=True)
class Before:
    """What the session remembers of its last call: the request's prints, the answer's
    prints (empty when none came), and whether the request's row after the system rows is
    a breadcrumb the observer saw inserted (the reference's owner flag)."""

    request: Prints
    answer: Prints = ()
    crumb_present: bool = False

    @property
    def body_start(self) -> int:
        system = leading_system(self.request)
        crumb = self.crumb_present and len(self.request) > system
        return system + int(crumb)


@dataclass(frozen=True, slots=True)
class HistoryChange:
    """A cut: ``kind`` is ``trim`` (a suffix of the history kept) or ``compaction`` (the
    dropped rows replaced by ``summary_rows`` rows never seen before). ``crumb_present``
    is the owner flag after this request."""

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
    request and its answer, ``crumb_present`` the owner flag for the next comparison."""

    change: HistoryChange | None
    appended: Prints
    crumb_present: bool


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


def read_change(before: Before, new: Prints) -> Reading:
    """Compare ``new`` with the history ``before`` left (see the module docstring).

    Tried in order: the history kept and extended (with or without the answer: a client
    may drop a failed answer); a suffix kept (trim); never-seen rows in front of a kept
    suffix (compaction); nothing of it kept at all (a trim to the new rows when they open
    a turn or follow an inserted breadcrumb, else a compaction).
    """
    start = before.body_start
    asked, answered = before.request[start:], before.request[start:] + before.answer
    system = leading_system(new)
    crumb_row = _crumb_at(new, system)
    flagged = before.crumb_present and crumb_row
    body = new[system + int(flagged) :]
    for history in (answered, asked):
        if _starts_with(body, history):
            return Reading(None, body[len(history) :], flagged)
    cut_body = new[system + int(crumb_row) :]
    prefix = new[:system] + new[system : system + int(flagged)]
    for history in (answered, asked):
        cut = find_cut(history, cut_body)
        if cut is not None:
            change = _cut(history, cut, cut_body, prefix, crumb=crumb_row)
            return Reading(change, cut_body[len(history) - cut :], crumb_row)
    return _replaced(answered, cut_body, prefix, crumb_row)


def _cut(
    history: Prints, cut: int, body: Prints, prefix: Prints, *, crumb: bool, summary: int = 0
) -> HistoryChange:
    """The accounting of a cut of ``history[:cut]``; ``body`` is what the new request
    sends after the system rows and breadcrumb, ``summary`` leading rows of it new."""
    kept = len(history) - cut
    appended = body[summary + kept :]
    return HistoryChange(
        kind="compaction" if summary else "trim",
        dropped_messages=cut,
        dropped_turns=sum(p.opens_turn for p in history[:cut]),
        kept_turns=sum(p.opens_turn for p in body),
        tokens_before=estimate_prints(prefix + history + appended),
        tokens_after=estimate_prints(prefix + body),
        breadcrumb=crumb,
        on_turn_boundary=not body or body[0].opens_turn,
        summary_rows=summary,
    )


def _replaced(history: Prints, body: Prints, prefix: Prints, crumb: bool) -> Reading:
    """Rows of ``body`` never seen in ``history`` stand in front of a kept suffix of it
    (a compaction), or nothing of it is kept at all."""
    seen = set(keys_of(history))
    summary = next((i for i, p in enumerate(body) if p.key in seen), len(body))
    rest = body[summary:]
    if summary and rest:
        cut = find_cut(history, rest)
        if cut is None and _starts_with(rest, history):
            return Reading(None, rest[len(history) :], crumb)  # rows put in front: no cut
        if cut is not None:
            change = _cut(history, cut, body, prefix, crumb=crumb, summary=summary)
            return Reading(change, rest[len(history) - cut :], crumb)
    if not history or not body:
        return Reading(None, body, crumb)
    # Nothing of the history is kept. One new row that opens a turn, or rows behind an
    # inserted breadcrumb, are the rows appended since: a trim of everything before them.
    # Anything else stands for the history: a compaction into all but its last row.
    whole_trim = crumb or (len(body) == 1 and body[0].opens_turn)
    summary = 0 if whole_trim else max(len(body) - 1, 1)
    change = _cut(
        history + body[summary:], len(history), body, prefix, crumb=crumb, summary=summary
    )
    return Reading(change, body[summary:], crumb)


def first_body_row(prints: Sequence[RowPrint]) -> RowPrint | None:
    """The first row after the system rows and a breadcrumb: where a kept history starts."""
    start = leading_system(prints)
    start += int(_crumb_at(prints, start))
    return prints[start] if start < len(prints) else None


def overlap(before: Before, new: Sequence[RowPrint]) -> int:
    """How many rows of the history ``before`` left ``new`` carries on: all of them when
    it extends that history, the kept suffix after a trim, else 0. The session a request
    belongs to is the one it carries on most."""
    start = before.body_start
    system = leading_system(new)
    body = new[system + int(_crumb_at(new, system)) :]
    whole = new[system:]
    best = 0
    for history in (before.request[start:] + before.answer, before.request[start:]):
        if _starts_with(body, history) or _starts_with(whole, history):
            best = max(best, len(history))
        cut = find_cut(history, body)
        if cut is not None:
            best = max(best, len(history) - cut)
    return best


def cut_points(before: Before) -> set[int]:
    """Keys of the rows a kept history can start with: the first row of the body and
    every turn opening (the rows a continuation or a turn-boundary trim starts at)."""
    history = before.request[before.body_start :] + before.answer
    points = {row.key for row in history if row.opens_turn and not row.is_breadcrumb}
    if history:
        points.add(history[0].key)
    return points
