"""Synthetic transcripts for report tests: tiny builders with numbers chosen by the test."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from harness.events import (
    BudgetResolved,
    CallOutcome,
    CallPurpose,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    RecoveryAttempted,
    RecoveryOutcome,
    ToolCallFinished,
    ToolCallStarted,
    TrimTrigger,
    TurnFinished,
    TurnOutcome,
    TurnStarted,
    WireFindingObserved,
)
from harness.runtime import BudgetRule, ProviderEditKind, WindowSource
from harness.telemetry.transcript import event_to_record

BUDGET_REASON = "context token budget exceeded"
TURN_REASON = "history turn limit exceeded"


class _Common(TypedDict):
    session_id: str
    turn_id: str | None
    at: float


@dataclass
class Session:
    """Events of one session; each method appends in the loop's order and returns self."""

    session_id: str = "s1"
    provider: str = "fakeai"
    window: int = 8000
    events: list[Event] = field(default_factory=list)
    turn_id: str | None = None
    calls: int = 0
    clock: float = 0.0

    def _common(self) -> _Common:
        self.clock += 0.5
        return {"session_id": self.session_id, "turn_id": self.turn_id, "at": self.clock}

    def turn(self) -> Session:
        self.turn_id = f"{self.session_id}-t{len(self.events)}"
        self.events.append(
            TurnStarted(
                **self._common(),
                agent_name="a",
                provider=self.provider,
                model="m",
                user_text_bytes=5,
            )
        )
        return self

    def end(self, outcome: str = "ok") -> Session:
        self.events.append(
            TurnFinished(**self._common(), outcome=TurnOutcome(outcome), iterations=1)
        )
        self.turn_id = None
        return self

    def budget(self, tokens: int) -> Session:
        self.events.append(
            BudgetResolved(
                **self._common(),
                provider=self.provider,
                model="m",
                model_context_window=self.window,
                window_source=WindowSource.CONFIGURED,
                configured_model_context_window=self.window,
                budget_tokens=tokens,
                rule=BudgetRule.RATIO,
            )
        )
        return self

    def check(self, estimate: int, *, fits: bool = True) -> Session:
        self.events.append(
            CapacityChecked(
                **self._common(),
                provider=self.provider,
                model="m",
                message_tokens=estimate,
                tool_schema_tokens=0,
                estimate_tokens=estimate,
                model_context_window=self.window,
                fits=fits,
                purpose=CallPurpose.TOOL_LOOP,
            )
        )
        return self

    def call(
        self,
        estimate: int,
        *,
        outcome: str = "ok",
        compacted: bool = False,
        cache_read: int | None = None,
        cache_write: int | None = None,
    ) -> Session:
        self.calls += 1
        call_id = f"{self.session_id}-c{self.calls}"
        self.events.append(
            ProviderCallStarted(
                **self._common(),
                call_id=call_id,
                provider=self.provider,
                provider_kind="openai",
                model="m",
                iteration=1,
                estimate_tokens=estimate,
                model_context_window=self.window,
                compacted=compacted,
            )
        )
        self.events.append(
            ProviderCallFinished(
                **self._common(),
                call_id=call_id,
                provider=self.provider,
                provider_kind="openai",
                model="m",
                outcome=CallOutcome(outcome),
                duration_s=0.1,
                input_tokens=estimate if outcome == "ok" else None,
                cache_read_input_tokens=cache_read,
                cache_creation_input_tokens=cache_write,
                finish_reasons=("stop",) if outcome == "ok" else (),
            )
        )
        return self

    def provider_edit(self, edit: str = "clear_tool_uses") -> Session:
        """An edit the provider reports for the latest call."""
        self.events.append(
            ProviderContextEdited(
                **self._common(),
                call_id=f"{self.session_id}-c{self.calls}",
                provider=self.provider,
                provider_kind="anthropic",
                model="m",
                edit=ProviderEditKind(edit),
                wire_type="clear_tool_uses_20250919",
                trigger="tool_uses>3",
                cleared_items=2,
                cleared_input_tokens=900,
            )
        )
        return self

    def wire_finding(self, finding: str = "orphan_tool_result") -> Session:
        """A finding the proxy reports for the latest call (outside any turn)."""
        self.events.append(
            WireFindingObserved(
                session_id=self.session_id,
                turn_id=None,  # the proxy sees requests, not turns
                at=self._common()["at"],
                finding=finding,
                wire="anthropic",
                call=self.calls,
                status_code=200,
                provider=self.provider,
                detail="toolu_01",
            )
        )
        return self

    def overflow(
        self,
        *,
        reference: bool = True,
        extended: bool = True,
        message: str = "maximum context length is 8000 tokens",
    ) -> Session:
        self.events.append(
            OverflowDetected(
                **self._common(),
                call_id=f"{self.session_id}-c{self.calls}",
                provider=self.provider,
                provider_kind="openai",
                status_code=400,
                error_type="context_length_exceeded",
                reference_verdict=reference,
                extended_verdict=extended,
                message=message,
            )
        )
        return self

    def recovery(self, outcome: str = "retrying") -> Session:
        self.events.append(
            RecoveryAttempted(
                **self._common(),
                call_id=f"{self.session_id}-c{self.calls}",
                provider=self.provider,
                estimate_tokens=7900,
                target_budget_tokens=5000,
                system_floor_tokens=100,
                route_budget_tokens=6000,
                trimmed=outcome == "retrying",
                outcome=RecoveryOutcome(outcome),
            )
        )
        return self

    def trim(
        self,
        trigger: TrimTrigger,
        reason: str = BUDGET_REASON,
        dropped: int = 2,
        cache_loss: int | None = None,
    ) -> Session:
        self.events.append(
            HistoryTrimmed(
                **self._common(),
                dropped_messages=dropped,
                kept_turns=3,
                reason=reason,
                dropped_turns=1,
                trigger=trigger,
                tokens_before=7000,
                tokens_after=4000,
                budget_tokens=6000,
                provider=self.provider,
                model="m",
                cache_loss_tokens=cache_loss,
            )
        )
        return self

    def tool(self) -> Session:
        call_id = f"tool-{len(self.events)}"
        self.events.append(ToolCallStarted(**self._common(), call_id=call_id, tool_name="read"))
        self.events.append(
            ToolCallFinished(
                **self._common(),
                call_id=call_id,
                tool_name="read",
                result_bytes=10,
                truncated=False,
            )
        )
        return self


