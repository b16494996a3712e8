"""The fake's log as the wire observer's input: its findings for one session.

The exchanges are read back to bytes as ``run`` reads them (``harness.scenarios.
wire_watch.as_wire_exchange``: the request and answer as JSON, a streamed answer as the
events the client received), each under the session's header. Overflow answers are
recognised as the reference's clients recognise them (the ``extended`` classifier).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from fakes.serving.log import Exchange
from harness.providers.overflow.classify import extended_is_overflow
from harness.scenarios.wire_watch import as_wire_exchange
from harness.wire import ObserverConfig, WireDecodeError, WireKind, WireObserver, decode_answer
from harness.wire.model import Finding


def findings(
    wire: WireKind, session: str, exchanges: Sequence[Exchange], side: Collection[int] = ()
) -> list[Finding]:
    """What the observer infers from the session's generation requests, in order
    (``wire`` is the session's; an exchange on another path is not a generation call),
    each finding under its request's 1-based number. The side requests (``side``, their
    numbers: ``harness.sut.side``) are not the conversation: each is read on its own, for
    its order only (``turn_order``), so a summariser's request is neither a trim nor a
    compaction of the history around it."""
    observer = WireObserver(ObserverConfig(is_overflow=extended_is_overflow))
    found: list[Finding] = []
    for number, exchange in enumerate(exchanges, 1):
        read = as_wire_exchange(session, exchange)
        if read is None or read.wire != wire:
            continue
        if number in side:
            alone = WireObserver(ObserverConfig(is_overflow=extended_is_overflow)).observe(read)
            found += [replace(f, call=number) for f in alone if f.kind == "turn_order"]
        else:
            found += [replace(f, call=number) for f in observer.observe(read)]
    return found


def final_answers(wire: WireKind, session: str, exchanges: Sequence[Exchange]) -> frozenset[int]:
    """The 1-based numbers of the requests answered with a final answer: successful, with
    rows, none of them a tool call (what ends a turn on the wire)."""
    found: set[int] = set()
    for number, exchange in enumerate(exchanges, 1):
        read = as_wire_exchange(session, exchange)
        if read is None or read.wire != wire or read.status is None:
            continue
        try:
            answer = decode_answer(wire, read.status, read.response_body, streamed=read.streamed)
        except WireDecodeError:
            continue
        if (
            answer.error_text is None
            and answer.rows
            and not any(
                row.role == "assistant" and '"tool_calls"' in row.content for row in answer.rows
            )
        ):
            found.add(number)
    return frozenset(found)
