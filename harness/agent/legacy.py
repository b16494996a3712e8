"""The legacy ``agent::run`` path (spec 14): a provider-facing history, the same tool loop,
then the count-based ``trim_history`` after each turn, reported through logs only.

Its outer loop recovers from an overflow that escapes the tool loop by trimming to 90% of
the served route's window (spec 17.1) and inserting the breadcrumb (deduplicated by the
owner flag); that too is logged, never announced (decision 19.1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from harness.agent.announce import Announcer
from harness.agent.cache_loss import MEASURE_CACHE_LOSS, BookkeepingFactory
from harness.agent.config import DEFAULT_SENDER, Clock, IdFactory, LoopConfig
from harness.agent.loop import ToolLoop
from harness.agent.trim_step import apply_chat_trim
from harness.agent.turn_bracket import TurnTally, announced_turn
from harness.agent.turn_state import TurnState
from harness.events import EventBus, TrimTrigger, TurnOutcome
from harness.providers import ProviderError
from harness.runtime import (
    ChatMessage,
    effective_max_history_messages,
    interactive_context_recovery_budget,
    trim_history,
    trim_to_recent_turns,
)
from harness.runtime.legacy import LEGACY_TRIM_LOG_MESSAGE

LogSink = Callable[[str, Mapping[str, object]], None]
"""Receives the WARN records of the legacy path: ``(message, attributes)``."""

LEGACY_AGENT_NAME = "trimscope-legacy"
OUTER_RECOVERY_LOG_MESSAGE = "Context overflow: dropped oldest whole turns, retrying the turn"


class LegacySession:
    def __init__(
        self,
        config: LoopConfig,
        *,
        bus: EventBus,
        clock: Clock,
        ids: IdFactory,
        session_id: str,
        log: LogSink,
        cache_loss: BookkeepingFactory = MEASURE_CACHE_LOSS,
    ) -> None:
        self._config = config
        self._ids = ids
        self._log = log
        self.announcer = Announcer(bus, clock, session_id, sent=cache_loss())
        self.history: list[ChatMessage] = []
        self.history_has_trim_breadcrumb = False

    def _is_overflow(self, error: ProviderError) -> bool:
        return self._config.classifier.decides(error.verdicts)

    async def run_turn(self, text: str, *, model: str | None = None) -> str | None:
        """One interactive turn, with one outer-loop retry after an overflow."""
        self.announcer.turn_id = self._ids("turn")
        self.history.append(ChatMessage("user", text))
        routes = self._config.routes
        route = routes.select(switched=None, requested_model=model, has_images=False)
        kind = self._config.provider_kind(route)
        async with announced_turn(
            self.announcer,
            LEGACY_AGENT_NAME,
            route,
            routes.model_for(route),
            text,
            provider_kind=kind,
        ) as tally:
            try:
                return await self._attempt(model, tally, allow_outer_recovery=True)
            finally:
                self._trim_after_turn()

    async def send(
        self, text: str, *, model: str | None = None, sender: str = DEFAULT_SENDER
    ) -> str | None:
        """The ``Driver`` entry point: one interactive turn (no senders here)."""
        return await self.run_turn(text, model=model)

    def provider_rows(self) -> tuple[list[ChatMessage], bool]:
        return list(self.history), self.history_has_trim_breadcrumb

    async def _attempt(
        self, model: str | None, tally: TurnTally, *, allow_outer_recovery: bool
    ) -> str | None:
        state = TurnState(list(self.history), self.history_has_trim_breadcrumb)
        try:
            await ToolLoop(self._config, self.announcer, self._ids).run(
                state, requested_model=model, switched=None
            )
        except ProviderError as error:
            self.history, self.history_has_trim_breadcrumb = state.working, state.crumb_present
            tally.iterations += state.iterations
            if allow_outer_recovery and self._is_overflow(error) and self._outer_recovery(model):
                return await self._attempt(model, tally, allow_outer_recovery=False)
            raise
        self.history, self.history_has_trim_breadcrumb = state.working, state.crumb_present
        tally.iterations += state.iterations
        if state.hit_iteration_limit:
            tally.outcome = TurnOutcome.MAX_ITERATIONS
        return state.final_text

    def _outer_recovery(self, model: str | None) -> bool:
        routes = self._config.routes
        route = routes.select(switched=None, requested_model=model, has_images=False)
        window = routes.limits(self._config.profile, route).model_context_window
        budget = interactive_context_recovery_budget(window)
        result = trim_to_recent_turns(self.history, budget, self.history_has_trim_breadcrumb)
        if not result.trimmed:
            return False
        self.history = apply_chat_trim(
            None,
            result,
            self.history_has_trim_breadcrumb,
            trigger=TrimTrigger.REACTIVE,
            budget_tokens=budget,
            route=route,
            model=routes.model_for(route),
        )
        self.history_has_trim_breadcrumb = True
        self._log(
            OUTER_RECOVERY_LOG_MESSAGE,
            {
                "dropped_messages": result.dropped_messages,
                "kept_turns": result.kept_turns,
                "budget_tokens": budget,
                "model_context_window": window,
            },
        )
        return True

    def _trim_after_turn(self) -> None:
        cap = effective_max_history_messages(self._config.profile)
        result = trim_history(self.history, cap, self.history_has_trim_breadcrumb)
        if result.trimmed:
            self.history = result.history
            self._log(LEGACY_TRIM_LOG_MESSAGE, result.log_attributes())
