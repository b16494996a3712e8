"""The tool-call loop: when each rule of ``harness.runtime`` runs (spec 9, 10, 8, 3.5).

Per iteration: orphan sweep and system normalisation; route and limits resolved for the
call about to be made; the proactive budget trim (iteration 0, and whenever route, model
or budget changed); hooks; the pre-dispatch capacity check; the call. After a reply that
reports input tokens over budget, the reported-usage trim; on an overflow, reactive
recovery to 2/3 of the current estimate, which uses up an iteration. With
``provider_truncation`` the call itself first retries once on the provider wrapper's own
halving of the request (spec 9), below the loop and invisible to it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.agent.announce import Announcer, CallContext
from harness.agent.config import EndpointCompactor, IdFactory, LoopConfig
from harness.agent.dispatch import ToolMode
from harness.agent.endpoint_compaction import compact_or_trim, measure_sent, route_compactor
from harness.agent.recording import record_final_answer, record_tool_round, record_user_prompt
from harness.agent.routes import Route
from harness.agent.tool_execution import run_tool_calls
from harness.agent.trim_step import apply_chat_trim
from harness.agent.turn_state import TurnState
from harness.events import CallOutcome, CallPurpose, RecoveryOutcome, TrimTrigger
from harness.providers import ProviderError, ProviderReply, ProviderRequest, RateLimited
from harness.providers.overflow.failures import CANCELLED_ERROR_TYPE
from harness.runtime import (
    ChatMessage,
    OrphanSweep,
    ResolvedContextLimits,
    TrimResult,
    estimate_history_tokens,
    estimate_system_floor_tokens,
    estimate_tool_schema_tokens,
    normalize_system_messages,
    remove_orphaned_tool_messages,
    strip_orphaned_tool_calls_from_assistants,
    trim_to_recent_turns,
    trim_to_reported_budget,
    truncate_for_context,
)
from harness.runtime.capacity import require_fit
from harness.runtime.constants import (
    MAX_ITERATIONS_SUMMARY_PROMPT,
    REACTIVE_RECOVERY_DENOMINATOR,
    REACTIVE_RECOVERY_NUMERATOR,
)
from harness.runtime.images import request_has_images

sweep_orphans: Callable[[Sequence[ChatMessage]], OrphanSweep] = remove_orphaned_tool_messages
"""The preflight orphan sweep (spec 15). A module attribute only so that the test suite
can disable it once and prove its "no orphan tool rows in any request" invariant fires;
nothing else rebinds it."""


@dataclass(frozen=True, slots=True)
class _Call:
    context: CallContext
    limits: ResolvedContextLimits
    tool_schema_tokens: int
    prepared: list[ChatMessage]


class ToolLoop:
    def __init__(self, config: LoopConfig, announcer: Announcer, ids: IdFactory) -> None:
        self._config = config
        self._announcer = announcer
        self._ids = ids
        self._schema_tokens: int | None = None  # the tools of one turn do not change
        self._limits: dict[Route, ResolvedContextLimits] = {}  # nor does its profile

    def _tool_schema_tokens(self) -> int:
        if self._schema_tokens is None:
            self._schema_tokens = estimate_tool_schema_tokens(self._config.tools.specs)
        return self._schema_tokens

    async def run(
        self, state: TurnState, *, requested_model: str | None, switched: Route | None
    ) -> None:
        """Run until a final answer or the iteration limit; raise the turn's error."""
        max_iterations = self._config.profile.max_tool_iterations
        while state.iterations < max_iterations:
            state.iterations += 1
            self._preflight(state)
            route = self._select(state, requested_model, switched)
            call = await self._prepare(state, route, with_tools=True)
            try:
                reply = await self._dispatch(state, call, purpose=CallPurpose.TOOL_LOOP)
            except ProviderError as error:
                if not await self._recover(state, call, error):
                    raise
                continue
            final = not reply.tool_calls
            if final:
                record_final_answer(state, reply.text)
            else:
                results = await run_tool_calls(reply.tool_calls, self._config, self._announcer)
                record_tool_round(state, reply, results, self._config.tool_mode)
            self._enforce_reported_budget(state, call, reply)
            if final:
                return
        state.hit_iteration_limit = True
        await self._finish_after_max_iterations(state, requested_model, switched)

    def _commit(
        self,
        state: TurnState,
        *,
        result: TrimResult,
        trigger: TrimTrigger,
        budget: int,
        route: Route,
        model: str | None,
    ) -> None:
        """Follow a trim of the working history: breadcrumb, event, owner flag."""
        state.working = apply_chat_trim(
            self._announcer,
            result,
            state.crumb_present,
            trigger=trigger,
            budget_tokens=budget,
            route=route,
            model=model,
        )
        state.crumb_present = True

    def _preflight(self, state: TurnState) -> None:
        swept = sweep_orphans(state.working)
        state.working = normalize_system_messages(swept.history)

    def _select(self, state: TurnState, requested: str | None, switched: Route | None) -> Route:
        return self._config.routes.select(
            switched=switched,
            requested_model=requested,
            has_images=request_has_images(state.working),
        )

    async def _prepare(self, state: TurnState, route: Route, *, with_tools: bool) -> _Call:
        routes, profile = self._config.routes, self._config.profile
        model = routes.model_for(route)
        limits = self._limits.get(route)
        if limits is None:
            limits = self._limits[route] = routes.limits(profile, route)
        self._announcer.budget_resolved(route, model, limits)
        native_tools = with_tools and self._config.tool_mode is ToolMode.NATIVE
        schema = self._tool_schema_tokens() if native_tools else 0
        if with_tools:
            await self._proactive_trim(state, route, model, limits, schema)
        prepared = self._hooked(state.working)
        client = self._config.clients[route.provider]
        context = CallContext(self._ids("call"), route, model, client.provider_kind)
        return _Call(context, limits, schema, prepared)

    def _hooked(self, rows: Sequence[ChatMessage]) -> list[ChatMessage]:
        prepared = list(rows)
        for hook in self._config.hooks:
            prepared = hook(prepared)
        return prepared

    async def _proactive_trim(
        self,
        state: TurnState,
        route: Route,
        model: str | None,
        limits: ResolvedContextLimits,
        schema: int,
    ) -> None:
        budget = limits.context_token_budget
        key = (route.provider, model, budget)
        if budget <= 0 or key == state.last_trim_key:
            return
        state.last_trim_key = key
        compactor = route_compactor(self._config, route)
        if compactor is not None and not await self._trims_after_all(
            compactor, state, route=route, model=model, limits=limits, schema=schema
        ):
            return
        result = trim_to_recent_turns(state.working, budget, state.crumb_present)
        if result.trimmed:
            self._commit(
                state,
                result=result,
                trigger=TrimTrigger.PROACTIVE,
                budget=budget,
                route=route,
                model=model,
            )

    async def _trims_after_all(
        self,
        client: EndpointCompactor,
        state: TurnState,
        *,
        route: Route,
        model: str | None,
        limits: ResolvedContextLimits,
        schema: int,
    ) -> bool:
        """A compacting route decides on what it sends: neither, a compaction, or the
        reference's trim after all (``harness.agent.endpoint_compaction``)."""
        kind = self._config.clients[route.provider].provider_kind
        return await compact_or_trim(
            client,
            self._announcer,
            lambda: CallContext(self._ids("call"), route, model, kind),
            self._hooked(state.working),
            model=model,
            budget=limits.context_token_budget,
            window=limits.model_context_window,
            tool_schema_tokens=schema,
        )

    async def _dispatch(
        self, state: TurnState, call: _Call, *, purpose: CallPurpose
    ) -> ProviderReply:
        ctx, window = call.context, call.limits.model_context_window
        compactor = route_compactor(self._config, ctx.route)
        check = measure_sent(compactor, ctx.model, call.prepared, call.tool_schema_tokens, window)
        self._announcer.capacity_checked(ctx.route, ctx.model, check, purpose)
        require_fit(check)  # the same measurement the event reported
        tools = self._config.tools.specs if call.tool_schema_tokens else None
        request = ProviderRequest(
            ctx.model or "",
            call.prepared,
            tools,
            self._config.max_output_tokens,
            stream=self._config.stream,
        )
        self._announcer.provider_call_started(
            ctx,
            state.iterations,
            check.estimate,
            window,
            state.crumb_present,
            rows=call.prepared,
            # the estimate of exactly these rows, except where a compacting route measured
            # what it sends instead (then the bookkeeping prices the rows itself)
            row_tokens=None if compactor else check.message_tokens,
        )
        reply = await self._send(ctx, request)
        state.final_limits = call.limits
        return reply

    async def _send(self, ctx: CallContext, request: ProviderRequest) -> ProviderReply:
        """One call as the reference's provider wrapper makes it: a rate-limited attempt
        is retried after its wait; with ``provider_truncation``, one overflow per call is
        answered by the wrapper's own truncation of the request's copy of the history
        (spec 9: no breadcrumb, no trim event, the working history untouched)."""
        client = self._config.clients[ctx.route.provider]
        retries_left = self._config.rate_limit_retries
        may_truncate = self._config.provider_truncation
        while True:
            started = self._announcer.clock()
            try:
                reply = await client.complete(request)
            except asyncio.CancelledError:
                # A call in flight when its turn was cancelled (a signal, a deadline) is a
                # call all the same: the server may have answered it, so it is counted.
                elapsed = self._announcer.clock() - started
                self._announcer.provider_call_failed(
                    ctx, CallOutcome.CANCELLED, elapsed, CANCELLED_ERROR_TYPE, None
                )
                raise
            except ProviderError as error:
                elapsed = self._announcer.clock() - started
                self._announcer.provider_call_failed(
                    ctx, CallOutcome(error.counted_as), elapsed, error.error_type, error.status
                )
                # Overflow is judged before rate limiting, as the reference does: under the
                # `reference` classifier a throttle saying "too many tokens" is an overflow.
                if self._acts_on(error):
                    shorter = truncate_for_context(request.messages) if may_truncate else None
                    if shorter is None or not shorter.dropped:
                        raise  # the loop's reactive recovery (spec 10) takes it from here
                    self._announce_overflow(ctx, error)
                    may_truncate = False  # once per call (`context_truncated`)
                    request = dataclasses.replace(request, messages=shorter.history)
                    continue
                if not isinstance(error, RateLimited) or retries_left == 0:
                    raise
                retries_left -= 1
                await self._config.sleep(error.retry_after_s or 0.0)
                continue
            self._announcer.provider_call_succeeded(ctx, reply, self._announcer.clock() - started)
            return reply

    def _acts_on(self, error: ProviderError) -> bool:
        """Whether the configured classifier calls ``error`` a context overflow."""
        return self._config.classifier.decides(error.verdicts)

    def _announce_overflow(self, ctx: CallContext, error: ProviderError) -> bool:
        """``OverflowDetected`` when either classifier calls ``error`` an overflow."""
        verdicts = error.verdicts
        if verdicts.any:
            self._announcer.overflow_detected(
                ctx, error, reference=verdicts.reference, extended=verdicts.extended
            )
        return verdicts.any

    async def _recover(self, state: TurnState, call: _Call, error: ProviderError) -> bool:
        """Reactive recovery (spec 10): ``True`` when the loop should retry."""
        if not self._announce_overflow(call.context, error):
            return False
        if not self._acts_on(error):
            return False
        estimate = estimate_history_tokens(state.working)
        target = estimate * REACTIVE_RECOVERY_NUMERATOR // REACTIVE_RECOVERY_DENOMINATOR
        result = trim_to_recent_turns(state.working, target, state.crumb_present)
        floor = estimate_system_floor_tokens(state.working)
        route_budget = call.limits.context_token_budget
        outcome = RecoveryOutcome.RETRYING
        if not result.trimmed:
            too_big = floor >= route_budget
            outcome = (
                RecoveryOutcome.CONTEXT_FLOOR_EXCEEDS_BUDGET
                if too_big
                else RecoveryOutcome.ONLY_ONE_TURN_LEFT
            )
        self._announcer.recovery_attempted(
            call.context,
            estimate=estimate,
            target=target,
            system_floor=floor,
            route_budget=route_budget,
            trimmed=result.trimmed,
            outcome=outcome,
        )
        if not result.trimmed:
            return False
        ctx = call.context
        self._commit(
            state,
            result=result,
            trigger=TrimTrigger.REACTIVE,
            budget=target,
            route=ctx.route,
            model=ctx.model,
        )
        return True

    def _enforce_reported_budget(self, state: TurnState, call: _Call, reply: ProviderReply) -> None:
        reported = reply.usage.input_tokens
        budget = call.limits.context_token_budget
        if reported is None or budget <= 0 or reported <= budget:
            return
        result = trim_to_reported_budget(
            state.working,
            budget,
            reported,
            # The population the provider counted: the prepared rows *and* the tool
            # schemas, the same units as `reported` (spec 3.5's scaling assumes it).
            estimate_history_tokens(call.prepared) + call.tool_schema_tokens,
            call.tool_schema_tokens,
            state.crumb_present,
        )
        if result.trimmed:
            ctx = call.context
            self._commit(
                state,
                result=result,
                trigger=TrimTrigger.REPORTED_USAGE,
                budget=budget,
                route=ctx.route,
                model=ctx.model,
            )

    async def _finish_after_max_iterations(
        self, state: TurnState, requested: str | None, switched: Route | None
    ) -> None:
        """One tools-free summary request; the capacity check applies to it too."""
        state.working = strip_orphaned_tool_calls_from_assistants(state.working).history
        prompt = ChatMessage("user", MAX_ITERATIONS_SUMMARY_PROMPT)
        record_user_prompt(state, prompt)
        route = self._select(state, requested, switched)
        call = await self._prepare(state, route, with_tools=False)
        reply = await self._dispatch(state, call, purpose=CallPurpose.MAX_ITERATIONS_SUMMARY)
        record_final_answer(state, reply.text)
