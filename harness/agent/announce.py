"""One function per event kind, and the one place that applies a trim.

Every event the agent emits goes through a method of ``Announcer``; every trim goes
through ``apply_chat_trim`` or ``apply_conversation_trim``, which insert the breadcrumb
and emit exactly one ``HistoryTrimmed`` whatever the trigger. (The reference copied this
step to three call sites and they drifted.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from harness.agent.routes import Route
from harness.events import (
    BudgetResolved,
    CapacityChecked,
    Event,
    EventBus,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallFinished,
    ToolCallStarted,
    TrimTrigger,
    TurnFinished,
    TurnStarted,
)
from harness.providers import ProviderError, ProviderReply
from harness.runtime import (
    REASON_BUDGET,
    REASON_TURN_LIMIT,
    CapacityCheck,
    ChatMessage,
    ConversationMessage,
    ResolvedContextLimits,
    TrimResult,
    TurnCountTrimResult,
    insert_breadcrumb_deduped,
    insert_conversation_breadcrumb,
)

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class CallContext:
    """What every event of one provider call shares."""

    call_id: str
    route: Route
    model: str | None
    provider_kind: str


@dataclass(slots=True)
class Announcer:
    """Stamps events with the session, the current turn and the injected clock."""

    bus: EventBus
    clock: Clock
    session_id: str
    agent_alias: str | None = None
    channel: str | None = None
    turn_id: str | None = None

    def _emit(self, kind: type[Event], **fields: Any) -> None:
        """Stamp and publish one event: every kind shares these three fields."""
        self.bus.publish(
            kind(session_id=self.session_id, turn_id=self.turn_id, at=self.clock(), **fields)
        )

    def turn_started(self, agent_name: str, route: Route, model: str | None, text: str) -> None:
        self._emit(
            TurnStarted,
            agent_name=agent_name,
            provider=route.provider,
            model=model,
            user_text_bytes=len(text.encode("utf-8", "surrogatepass")),
        )

    def turn_finished(self, outcome: str, iterations: int, error_type: str | None = None) -> None:
        self._emit(
            TurnFinished,
            outcome=outcome,
            iterations=iterations,
            error_type=error_type,
        )

    def budget_resolved(
        self, route: Route, model: str | None, limits: ResolvedContextLimits
    ) -> None:
        self._emit(
            BudgetResolved,
            provider=route.provider,
            model=model,
            model_context_window=limits.model_context_window,
            window_source=limits.model_context_window_source.value,
            configured_model_context_window=limits.configured_model_context_window,
            budget_tokens=limits.context_token_budget,
            rule=limits.rule.value,
        )

    def capacity_checked(
        self, route: Route, model: str | None, check: CapacityCheck, purpose: str
    ) -> None:
        self._emit(
            CapacityChecked,
            provider=route.provider,
            model=model,
            message_tokens=check.message_tokens,
            tool_schema_tokens=check.tool_schema_tokens,
            estimate_tokens=check.estimate,
            model_context_window=check.model_context_window,
            fits=check.fits,
            purpose=purpose,
        )

    def provider_call_started(
        self, call: CallContext, iteration: int, estimate: int, window: int, compacted: bool
    ) -> None:
        self._emit(
            ProviderCallStarted,
            call_id=call.call_id,
            provider=call.route.provider,
            provider_kind=call.provider_kind,
            model=call.model,
            iteration=iteration,
            estimate_tokens=estimate,
            model_context_window=window,
            compacted=compacted,
        )

    def provider_call_succeeded(
        self, call: CallContext, reply: ProviderReply, duration_s: float
    ) -> None:
        usage = reply.usage
        self._emit(
            ProviderCallFinished,
            call_id=call.call_id,
            provider=call.route.provider,
            provider_kind=call.provider_kind,
            model=reply.model or call.model,
            outcome="ok",
            duration_s=duration_s,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_input_tokens=usage.cache_read_input_tokens,
            cache_creation_input_tokens=usage.cache_creation_input_tokens,
            finish_reasons=(reply.finish_reason,) if reply.finish_reason else (),
            status_code=reply.status_code,
        )
        for edit in reply.provider_edits:
            self._emit(
                ProviderContextEdited,
                call_id=call.call_id,
                provider=call.route.provider,
                provider_kind=call.provider_kind,
                model=reply.model or call.model,
                edit=edit.kind,
                wire_type=edit.wire_type,
                trigger=edit.trigger,
                cleared_items=edit.cleared_items,
                cleared_input_tokens=edit.cleared_input_tokens,
                compaction=edit.compaction,
            )

    def provider_call_failed(
        self,
        call: CallContext,
        outcome: str,
        duration_s: float,
        error_type: str,
        status_code: int | None,
    ) -> None:
        self._emit(
            ProviderCallFinished,
            call_id=call.call_id,
            provider=call.route.provider,
            provider_kind=call.provider_kind,
            model=call.model,
            outcome=outcome,
            duration_s=duration_s,
            error_type=error_type,
            status_code=status_code,
        )

    def overflow_detected(
        self, call: CallContext, error: ProviderError, *, reference: bool, extended: bool
    ) -> None:
        self._emit(
            OverflowDetected,
            call_id=call.call_id,
            provider=call.route.provider,
            provider_kind=call.provider_kind,
            status_code=error.status,
            error_type=error.error_type,
            reference_verdict=reference,
            extended_verdict=extended,
            message=str(error),
        )

    def recovery_attempted(
        self,
        call: CallContext,
        *,
        estimate: int,
        target: int,
        system_floor: int,
        route_budget: int,
        trimmed: bool,
        outcome: str,
    ) -> None:
        self._emit(
            RecoveryAttempted,
            call_id=call.call_id,
            provider=call.route.provider,
            estimate_tokens=estimate,
            target_budget_tokens=target,
            system_floor_tokens=system_floor,
            route_budget_tokens=route_budget,
            trimmed=trimmed,
            outcome=outcome,
        )

    def tool_call_started(self, call_id: str, tool_name: str) -> None:
        self._emit(
            ToolCallStarted,
            call_id=call_id,
            tool_name=tool_name,
        )

    def tool_call_finished(
        self,
        call_id: str,
        tool_name: str,
        *,
        result_bytes: int,
        truncated: bool,
        error_type: str | None,
        duration_s: float,
    ) -> None:
        self._emit(
            ToolCallFinished,
            call_id=call_id,
            tool_name=tool_name,
            result_bytes=result_bytes,
            truncated=truncated,
            error_type=error_type,
            duration_s=duration_s,
        )

    def _history_trimmed(
        self,
        *,
        dropped_messages: int,
        dropped_turns: int,
        kept_turns: int,
        trigger: TrimTrigger,
        tokens: tuple[int, int] | None,
        budget_tokens: int | None,
        route: Route | None,
        model: str | None,
        full_context: bool,
    ) -> None:
        # The reference fills channel/agent alias/turn id only on the Agent's turn-limit
        # trim; the tool-loop paths leave them empty. We keep turn_id on every event (it
        # ties events to spans) and follow the reference for channel and alias.
        self._emit(
            HistoryTrimmed,
            dropped_messages=dropped_messages,
            kept_turns=kept_turns,
            reason=REASON_TURN_LIMIT if trigger is TrimTrigger.TURN_LIMIT else REASON_BUDGET,
            dropped_turns=dropped_turns,
            trigger=trigger,
            tokens_before=tokens[0] if tokens else None,
            tokens_after=tokens[1] if tokens else None,
            budget_tokens=budget_tokens,
            provider=route.provider if route else None,
            model=model,
            channel=self.channel if full_context else None,
            agent_alias=self.agent_alias if full_context else None,
        )


def apply_chat_trim(
    announcer: Announcer | None,
    result: TrimResult,
    crumb_present: bool,
    *,
    trigger: TrimTrigger,
    budget_tokens: int,
    route: Route | None,
    model: str | None,
) -> list[ChatMessage]:
    """Insert the breadcrumb (deduplicated by the owner flag) and announce the trim.

    Call only when ``result.trimmed``; the owner sets its flag to ``True`` afterwards.
    ``announcer=None`` is the legacy interactive path: breadcrumb, but logs only.
    """
    rows = insert_breadcrumb_deduped(result.history, crumb_present)
    if announcer is not None:
        announcer._history_trimmed(
            dropped_messages=result.dropped_messages,
            dropped_turns=result.dropped_turns,
            kept_turns=result.kept_turns,
            trigger=trigger,
            tokens=(result.tokens_before, result.tokens_after),
            budget_tokens=budget_tokens,
            route=route,
            model=model,
            full_context=False,
        )
    return rows


def apply_conversation_trim(
    announcer: Announcer, result: TurnCountTrimResult[ConversationMessage]
) -> list[ConversationMessage]:
    """The Agent's turn-limit trim: re-insert exactly one breadcrumb and announce it."""
    rows = insert_conversation_breadcrumb(result.history)
    announcer._history_trimmed(
        dropped_messages=result.dropped_messages,
        dropped_turns=result.dropped_turns,
        kept_turns=result.kept_turns,
        trigger=TrimTrigger.TURN_LIMIT,
        tokens=None,
        budget_tokens=None,
        route=None,
        model=None,
        full_context=True,
    )
    return rows


@dataclass(slots=True)
class TurnTally:
    """What a turn's ``TurnFinished`` reports; the driver fills it in as the turn runs."""

    outcome: str = "ok"
    iterations: int = 0
    error_type: str | None = None


@asynccontextmanager
async def announced_turn(
    announcer: Announcer, agent_name: str, route: Route, model: str | None, text: str
) -> AsyncIterator[TurnTally]:
    """``TurnStarted`` on entry, ``TurnFinished`` on every exit (success, error, cancel):
    every driver's turn is bracketed the same way, so spans and turn counts see them all."""
    announcer.turn_started(agent_name, route, model, text)
    tally = TurnTally()
    try:
        yield tally
    except asyncio.CancelledError:
        tally.outcome, tally.error_type = "cancelled", "CancelledError"
        raise
    except Exception as exc:
        tally.outcome, tally.error_type = "error", type(exc).__name__
        raise
    finally:
        announcer.turn_finished(tally.outcome, tally.iterations, tally.error_type)
