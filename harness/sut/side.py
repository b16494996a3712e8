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
- embeds the conversation's past, not its present: one of its rows holds the text of an
  earlier user message of the conversation (and is not that message), and none holds the
  current turn's own user message (a request that carries the question it is answering
  is the conversation's) unless the wire already answered the turn: an earlier
  conversation request of the turn carried its question and got a final answer (text, no
  tool call; ``answered``). ADK summarises at the end of an invocation, the turn just
  answered included.

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

SIDE_REQUEST_EVENT: Final = "side_request"


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
        row in earlier or (row.role == "system" and system and system in row.content)
        for row in call.rows
    )


def _embeds_the_past(
    call: Call, earlier_user: Collection[str], question: str, *, answered: bool
) -> bool:
    """Does one row of the request quote an earlier user message (``earlier_user``), and
    none the turn's own ``question`` (unless the turn was ``answered`` already)?"""
    if not answered and question and any(question in row.content for row in call.rows):
        return False
    return any(
        row.content not in earlier_user and any(text in row.content for text in earlier_user)
        for row in call.rows
    )


def side_requests(
    log: SessionLog, reported: Collection[int] = (), answered: Collection[int] = ()
) -> frozenset[int]:
    """The numbers of the session's side requests (empty for most sessions);
    ``reported``: those the runtime announced; ``answered``: the requests whose answer
    was final (text, no tool call)."""
    earlier: set[Row] = set()
    earlier_user: set[str] = set()
    questions = {turn.number: turn.text for turn in log.turns}
    answered_turns: set[int] = set()
    candidates: set[int] = set()
    for call in log.calls:
        if (
            earlier
            and call.rows
            and not call.refused
            and not _carries_conversation(call, log.system, earlier)
            and (
                call.number in reported
                or _embeds_the_past(
                    call,
                    earlier_user,
                    questions.get(call.turn, ""),
                    answered=call.turn in answered_turns,
                )
            )
        ):
            candidates.add(call.number)
            continue
        earlier.update(call.rows)
        earlier_user.update(r.content for r in call.rows if r.role == "user" and r.content)
        question = questions.get(call.turn, "")
        if call.number in answered and any(
            r.role == "user" and question and question in r.content for r in call.rows
        ):
            answered_turns.add(call.turn)
    conversing = {call.turn for call in log.calls if call.number not in candidates}
    return frozenset(c.number for c in log.calls if c.number in candidates and c.turn in conversing)
