"""Checks of one request on its own: broken tool pairs, rows in an order the wire refuses,
the system rows against the previous request's, the current turn's user row.

Each check returns ``(kind, detail)`` pairs; the caller stamps them into findings.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.wire.model import FindingKind, WireKind
from harness.wire.prints import RowPrint, keys_of, leading_system

Issue = tuple[FindingKind, str]


def orphans(rows: Sequence[RowPrint]) -> list[Issue]:
    """A tool result whose call is not in an earlier row of the request
    (``orphan_tool_result``); a tool call no later row answers, unless the call is the
    request's last row (``orphan_tool_call``: a call in the last row is still open)."""
    issues: list[Issue] = []
    called: set[int] = set()
    answered = {row.answers for row in rows if row.answers is not None}
    for index, row in enumerate(rows):
        called.update(row.calls)
        if row.answers is not None and row.answers not in called:
            issues.append(("orphan_tool_result", f"row {index}: its tool call is not before it"))
        if not row.calls:
            continue
        unanswered = [call for call in row.calls if call not in answered]
        if unanswered and index != len(rows) - 1:
            issues.append(
                ("orphan_tool_call", f"row {index}: {len(unanswered)} call(s) never answered")
            )
    return issues


def turn_order(wire: WireKind, rows: Sequence[RowPrint], *, whole: bool = True) -> list[Issue]:
    """Orders a wire refuses. Every wire: a tool result before its call. Gemini: a
    function call must follow a user or function-response turn, and its responses must
    come right after it. Anthropic: the first message is a user message (unless the rows
    are not the ``whole`` history: a provider compaction block may stand first) and two
    assistant messages never follow each other."""
    body = rows[leading_system(rows) :]
    issues = _results_before_calls(body)
    if wire == "gemini":
        issues += _gemini_order(body)
    elif wire == "anthropic":
        issues += _anthropic_order(body, whole=whole)
    return issues


def _results_before_calls(body: Sequence[RowPrint]) -> list[Issue]:
    # A result is judged against the calls before it: Gemini's ids are optional and stand
    # for the function's name, so one name may be called (and answered) in several turns.
    issues: list[Issue] = []
    anywhere = {call for row in body for call in row.calls}
    earlier: set[int] = set()
    for index, row in enumerate(body):
        answers = row.answers
        if answers is not None and answers in anywhere and answers not in earlier:
            issues.append(("turn_order", f"body row {index}: a tool result before its call"))
        earlier.update(row.calls)
    return issues


def _gemini_order(body: Sequence[RowPrint]) -> list[Issue]:
    issues: list[Issue] = []
    for index, row in enumerate(body):
        if not row.calls:
            continue
        if index == 0 or body[index - 1].role not in {"user", "tool"}:
            issues.append(
                ("turn_order", f"body row {index}: a function call not after a user turn")
            )
        follow = body[index + 1 : index + 1 + len(row.calls)]
        answers = {p.answers for p in follow if p.role == "tool"}
        if any(call not in answers for call in row.calls) and index != len(body) - 1:
            issues.append(
                ("turn_order", f"body row {index}: function responses not right after it")
            )
    return issues


def _anthropic_order(body: Sequence[RowPrint], *, whole: bool) -> list[Issue]:
    issues: list[Issue] = []
    if whole and body and body[0].role == "assistant":
        issues.append(("turn_order", "the first message is not a user message"))
    for index in range(1, len(body)):
        if body[index].role == body[index - 1].role == "assistant":
            issues.append(("turn_order", f"body row {index}: two assistant messages in a row"))
    return issues


def system_rows(previous: Sequence[RowPrint], new: Sequence[RowPrint]) -> list[Issue]:
    """The leading system rows against the previous request's: all gone
    (``system_dropped``), or different (``system_changed``)."""
    before = keys_of(previous[: leading_system(previous)])
    after = keys_of(new[: leading_system(new)])
    if before and not after:
        return [("system_dropped", f"{len(before)} system row(s) no longer sent")]
    if before != after and before:
        return [("system_changed", f"{len(before)} system row(s) became {len(after)}")]
    return []


def user_dropped(
    previous: Sequence[RowPrint], new: Sequence[RowPrint], appended: Sequence[RowPrint]
) -> list[Issue]:
    """The current turn's user row is missing: the request opens no turn at all (only
    system, assistant or tool rows), or it continues the previous request's turn (no row
    appended since opens one) without that turn's opening row."""
    body = [row for row in new if not row.is_system and not row.is_breadcrumb]
    if not any(row.opens_turn for row in body):
        return [("user_dropped", "the request carries no user row that opens a turn")]
    if any(row.opens_turn for row in appended):
        return []
    openers = [row.key for row in previous if row.opens_turn and not row.is_breadcrumb]
    if openers and openers[-1] not in {row.key for row in body}:
        return [("user_dropped", "the user row that opened this turn is no longer sent")]
    return []