def busy_session(session_id: str = "s1", provider: str = "fakeai") -> Session:
    """Every event kind: budget 6000 then 5000, trims of every trigger of the agent's loop,
    an overflow recovered, a refusal, an overflow not recovered; four calls; then a wire
    finding (the report counts none: telemetry does)."""
    s = Session(session_id=session_id, provider=provider)
    s.trim(TrimTrigger.TURN_LIMIT, TURN_REASON)  # seeding: before call 1 (position 0.5)
    s.turn().budget(6000).trim(TrimTrigger.PROACTIVE).check(5200).call(5200, compacted=True)
    s.trim(TrimTrigger.REPORTED_USAGE).tool()  # position 1.5
    s.budget(6000).check(7900).call(7900, outcome="overflow").overflow().recovery()
    s.trim(TrimTrigger.REACTIVE)  # position 2.5
    s.budget(5000).check(4000).call(4000, compacted=True).provider_edit().end()
    s.turn().budget(5000).check(9000, fits=False).end("error")  # refusal at 3.5
    s.turn().budget(5000).check(7990).call(7990, outcome="overflow")
    s.overflow(reference=False).recovery("only_one_turn_left").end("error")
    return s.wire_finding()


def lines(events: Iterable[Event]) -> list[str]:
    return [json.dumps(event_to_record(event), ensure_ascii=False) for event in events]


def write(path: Path, *sessions: Session, interleave: bool = False) -> Path:
    """One transcript file holding the sessions (``interleave``: events alternate)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if interleave:
        queues = [list(s.events) for s in sessions]
        events: list[Event] = []
        while any(queues):
            for q in queues:
                if q:
                    events.append(q.pop(0))
    else:
        events = [event for s in sessions for event in s.events]
    path.write_text("".join(line + "\n" for line in lines(events)), encoding="utf-8")
    return path
