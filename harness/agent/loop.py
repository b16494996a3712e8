"""The tool-call loop: when each rule of ``harness.runtime`` runs (spec 9, 10, 8, 3.5).

Per iteration: orphan sweep and system normalisation; route and limits resolved for the
call about to be made; the proactive budget trim (iteration 0, and whenever route, model
or budget changed); hooks; the pre-dispatch capacity check; the call. After a reply that
reports input tokens over budget, the reported-usage trim; on an overflow, reactive
recovery to 2/3 of the current estimate, which uses up an iteration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from harness.agent.announce import Announcer, CallContext, apply_chat_trim
from harness.agent.config import Classifier, LoopConfig
from harness.agent.dispatch import ToolMode
from harness.agent.recording import record_final_answer, record_tool_round, record_user_prompt
from harness.agent.routes import Route
from harness.events import TrimTrigger
from harness.providers import (
    ContextWindowExceeded,
    ProviderError,
    ProviderProtocolError,
    ProviderReply,
    ProviderRequest,
    ProviderServerError,
    ProviderTimeout,
    RateLimited,
)
from harness.runtime import (
    ChatMessage,
    ConversationMessage,
    ResolvedContextLimits,
    TrimResult,
    estimate_history_tokens,
    estimate_system_floor_tokens,
    estimate_tool_schema_tokens,
    is_context_window_exceeded,
    measure_capacity,
    normalize_system_messages,
    remove_orphaned_tool_messages,
    strip_orphaned_tool_calls_from_assistants,
    trim_to_recent_turns,
    trim_to_reported_budget,
)
from harness.runtime.capacity import require_fit
from harness.runtime.constants import (
    MAX_ITERATIONS_SUMMARY_PROMPT,
    REACTIVE_RECOVERY_DENOMINATOR,
    REACTIVE_RECOVERY_NUMERATOR,
)
from harness.runtime.images import request_has_images

IdFactory = Callable[[str], str]


@dataclass(slots=True)
class TurnState:
    """The working history of one turn and what the turn recorded, kept by the caller so
    the error paths still see them."""

    working: list[ChatMessage]
    crumb_present: bool
    recorded: list[ConversationMessage] = field(default_factory=list)
    iterations: int = 0
    last_trim_key: tuple[str, str | None, int] | None = None
    final_text: str | None = None
    hit_iteration_limit: bool = False


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
            call = self._prepare(state, route, with_tools=True)
            try:
                reply = await self._dispatch(state, call, purpose="tool_loop")
            except ProviderError as error:
                if not await self._recover(state, call, error):
                    raise
                continue
            final = not reply.tool_calls
            if final:
                record_final_answer(state, reply.text)
            else:
                await record_tool_round(state, reply, self._config, self._announcer)
            self._enforce_reported_budget(state, call, reply)
            if final:
                return
        state.hit_iteration_limit = True
        await self._finish_after_max_iterations(state, requested_model, switched)

    def _commit(
        self,
        state: TurnState,
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
        swept = remove_orphaned_tool_messages(state.working)
        state.working = normalize_system_messages(swept.history)

    def _select(self, state: TurnState, requested: str | None, switched: Route | None) -> Route:
        return self._config.routes.select(
            switched=switched,
            requested_model=requested,
            has_images=request_has_images(state.working),
        )

    def _prepare(self, state: TurnState, route: Route, *, with_tools: bool) -> _Call:
        routes, profile = self._config.routes, self._config.profile
        model = routes.model_for(route)
        limits = self._limits.get(route)
        if limits is None:
            limits = self._limits[route] = routes.limits(profile, route)
        self._announcer.budget_resolved(route, model, limits)
        if with_tools:
            self._proactive_trim(state, route, model, limits)
        prepared = list(state.working)
        for hook in self._config.hooks:
            prepared = hook(prepared)
        native_tools = with_tools and self._config.tool_mode is ToolMode.NATIVE
        schema = self._tool_schema_tokens() if native_tools else 0
        client = self._config.clients[route.provider]
        context = CallContext(self._ids("call"), route, model, client.provider_kind)
        return _Call(context, limits, schema, prepared)

    def _proactive_trim(
        self, state: TurnState, route: Route, model: str | None, limits: ResolvedContextLimits
    ) -> None:
        budget = limits.context_token_budget
        key = (route.provider, model, budget)
        if budget <= 0 or key == state.last_trim_key:
            return
        state.last_trim_key = key
        result = trim_to_recent_turns(state.working, budget, state.crumb_present)
        if result.trimmed:
            self._commit(state, result, TrimTrigger.PROACTIVE, budget, route, model)

    async def _dispatch(self, state: TurnState, call: _Call, *, purpose: str) -> ProviderReply:
        ctx, window = call.context, call.limits.model_context_window
        check = measure_capacity(call.prepared, call.tool_schema_tokens, window)
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
            ctx, state.iterations, check.estimate, window, state.crumb_present, call.prepared
        )
        return await self._send_with_rate_limit_retries(ctx, request)

    async def _send_with_rate_limit_retries(
        self, ctx: CallContext, request: ProviderRequest
    ) -> ProviderReply:
        client = self._config.clients[ctx.route.provider]
        for attempt in range(self._config.rate_limit_retries + 1):
            started = self._announcer.clock()
            try:
                reply = await client.complete(request)
            except ProviderError as error:
                elapsed = self._announcer.clock() - started
                self._announcer.provider_call_failed(
                    ctx, _outcome_of(error), elapsed, error.error_type, error.status
                )
                last_attempt = attempt == self._config.rate_limit_retries
                # Overflow is judged before rate limiting, as the reference does: under the
                # `reference` classifier a throttle saying "too many tokens" is an overflow.
                if not isinstance(error, RateLimited) or self._acts_on(error) or last_attempt:
                    raise
                await self._config.sleep(error.retry_after_s or 0.0)
                continue
            self._announcer.provider_call_succeeded(ctx, reply, self._announcer.clock() - started)
            return reply
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _verdicts(self, error: ProviderError) -> tuple[bool, bool]:
        reference = is_context_window_exceeded(str(error))
        extended = isinstance(error, ContextWindowExceeded) and error.extended_verdict
        return reference, extended

    def _acts_on(self, error: ProviderError) -> bool:
        """Whether the selected classifier calls ``error`` a context overflow."""
        reference, extended = self._verdicts(error)
        return reference if self._config.classifier is Classifier.REFERENCE else extended

    async def _recover(self, state: TurnState, call: _Call, error: ProviderError) -> bool:
        """Reactive recovery (spec 10): ``True`` when the loop should retry."""
        reference, extended = self._verdicts(error)
        if not (reference or extended):
            return False
        self._announcer.overflow_detected(
            call.context, error, reference=reference, extended=extended
        )
        if not self._acts_on(error):
            return False
        estimate = estimate_history_tokens(state.working)
        target = estimate * REACTIVE_RECOVERY_NUMERATOR // REACTIVE_RECOVERY_DENOMINATOR
        result = trim_to_recent_turns(state.working, target, state.crumb_present)
        floor = estimate_system_floor_tokens(state.working)
        route_budget = call.limits.context_token_budget
        outcome = "retrying"
        if not result.trimmed:
            too_big = floor >= route_budget
            outcome = "context_floor_exceeds_budget" if too_big else "only_one_turn_left"
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
        self._commit(state, result, TrimTrigger.REACTIVE, target, ctx.route, ctx.model)
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
            self._commit(state, result, TrimTrigger.REPORTED_USAGE, budget, ctx.route, ctx.model)

    async def _finish_after_max_iterations(
        self, state: TurnState, requested: str | None, switched: Route | None
    ) -> None:
        """One tools-free summary request; the capacity check applies to it too."""
        state.working = strip_orphaned_tool_calls_from_assistants(state.working).history
        prompt = ChatMessage("user", MAX_ITERATIONS_SUMMARY_PROMPT)
        record_user_prompt(state, prompt)
        route = self._select(state, requested, switched)
        call = self._prepare(state, route, with_tools=False)
        reply = await self._dispatch(state, call, purpose="max_iterations_summary")
        record_final_answer(state, reply.text)


def _outcome_of(error: ProviderError) -> str:
    if isinstance(error, ContextWindowExceeded):
        return "overflow"
    if isinstance(error, RateLimited):
        return "rate_limited"
    if isinstance(error, ProviderServerError):
        return "server_error"
    if isinstance(error, ProviderTimeout):
        return "timeout"
    if isinstance(error, ProviderProtocolError):
        return "protocol_error"
    return "rejected"
