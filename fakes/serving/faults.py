"""Scripted faults: the answers that replace a reply (5xx, 429, look-alikes) and the ones
that change how a reply is delivered (malformed JSON, a dropped connection, a hang)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from fakes.catalogue import look_alike
from fakes.scripting.fault_rates import FaultRates
from fakes.scripting.script import FakeBehaviour, Fault
from fakes.scripting.templates import render
from fakes.serving.answer import Answer, json_bytes
from fakes.wire.base import ErrorKind, WireFormat

SERVER_ERROR_TEXT = "The server had an error while processing your request. Sorry about that!"


def fault_answer(wire: WireFormat, fault: Fault, numbers: Mapping[str, object]) -> Answer:
    """The answer of a ``server_error``, ``rate_limit`` or ``look_alike`` fault."""
    if fault.kind == "look_alike":
        entry = look_alike(fault.name or "")
        headers = {k: v.format_map(numbers) for k, v in entry.headers.items()}
        return Answer(
            entry.status,
            render(entry.body, numbers),
            headers,
            outcome="fault",
            fault=f"look_alike:{entry.name}",
        )
    if fault.kind == "rate_limit":
        body = wire.error(
            429,
            "rate_limit",
            f"Rate limit reached for requests. Please try again in {fault.retry_after}s.",
        )
        headers = {**wire.error_headers("rate_limit"), "retry-after": str(fault.retry_after)}
        return Answer(429, body, headers, outcome="fault", fault="rate_limit")
    kind: ErrorKind = "overloaded" if fault.status in (503, 529) else "server_error"
    message = "Overloaded" if kind == "overloaded" else SERVER_ERROR_TEXT
    return Answer(
        fault.status,
        wire.error(fault.status, kind, message),
        wire.error_headers(kind),
        outcome="fault",
        fault="server_error",
    )


def with_drawn_fault(
    behaviour: FakeBehaviour, rates: FaultRates | None, index: int
) -> FakeBehaviour:
    """Call ``index``'s behaviour with the fault its rates draw (``fakes.scripting.fault_rates``); a
    step that scripts a fault keeps it."""
    if rates is None or behaviour.fault is not None:
        return behaviour
    kind = rates.kind_for(index)
    if kind is None:
        return behaviour
    fault = Fault(kind, rates.status, rates.retry_after, rates.hang_seconds)
    return replace(behaviour, fault=fault)


def shape(answer: Answer, fault: Fault) -> Answer:
    """Apply a delivery fault (``malformed_json``, ``drop_mid_stream``, ``hang``)."""
    if fault.kind == "hang":
        return replace(answer, hang_seconds=fault.seconds, fault="hang")
    if fault.kind == "malformed_json":
        if answer.events is not None:
            broken = json_bytes(answer.events[0].data)[:-1].decode("utf-8", "ignore")
            events = (replace(answer.events[0], data=broken, literal=True),)
            return replace(answer, events=events, fault="malformed_json")
        raw = json_bytes(answer.body)
        return replace(answer, raw=raw[: len(raw) // 2], fault="malformed_json")
    if fault.kind == "drop_mid_stream":
        if answer.events is not None:
            keep = fault.after_events if fault.after_events is not None else len(answer.events) // 2
            return replace(
                answer, drop_after=min(keep, len(answer.events) - 1), fault="drop_mid_stream"
            )
        return replace(
            answer, drop_after=len(json_bytes(answer.body)) // 2, fault="drop_mid_stream"
        )
    return answer
