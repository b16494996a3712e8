"""The invariants of a session, judged from the requests the fake received (pure).

Input is what a run records per session: each generation request the fake logged (its
decoded canonical rows, the input tokens the fake counted, its outcome and status) tagged
with the turn it belongs to, each turn's user text and how it ended, the window the
runtime was told, and the system prompt. ``judge_session`` returns every violation, each
naming the invariant, the 1-based call and what was seen (``docs/sut-protocol.md``).

``wire_order`` and ``event_honest`` need the wire observer's findings; ``judge_findings``
is their seam: it turns findings into violations and is empty while findings are.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from fakes.rows import Row
from harness.runtime.text import counted
from harness.wire.model import Finding

Invariant: TypeAlias = Literal[
    "tool_pairing",
    "system_kept",
    "current_user_kept",
    "within_window",
    "recovers_from_overflow",
    "session_survives_failure",
    "no_trim_on_lookalike",
    "wire_order",
    "event_honest",
]
INVARIANTS: Final[tuple[Invariant, ...]] = (
    "tool_pairing",
    "system_kept",
    "current_user_kept",
    "within_window",
    "recovers_from_overflow",
    "session_survives_failure",
    "no_trim_on_lookalike",
    "wire_order",
    "event_honest",
)
OVERFLOW: Final = "overflow"
ERROR_STATUS: Final = 400
"""Statuses from here up are failed requests."""
MAX_DETAIL_CHARS: Final = 160
PAIRING_MEMO_ROWS: Final = 4_096
"""Rows whose tool ids are remembered (least recently used first out)."""


@dataclass(frozen=True, slots=True)
class Call:
    """One generation request of a session: ``number`` 1-based, in ``turn`` (1-based)."""

    number: int
    turn: int
    rows: tuple[Row, ...]
    tokens: int | None
    outcome: str
    status: int
    refused: str = ""
    """Why the provider refused the request before decoding it (the fake's detail, e.g.
    ``tool pairing``); its ``rows`` are then empty and say nothing about what was sent."""


PAIRING_REFUSAL: Final = "tool pairing"


@dataclass(frozen=True, slots=True)
class Turn:
    number: int
    text: str
    ended: Literal["answer", "error"] | None
    error_kind: str | None = None
    error_message: str = ""


@dataclass(frozen=True, slots=True)
class SessionLog:
    system: str | None
    window: int
    turns: tuple[Turn, ...]
    calls: tuple[Call, ...]


@dataclass(frozen=True, slots=True)
class Violation:
    invariant: str
    call: int | None
    detail: str


def _short(text: str) -> str:
    return text if len(text) <= MAX_DETAIL_CHARS else text[:MAX_DETAIL_CHARS] + "..."


def _json_object(text: str) -> dict[str, object]:
    if not text.startswith("{"):  # plain text: most rows, and no exception to pay for
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@functools.lru_cache(maxsize=PAIRING_MEMO_ROWS)
def _pairing_ids(row: Row) -> tuple[tuple[str, ...], str | None]:
    """The tool call ids an assistant row makes and the call id a tool row answers.
    Remembered: a session's requests repeat most of their rows."""
    if row.role == "assistant":
        calls = _json_object(row.content).get("tool_calls")
        if isinstance(calls, list):
            return tuple(str(c.get("id")) for c in calls if isinstance(c, dict)), None
    elif row.role == "tool":
        found = _json_object(row.content).get("tool_call_id")
        return (), None if found is None else str(found)
    return (), None


def _call_ids(row: Row) -> tuple[str, ...]:
    return _pairing_ids(row)[0]


def _result_id(row: Row) -> str | None:
    return _pairing_ids(row)[1]


def tool_pairing(log: SessionLog) -> list[Violation]:
    """Every tool result has its call earlier in the request; every call, but in the last
    row, has its result."""
    found: list[Violation] = []
    for call in log.calls:
        if call.refused == PAIRING_REFUSAL:
            found.append(Violation("tool_pairing", call.number, "the provider refused its pairing"))
        called: set[str] = set()
        answered: set[str] = set()
        for row in call.rows:
            result = _result_id(row)
            if result is not None and result not in called:
                found.append(
                    Violation("tool_pairing", call.number, f"result {result} without call")
                )
            answered.add(result or "")
            called.update(_call_ids(row))
        for index, row in enumerate(call.rows[:-1]):
            for missing in (i for i in _call_ids(row) if i not in answered):
                detail = f"call {missing} (row {index + 1}) without result"
                found.append(Violation("tool_pairing", call.number, detail))
    return found


def system_kept(log: SessionLog) -> list[Violation]:
    if not log.system:
        return []
    return [
        Violation("system_kept", call.number, "system prompt missing or changed")
        for call in log.calls
        if not call.refused
        and not any(r.role == "system" and r.content == log.system for r in call.rows)
    ]


def current_user_kept(log: SessionLog) -> list[Violation]:
    texts = {turn.number: turn.text for turn in log.turns}
    return [
        Violation("current_user_kept", call.number, f"turn {call.turn}'s user message missing")
        for call in log.calls
        if not call.refused
        and not any(r.role == "user" and texts.get(call.turn, "") in r.content for r in call.rows)
    ]


def within_window(log: SessionLog) -> list[Violation]:
    """Requests fit the window the runtime was told, as the fake counted them. A request
    the provider refused as an overflow is judged by ``recovers_from_overflow`` instead."""
    return [
        Violation("within_window", c.number, f"{c.tokens} tokens > told window {log.window}")
        for c in log.calls
        if c.tokens is not None and c.tokens > log.window and c.outcome != OVERFLOW
    ]


