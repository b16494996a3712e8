"""Synthetic event sequences that follow the agent loop's order contract.

Per session: ``TurnStarted`` → per provider call: ``BudgetResolved`` → optional proactive
``HistoryTrimmed`` → ``CapacityChecked`` (a refusal ends the turn) → ``ProviderCallStarted``
→ ``ProviderCallFinished`` → on overflow ``OverflowDetected`` → ``RecoveryAttempted`` →
optional reactive trim; on success over budget an optional reported-usage trim; then tool
pairs → ... → optional turn-limit trim → ``TurnFinished``. Seeding trims have no turn.

``wire_session`` is what the proxy publishes for a runtime it watches on the wire: the
events ``harness.proxy.events`` makes of the wire observer's findings (``source="wire"``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypedDict

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
)
from harness.proxy.events import events_for_findings
from harness.runtime import BudgetRule, CompactionOutcome, ProviderEditKind, WindowSource
from harness.runtime.constants import REASON_BUDGET, REASON_TURN_LIMIT
from harness.wire import Finding, FindingKind, WireExchange, WireKind

PROVIDER = "fakeai"
KIND = "openai"
MODEL = "gpt-test"
AGENT = "coder"
WINDOW = 8000
BUDGET = 6000
CACHE_LOSS = 1500
"""Tokens each budget trim of the script loses from the cached prefix."""
CACHE_READ = 1024
"""Input tokens each successful call of the script reads from the cache."""
OVERFLOW_CODE = "context_length_exceeded"


class _Common(TypedDict):
    session_id: str
    turn_id: str | None
    at: float


@dataclass
class Script:
    """Emits events for one session with a fake clock (one second per event)."""

    session_id: str = "s1"
    provider: str = PROVIDER
    model: str = MODEL
    events: list[Event] = field(default_factory=list)
    turn_id: str | None = None
    clock: float = 1_000.0
    _turns: int = 0
    _calls: int = 0

    def _base(self) -> _Common:
        self.clock += 1.0
        return {"session_id": self.session_id, "turn_id": self.turn_id, "at": self.clock}

    def _emit(self, event: Event) -> Event:
        self.events.append(event)
        return event

    def turn(self) -> None:
        self._turns += 1
        self.turn_id = f"{self.session_id}-t{self._turns}"
        self._emit(
            TurnStarted(
                **self._base(),
                agent_name=AGENT,
                provider=self.provider,
                model=self.model,
                user_text_bytes=42,
                provider_kind=KIND,
            )
        )

    def end_turn(self, outcome: str = "ok", error_type: str | None = None) -> None:
        self._emit(
            TurnFinished(
                **self._base(),
                outcome=TurnOutcome(outcome),
                iterations=self._calls,
                error_type=error_type,
            )
        )
        self.turn_id = None

    def budget(self, rule: str = "ratio") -> None:
        self._emit(
            BudgetResolved(
                **self._base(),
                provider=self.provider,
                model=self.model,
                model_context_window=WINDOW,
                window_source=WindowSource.CONFIGURED,
                configured_model_context_window=WINDOW,
                budget_tokens=BUDGET,
                rule=BudgetRule(rule),
            )
        )

    def trim(self, trigger: TrimTrigger, dropped_turns: int = 2) -> HistoryTrimmed:
        reason = REASON_TURN_LIMIT if trigger is TrimTrigger.TURN_LIMIT else REASON_BUDGET
        event = HistoryTrimmed(
            **self._base(),
            dropped_messages=3 * dropped_turns,
            kept_turns=4,
            reason=reason,
            dropped_turns=dropped_turns,
            trigger=trigger,
            tokens_before=7000,
            tokens_after=5000,
            budget_tokens=BUDGET,
            provider=self.provider,
            model=self.model,
            cache_loss_tokens=None if trigger is TrimTrigger.TURN_LIMIT else CACHE_LOSS,
        )
        self._emit(event)
        return event

    def capacity(self, estimate: int, *, fits: bool = True) -> None:
        self._emit(
            CapacityChecked(
                **self._base(),
                provider=self.provider,
                model=self.model,
                message_tokens=estimate - 200,
                tool_schema_tokens=200,
                estimate_tokens=estimate,
                model_context_window=WINDOW,
                fits=fits,
                purpose=CallPurpose.TOOL_LOOP,
            )
        )

    def call(
        self,
        estimate: int,
        *,
        compacted: bool = False,
        outcome: str = "ok",
        input_tokens: int | None = None,
        finish: tuple[str, ...] = ("stop",),
        prepared: bool = False,
    ) -> str:
        """A budget → capacity → started → finished round (``prepared``: budget and capacity
        already emitted); returns the call id."""
        if not prepared:
            self.budget()
            self.capacity(estimate)
        self._calls += 1
        call_id = f"{self.session_id}-c{self._calls}"
        self._emit(
            ProviderCallStarted(
                **self._base(),
                call_id=call_id,
                provider=self.provider,
                provider_kind=KIND,
                model=self.model,
                iteration=self._calls,
                estimate_tokens=estimate,
                model_context_window=WINDOW,
                compacted=compacted,
            )
        )
        ok = outcome == "ok"
        self._emit(
            ProviderCallFinished(
                **self._base(),
                call_id=call_id,
                provider=self.provider,
                provider_kind=KIND,
                model=self.model,
                outcome=CallOutcome(outcome),
                duration_s=0.3 if ok else 0.1,
                input_tokens=(input_tokens or estimate) if ok else None,
                output_tokens=50 if ok else None,
                cache_read_input_tokens=CACHE_READ if ok else None,
                finish_reasons=finish if ok else (),
                error_type=None if ok else OVERFLOW_CODE,
                status_code=200 if ok else 400,
            )
        )
        return call_id

    def retried_call(self, estimate: int, outcomes: tuple[str, ...]) -> str:
        """One dispatch, one ``ProviderCallStarted``, then one ``ProviderCallFinished`` per
        attempt (the loop retries a rate limit under the same call id)."""
        call_id = self.call(estimate, prepared=True)
        finished = self.events.pop()
        assert isinstance(finished, ProviderCallFinished)
        for outcome in outcomes:
            ok = outcome == "ok"
            self._emit(
                dataclasses.replace(
                    finished,
                    at=self._base()["at"],
                    outcome=CallOutcome(outcome),
                    input_tokens=estimate if ok else None,
                    output_tokens=50 if ok else None,
                    finish_reasons=("stop",) if ok else (),
                    error_type=None if ok else "rate_limit_exceeded",
                    status_code=200 if ok else 429,
                )
            )
        return call_id

    def overflow(
        self, call_id: str, recovery: str = "retrying", *, reference_verdict: bool = True
    ) -> None:
        self._emit(
            OverflowDetected(
                **self._base(),
                call_id=call_id,
                provider=self.provider,
                provider_kind=KIND,
                status_code=400,
                error_type=OVERFLOW_CODE,
                reference_verdict=reference_verdict,
                extended_verdict=True,
                message="This model's maximum context length is 8000 tokens.",
            )
        )
        self._emit(
            RecoveryAttempted(
                **self._base(),
                call_id=call_id,
                provider=self.provider,
                estimate_tokens=7900,
                target_budget_tokens=5266,
                system_floor_tokens=300,
                route_budget_tokens=BUDGET,
                trimmed=recovery == "retrying",
                outcome=RecoveryOutcome(recovery),
            )
        )

    def provider_edit(
        self,
        call_id: str,
        edit: str,
        *,
        cleared: int | None = None,
        compaction: str | None = None,
        fallback: str | None = None,
        compaction_tokens: tuple[int, int] | None = None,
    ) -> None:
        """An edit the provider reports for ``call_id`` (after its ``ProviderCallFinished``)."""
        self._emit(
            ProviderContextEdited(
                **self._base(),
                call_id=call_id,
                provider=self.provider,
                provider_kind=KIND,
                model=self.model,
                edit=ProviderEditKind(edit),
                wire_type=f"{edit}_wire",
                trigger="input_tokens>4000",
                cleared_items=3 if cleared else None,
                cleared_input_tokens=cleared,
                fallback=fallback,
                compaction=CompactionOutcome(compaction) if compaction else None,
                compaction_input_tokens=compaction_tokens[0] if compaction_tokens else None,
                compaction_output_tokens=compaction_tokens[1] if compaction_tokens else None,
            )
        )

    def tool(self, name: str = "read_file", *, truncated: bool = False) -> None:
        call_id = f"{self.session_id}-tool{len(self.events)}"
        self._emit(ToolCallStarted(**self._base(), call_id=call_id, tool_name=name))
        self._emit(
            ToolCallFinished(
                **self._base(),
                call_id=call_id,
                tool_name=name,
                result_bytes=1000,
                truncated=truncated,
                duration_s=0.01,
            )
        )


def full_turn(script: Script) -> None:
    """Proactive trim, reported-usage trim, a tool, an overflow recovered, provider-side
    edits (a clearing, then a compaction reporting its own usage), a turn-limit trim."""
    script.turn()
    script.budget()
    script.trim(TrimTrigger.PROACTIVE)
    script.capacity(5200)
    script.call(5200, compacted=True, input_tokens=6400, finish=("tool_calls",), prepared=True)
    script.trim(TrimTrigger.REPORTED_USAGE, dropped_turns=1)
    script.tool(truncated=True)
    overflowed = script.call(7900, outcome="overflow")
    script.overflow(overflowed)
    script.trim(TrimTrigger.REACTIVE, dropped_turns=3)
    edited = script.call(5000, compacted=True)
    script.provider_edit(edited, "clear_tool_uses", cleared=1200)
    # the compaction step's own usage (Anthropic's usage iterations)
    script.provider_edit(
        edited, "compaction", compaction="compacted", compaction_tokens=(52_000, 900)
    )
    script.trim(TrimTrigger.TURN_LIMIT, dropped_turns=1)
    script.end_turn()


def refused_turn(script: Script) -> None:
    script.turn()
    script.budget()
    script.capacity(9000, fits=False)
    script.end_turn("error", "ContextCapacityExceeded")


def unrecovered_turn(script: Script) -> None:
    script.turn()
    overflowed = script.call(7990, outcome="overflow")
    script.overflow(overflowed, recovery="only_one_turn_left", reference_verdict=False)
    script.end_turn("error", "ContextWindowExceeded")


def seeding_trim(script: Script) -> None:
    script.trim(TrimTrigger.TURN_LIMIT, dropped_turns=5)


def scripted_session(session_id: str = "s1") -> list[Event]:
    """Every event kind the reference agent emits, every trigger of its loop, a recovered and
    an unrecovered overflow, a refusal."""
    script = Script(session_id=session_id)
    seeding_trim(script)
    full_turn(script)
    refused_turn(script)
    unrecovered_turn(script)
    return script.events


WIRE: WireKind = "anthropic"
WIRE_PROVIDER = "anthropic.proxied"
WIRE_MODEL = "claude-test"
WIRE_OVERFLOW_BODY = (
    b'{"type":"error","error":{"type":"invalid_request_error",'
    b'"message":"prompt is too long: 210000 tokens > 200000 maximum"}}'
)


def _exchange(status: int, body: bytes = b"{}") -> WireExchange:
    return WireExchange(
        wire=WIRE,
        method="POST",
        path="/v1/messages",
        request_headers={"x-trimscope-session": "w"},
        request_body=b"{}",
        status=status,
        response_body=body,
    )


def wire_findings(session_id: str) -> list[tuple[WireExchange, list[Finding]]]:
    """Each exchange of a runtime on the wire and the findings the observer reads there: a
    trim with a broken pair and a cache break, a provider edit, a compaction, an overflow
    that poisons the session, an edit the events have no kind for, a retry after the
    overflow that drops a user row, and an answer the observer cannot read."""

    def finding(call: int, kind: FindingKind, status: int | None = 200, **fields: Any) -> Finding:
        return Finding(session=session_id, call=call, kind=kind, status=status, **fields)

    return [
        (
            _exchange(200),
            [
                finding(2, "trim", dropped_messages=4, dropped_turns=2, kept_turns=3,
                        tokens_before=9000, tokens_after=5000, on_turn_boundary=False),
                finding(2, "orphan_tool_result", detail="toolu_01"),
                finding(2, "cache_break", tokens_before=9000, tokens_after=5000),
            ],
        ),
        (
            _exchange(200),
            [
                finding(3, "provider_edit", detail="clear_tool_uses_20250919"),
                finding(3, "compaction", dropped_messages=10, breadcrumb=True),
            ],
        ),
        (
            _exchange(400, WIRE_OVERFLOW_BODY),
            [finding(4, "overflow", status=400), finding(4, "poisoned_session", status=400)],
        ),
        (_exchange(200), [finding(5, "provider_edit", detail="truncation")]),
        (
            _exchange(200),
            [finding(6, "overflow_retry"), finding(6, "user_dropped", dropped_messages=1)],
        ),
        (_exchange(502, b"<html>"), [finding(7, "unobservable", status=502)]),
    ]  # fmt: skip


def wire_session(session_id: str = "w1") -> list[Event]:
    """The events the proxy publishes for ``wire_findings``, one second per exchange."""
    events: list[Event] = []
    for second, (exchange, findings) in enumerate(wire_findings(session_id), start=100):
        events += events_for_findings(
            exchange, findings, provider=WIRE_PROVIDER, model=WIRE_MODEL, at=float(second)
        )
    return events


def every_kind_session() -> list[Event]:
    """The reference agent's session, then a runtime's on the wire: every event kind."""
    return [*scripted_session(), *wire_session()]
