"""One function per event kind: every event the agent emits is built here.

Each method constructs its event class directly, stamped with the session, the current
turn and the injected clock (``_stamp``, a ``TypedDict``), so a misspelt or mistyped field
is a type error, not a runtime one. Trims are applied and announced by
``harness.agent.trim_step``, the one place that does so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from harness.agent.cache_loss import MEASURE_CACHE_LOSS, CacheLossBookkeeping
from harness.agent.config import ENDPOINT_COMPACTION_WIRE_TYPE, Clock
from harness.agent.routes import Route
from harness.events import (
    BudgetResolved,
    CallOutcome,
    CallPurpose,
    CapacityChecked,
    CompactionOutcome,
    EventBus,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    ProviderEditKind,
    RecoveryAttempted,
    RecoveryOutcome,
    ToolCallFinished,
    ToolCallStarted,
    TrimTrigger,
    TurnFinished,
    TurnOutcome,
    TurnStarted,
)
from harness.providers import ProviderError, ProviderReply, Usage
from harness.runtime import (
    REASON_BUDGET,
    REASON_TURN_LIMIT,
    CapacityCheck,
    ChatMessage,
    ConversationMessage,
    ResolvedContextLimits,
    TrimResult,
    TurnCountTrimResult,
)


class _Stamp(TypedDict):
    """The fields every event kind shares."""

    session_id: str
    turn_id: str | None
    at: float


class _CallStamp(_Stamp):
    """The fields every event of one provider call shares (``CallContext``)."""

    call_id: str
    provider: str
    provider_kind: str


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
    sent: CacheLossBookkeeping = field(default_factory=MEASURE_CACHE_LOSS)  # for cache loss

    def _stamp(self) -> _Stamp:
        """Read the clock once per event, when the event is built."""
        return {"session_id": self.session_id, "turn_id": self.turn_id, "at": self.clock()}

    def _call_stamp(self, call: CallContext) -> _CallStamp:
        """``_stamp`` and the call's id, provider and wire family."""
        return {
            **self._stamp(),
            "call_id": call.call_id,
            "provider": call.route.provider,
            "provider_kind": call.provider_kind,
        }

    def turn_started(
        self,
        agent_name: str,
        route: Route,
        model: str | None,
        text: str,
        provider_kind: str | None = None,
    ) -> None:
        self.bus.publish(
            TurnStarted(
                **self._stamp(),
                agent_name=agent_name,
                provider=route.provider,
                model=model,
                user_text_bytes=len(text.encode("utf-8", "surrogatepass")),
                provider_kind=provider_kind,
            )
        )

    def turn_finished(
        self, outcome: TurnOutcome, iterations: int, error_type: str | None = None
    ) -> None:
        self.bus.publish(
            TurnFinished(
                **self._stamp(),
                outcome=outcome,
                iterations=iterations,
                error_type=error_type,
            )
        )

    def budget_resolved(
        self, route: Route, model: str | None, limits: ResolvedContextLimits
    ) -> None:
        self.bus.publish(
            BudgetResolved(
                **self._stamp(),
                provider=route.provider,
                model=model,
                model_context_window=limits.model_context_window,
                window_source=limits.model_context_window_source,
                configured_model_context_window=limits.configured_model_context_window,
                budget_tokens=limits.context_token_budget,
                rule=limits.rule,
            )
        )

    def capacity_checked(
        self, route: Route, model: str | None, check: CapacityCheck, purpose: CallPurpose
    ) -> None:
        self.bus.publish(
            CapacityChecked(
                **self._stamp(),
                provider=route.provider,
                model=model,
                message_tokens=check.message_tokens,
                tool_schema_tokens=check.tool_schema_tokens,
                estimate_tokens=check.estimate,
                model_context_window=check.model_context_window,
                fits=check.fits,
                purpose=purpose,
            )
        )

    def provider_call_started(
        self,
        call: CallContext,
        iteration: int,
        estimate: int,
        window: int,
        compacted: bool,
        *,
        rows: Sequence[ChatMessage] | None = None,
        row_tokens: int | None = None,
    ) -> None:
        """``rows``: the request's history, remembered for the cache loss of later trims;
        ``row_tokens``: their estimate, when the caller has measured it (else measured)."""
        if rows is not None:
            self.sent.started(call.route.provider, rows, row_tokens)
        self.bus.publish(
            ProviderCallStarted(
                **self._call_stamp(call),
                model=call.model,
                iteration=iteration,
                estimate_tokens=estimate,
                model_context_window=window,
                compacted=compacted,
            )
        )

    def provider_call_succeeded(
        self, call: CallContext, reply: ProviderReply, duration_s: float
    ) -> None:
        usage = reply.usage
        self.sent.succeeded(call.route.provider)
        self.bus.publish(
            ProviderCallFinished(
                **self._call_stamp(call),
                model=reply.model or call.model,
                outcome=CallOutcome.OK,
                duration_s=duration_s,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_input_tokens=usage.cache_read_input_tokens,
                cache_creation_input_tokens=usage.cache_creation_input_tokens,
                finish_reasons=(reply.finish_reason,) if reply.finish_reason else (),
                status_code=reply.status_code,
            )
        )
        for edit in reply.provider_edits:
            self.bus.publish(
                ProviderContextEdited(
                    **self._call_stamp(call),
                    model=reply.model or call.model,
                    edit=edit.kind,
                    wire_type=edit.wire_type,
                    trigger=edit.trigger,
                    cleared_items=edit.cleared_items,
                    cleared_input_tokens=edit.cleared_input_tokens,
                    compaction=edit.compaction,
                    compaction_input_tokens=edit.compaction_input_tokens,
                    compaction_output_tokens=edit.compaction_output_tokens,
                )
            )

    def endpoint_compacted(
        self,
        call: CallContext,
        *,
        trigger: str,
        compacted: bool,
        fallback: str | None = None,
        usage: Usage | None = None,
    ) -> None:
        """A compaction the runtime asked the endpoint for (``/responses/compact``): the
        same event as a compaction the provider reports, with the pass's usage (what it
        read and wrote, billed besides every call's)."""
        self.bus.publish(
            ProviderContextEdited(
                **self._call_stamp(call),
                model=call.model,
                edit=ProviderEditKind.COMPACTION,
                wire_type=ENDPOINT_COMPACTION_WIRE_TYPE,
                trigger=trigger,
                compaction=CompactionOutcome.COMPACTED if compacted else CompactionOutcome.FAILED,
                compaction_input_tokens=usage.input_tokens if usage else None,
                compaction_output_tokens=usage.output_tokens if usage else None,
                fallback=fallback,
            )
        )

    def provider_call_failed(
        self,
        call: CallContext,
        outcome: CallOutcome,
        duration_s: float,
        error_type: str,
        status_code: int | None,
    ) -> None:
        self.bus.publish(
            ProviderCallFinished(
                **self._call_stamp(call),
                model=call.model,
                outcome=outcome,
                duration_s=duration_s,
                error_type=error_type,
                status_code=status_code,
            )
        )

    def overflow_detected(
        self, call: CallContext, error: ProviderError, *, reference: bool, extended: bool
    ) -> None:
        self.bus.publish(
            OverflowDetected(
                **self._call_stamp(call),
                status_code=error.status,
                error_type=error.error_type,
                reference_verdict=reference,
                extended_verdict=extended,
                message=str(error),
            )
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
        outcome: RecoveryOutcome,
    ) -> None:
        self.bus.publish(
            RecoveryAttempted(
                **self._stamp(),
                call_id=call.call_id,
                provider=call.route.provider,
                estimate_tokens=estimate,
                target_budget_tokens=target,
                system_floor_tokens=system_floor,
                route_budget_tokens=route_budget,
                trimmed=trimmed,
                outcome=outcome,
            )
        )

    def tool_call_started(self, call_id: str, tool_name: str) -> None:
        self.bus.publish(
            ToolCallStarted(
                **self._stamp(),
                call_id=call_id,
                tool_name=tool_name,
            )
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
        self.bus.publish(
            ToolCallFinished(
                **self._stamp(),
                call_id=call_id,
                tool_name=tool_name,
                result_bytes=result_bytes,
                truncated=truncated,
                error_type=error_type,
                duration_s=duration_s,
            )
        )

    def history_trimmed(
        self,
        result: TrimResult | TurnCountTrimResult[ConversationMessage],
        *,
        trigger: TrimTrigger,
        budget_tokens: int | None,
        route: Route | None,
        model: str | None,
        full_context: bool,
        cache_loss: int | None = None,
    ) -> None:
        """Announce ``result`` (its counts; its tokens when it is a token-budget trim)."""
        # The reference fills channel/agent alias/turn id only on the Agent's turn-limit
        # trim; the tool-loop paths leave them empty. We keep turn_id on every event (it
        # ties events to spans) and follow the reference for channel and alias.
        tokens = (
            (result.tokens_before, result.tokens_after) if isinstance(result, TrimResult) else None
        )
        self.bus.publish(
            HistoryTrimmed(
                **self._stamp(),
                dropped_messages=result.dropped_messages,
                kept_turns=result.kept_turns,
                reason=REASON_TURN_LIMIT if trigger is TrimTrigger.TURN_LIMIT else REASON_BUDGET,
                dropped_turns=result.dropped_turns,
                trigger=trigger,
                tokens_before=tokens[0] if tokens else None,
                tokens_after=tokens[1] if tokens else None,
                budget_tokens=budget_tokens,
                provider=route.provider if route else None,
                model=model,
                channel=self.channel if full_context else None,
                agent_alias=self.agent_alias if full_context else None,
                cache_loss_tokens=cache_loss,
            )
        )