def _older_turn_kept(call: Call, log: SessionLog) -> bool:
    """Does the request still carry a user message of an earlier turn?"""
    older = [t.text for t in log.turns if t.number < call.turn and t.text]
    return any(r.role == "user" and any(t in r.content for t in older) for r in call.rows)


def _recovery_problem(call: Call, retry: Call | None, turn: Turn, log: SessionLog) -> str | None:
    if retry is not None:
        if retry.rows == call.rows:
            return f"resent the same request as call {call.number}"
        if call.tokens is not None and retry.tokens is not None and retry.tokens >= call.tokens:
            return f"retry of call {call.number} not smaller ({retry.tokens} >= {call.tokens})"
        return None
    if turn.ended == "error" and turn.error_kind == OVERFLOW and not _older_turn_kept(call, log):
        return None  # only the newest turn was left and it cannot fit: a clean error is right
    ended = turn.ended or "nothing"
    return f"turn {turn.number} ended in {ended} after overflow, older history still sent"


def recovers_from_overflow(log: SessionLog) -> list[Violation]:
    """After an overflow the turn goes on with a smaller request and ends in an answer,
    unless only the newest turn was left (then a clean overflow ``error`` is right)."""
    found: list[Violation] = []
    for turn in log.turns:
        calls = [c for c in log.calls if c.turn == turn.number]
        for index, call in enumerate(calls):
            if call.outcome != OVERFLOW:
                continue
            retry = calls[index + 1] if index + 1 < len(calls) else None
            problem = _recovery_problem(call, retry, turn, log)
            if problem is not None:
                found.append(Violation("recovers_from_overflow", call.number, problem))
    return found


def session_survives_failure(log: SessionLog) -> list[Violation]:
    """A turn after a failed turn is not refused for the same reason: not the same
    provider or internal error again, nor an overflow whose requests still carry the
    failed turn (the session is poisoned by it)."""
    found: list[Violation] = []
    for failed, after in zip(log.turns, log.turns[1:], strict=False):
        if (
            failed.ended != "error"
            or after.ended != "error"
            or failed.error_kind != after.error_kind
        ):
            continue
        calls = [c for c in log.calls if c.turn == after.number]
        last = calls[-1].number if calls else None
        if failed.error_kind == OVERFLOW:
            if calls and any(
                r.role == "user" and failed.text and failed.text in r.content
                for r in calls[-1].rows
            ):
                detail = f"turn {after.number} overflows still carrying failed turn {failed.number}"
                found.append(Violation("session_survives_failure", last, detail))
        elif failed.error_message == after.error_message:
            detail = f"turn {after.number} refused as turn {failed.number}: " + _short(
                after.error_message
            )
            found.append(Violation("session_survives_failure", last, detail))
    return found


def no_trim_on_lookalike(log: SessionLog) -> list[Violation]:
    """After a rate limit or another non-overflow failure, the next request carries no
    less history (no fewer rows)."""
    found: list[Violation] = []
    for call, after in zip(log.calls, log.calls[1:], strict=False):
        failed = call.status >= ERROR_STATUS or call.outcome == "fault"
        if failed and call.outcome != OVERFLOW and len(after.rows) < len(call.rows):
            detail = f"{len(after.rows)} rows after a {call.status} with {len(call.rows)}"
            found.append(Violation("no_trim_on_lookalike", after.number, detail))
    return found


CHECKS: Final[tuple[Callable[[SessionLog], list[Violation]], ...]] = (
    tool_pairing,
    system_kept,
    current_user_kept,
    within_window,
    recovers_from_overflow,
    session_survives_failure,
    no_trim_on_lookalike,
)
EVERY_REQUEST_CHECKS: Final = frozenset({tool_pairing, within_window})
"""Checked on side requests too (``harness.sut.side``); the others read the conversation's
requests only: a summariser's request carries no system prompt or question, and it is
not the conversation's next request."""


def judge_session(log: SessionLog, side: Collection[int] = ()) -> list[Violation]:
    """Every violation of the invariants computable from the fake's log; ``side``: the
    numbers of the session's side requests, judged by ``EVERY_REQUEST_CHECKS`` only."""
    conversation = log
    if side:
        calls = tuple(call for call in log.calls if call.number not in side)
        conversation = SessionLog(log.system, log.window, log.turns, calls)
    return [
        violation
        for check in CHECKS
        for violation in check(log if check in EVERY_REQUEST_CHECKS else conversation)
    ]


def judge_findings(
    findings: Sequence[Finding], reported_trims: int, *, reports_events: bool
) -> list[Violation]:
    """The seam for the wire observer: ``turn_order`` findings break ``wire_order``; a
    runtime that self-reported trims the wire does not show (or, declaring ``events``,
    reported none of those the wire shows) is not ``event_honest``. Both are empty while
    the observer returns no findings."""
    found = [
        Violation("wire_order", f.call, _short(f.detail or f.kind))
        for f in findings
        if f.kind == "turn_order"
    ]
    observable = findings and not any(f.kind == "unobservable" for f in findings)
    seen_trims = sum(f.kind in {"trim", "compaction"} for f in findings)
    if observable and reported_trims > 0 and seen_trims == 0:
        found.append(
            Violation(
                "event_honest", None, f"{counted(reported_trims, 'trim')} reported, none seen"
            )
        )
    if observable and reports_events and reported_trims == 0 and seen_trims > 0:
        found.append(
            Violation("event_honest", None, f"{counted(seen_trims, 'trim')} seen, none reported")
        )
    return found
