"""Replays a scenario's requests, as the fakes decoded them, through the wire observer.

A scenario is run with the reference agent against the in-process fakes; each provider
call's rows (``ScenarioRun.requests``, the fakes' own canonical decoding) and status (its
``ProviderCallFinished``) become one exchange of one session (the scenario's id, by the
session header). The answer's rows are not decoded from the fakes' bodies (that is the
decoders' job, tested on their own): a call's answer is the assistant row that follows
the call's last row in a later request, or the turn's final answer for the last call of
a turn (the agent records it as one assistant row).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from harness.events import (
    Event,
    HistoryTrimmed,
    ProviderCallFinished,
    ProviderCallStarted,
    TurnStarted,
)
from harness.runtime import ChatMessage
from harness.scenarios.runner import ScenarioRun, run_scenario
from harness.scenarios.schema import Scenario
from harness.wire import (
    DecodedAnswer,
    DecodedRequest,
    Finding,
    WireExchange,
    WireKind,
    WireObserver,
)
from harness.wire.observer import DEFAULT_SESSION_HEADER

WIRE_OF_KIND: dict[str, WireKind] = {
    "anthropic": "anthropic",
    "gemini": "gemini",
    "openai-responses": "openai_responses",
    "ollama": "ollama",
    "cohere": "cohere",
    "bedrock": "bedrock",
}
"""The wire each provider kind speaks (the others speak OpenAI's chat completions)."""


@dataclass(frozen=True, slots=True)
class ReplayedCall:
    """One provider call: its rows, status, the reference's trims announced before it,
    and the observer's findings of it."""

    index: int
    turn_id: str | None
    rows: tuple[ChatMessage, ...]
    status: int | None
    trims: tuple[HistoryTrimmed, ...]
    findings: tuple[Finding, ...]


def run(scenario: Scenario) -> ScenarioRun:
    return asyncio.run(run_scenario(scenario))


def _calls(events: Sequence[Event]) -> list[tuple[ProviderCallStarted, int | None, bool]]:
    """Each call's start event, status and whether it failed, in call order."""
    finished = {e.call_id: e for e in events if isinstance(e, ProviderCallFinished)}
    out = []
    for event in events:
        if isinstance(event, ProviderCallStarted):
            end = finished.get(event.call_id)
            status = None if end is None else end.status_code
            ok = end is not None and end.outcome.value == "ok"
            out.append((event, status if status is not None else (200 if ok else None), not ok))
    return out


def _trims_before_each_call(events: Sequence[Event]) -> list[tuple[HistoryTrimmed, ...]]:
    out: list[tuple[HistoryTrimmed, ...]] = []
    pending: list[HistoryTrimmed] = []
    for event in events:
        if isinstance(event, HistoryTrimmed):
            pending.append(event)
        elif isinstance(event, ProviderCallStarted):
            out.append(tuple(pending))
            pending = []
    return out


def _answer(
    index: int,
    requests: Sequence[Sequence[ChatMessage]],
    last_of_turn: bool,
    final: str | None,
) -> tuple[ChatMessage, ...]:
    rows = requests[index]
    if rows:
        for later in requests[index + 1 :]:
            for position in range(len(later) - 2, -1, -1):
                if later[position] == rows[-1] and later[position + 1].role == "assistant":
                    return (later[position + 1],)
    if last_of_turn and final is not None:
        return (ChatMessage("assistant", final),)
    return ()


def replay(run: ScenarioRun, observer: WireObserver | None = None) -> list[ReplayedCall]:
    """Feed every call of ``run`` to ``observer`` (a fresh one by default), in order."""
    observer = observer or WireObserver()
    calls = _calls(run.events)
    trims = _trims_before_each_call(run.events)
    turn_ids = [start.turn_id for start, _, _ in calls]
    finals = _turn_answers(run)
    out = []
    for index, (start, status, failed) in enumerate(calls):
        rows = tuple(run.requests[index])
        last_of_turn = index + 1 == len(calls) or turn_ids[index + 1] != start.turn_id
        answer = (
            () if failed else _answer(index, run.requests, last_of_turn, finals.get(start.turn_id))
        )
        exchange = WireExchange(
            wire=WIRE_OF_KIND.get(start.provider_kind, "openai_chat"),
            method="POST",
            path="/v1/chat/completions",
            request_headers={DEFAULT_SESSION_HEADER: run.scenario.id},
            request_body=b"",
            status=status,
        )
        findings = observer.observe_decoded(
            exchange,
            DecodedRequest(model=start.model, rows=rows),
            DecodedAnswer(rows=answer, error_text="failed" if failed else None),
        )
        out.append(ReplayedCall(index, start.turn_id, rows, status, trims[index], findings))
    return out


def _turn_answers(run: ScenarioRun) -> dict[str | None, str | None]:
    """turn id → that turn's final answer (turns in the order they started)."""
    started = [e.turn_id for e in run.events if isinstance(e, TurnStarted)]
    return {turn_id: record.answer for turn_id, record in zip(started, run.turns, strict=False)}
