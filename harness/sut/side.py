"""Side requests: the requests of a session that do not continue its conversation (pure).

A runtime may ask its model things that are not the conversation: LangChain's
``SummarizationMiddleware`` and Google ADK's compaction summariser send the history, as
text, in one request of their own, with no system prompt and no turn of the conversation
as a row. Judged as the conversation's, such a request "loses" the system prompt and the
question; judged apart, it is still checked for ``tool_pairing``, ``within_window`` and
``wire_order``, and it is counted (``docs/sut-protocol.md``, "Side requests").

From the wire alone, a request is a side request when the session made a conversation
request before it and the request

- carries none of the rows of the session's earlier conversation requests (no system
  prompt as sent, no earlier turn, answer or tool row: a conversation request, trimmed or
  not, continues from them), nor a system row holding the session's system prompt, and
- embeds the conversation: one of its rows holds the texts of at least
  ``MIN_EMBEDDED_ROWS`` distinct earlier rows, a user message among them (a transcript),
  and is none of them.

A runtime may also announce one (``{"op":"event","kind":"side_request","call":N}``, ``N``
the 1-based request of the session): the announcement replaces the second condition,
never the first. A turn whose every request would be a side request has none: its
requests are its conversation, so a runtime cannot excuse a turn's only request.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from fakes.rows import Row
from harness.sut.judge import Call, SessionLog

MIN_EMBEDDED_ROWS: Final = 2
"""Distinct earlier rows a row must hold to be a transcript of the conversation."""
SIDE_REQUEST_EVENT: Final = "side_request"
TRANSCRIPT_ROLES: Final = frozenset({"user", "assistant"})


def reported_side_calls(events: Iterable[object]) -> frozenset[int]:
    """The request numbers a runtime announced as side requests (``event`` lines of kind
    ``side_request`` with an integer ``call``; any other shape is ignored)."""
    found: set[int] = set()
    for event in events:
        if getattr(event, "kind", None) != SIDE_REQUEST_EVENT:
            continue
        call = (getattr(event, "model_extra", None) or {}).get("call")
        if isinstance(call, int) and not isinstance(call, bool) and call > 0:
            found.add(call)
    return frozenset(found)


def _carries_conversation(call: Call, system: str | None, earlier: Collection[Row]) -> bool:
    """Does the request carry an earlier conversation row, or the system prompt?"""
    return any(
        row in earlier or (bool(system) and row.role == "system" and system in row.content)
        for row in call.rows
    )


def _embeds_conversation(call: Call, texts: dict[str, str]) -> bool:
    """Does one row of the request hold a transcript of earlier rows (``texts``: each
    earlier user or assistant text and its role)?"""
    for row in call.rows:
        if row.content in texts:
            continue
        held = [text for text in texts if text in row.content]
        if len(held) >= MIN_EMBEDDED_ROWS and any(texts[t] == "user" for t in held):
            return True
    return False


def side_requests(log: SessionLog, reported: Collection[int] = ()) -> frozenset[int]:
    """The numbers of the session's side requests (empty for most sessions)."""
    earlier: set[Row] = set()
    texts: dict[str, str] = {}
    candidates: set[int] = set()
    for call in log.calls:
        if (
            earlier
            and call.rows
            and not call.refused
            and not _carries_conversation(call, log.system, earlier)
            and (call.number in reported or _embeds_conversation(call, texts))
        ):
            candidates.add(call.number)
            continue
        earlier.update(call.rows)
        for row in call.rows:
            if row.role in TRANSCRIPT_ROLES and row.content and not row.content.startswith("{"):
                texts.setdefault(row.content, row.role)
    conversing = {call.turn for call in log.calls if call.number not in candidates}
    return frozenset(c.number for c in log.calls if c.number in candidates and c.turn in conversing)
