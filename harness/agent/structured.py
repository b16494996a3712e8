"""The structured Agent (spec 3.3, 9, 11): ``Agent.history`` is a list of
``ConversationMessage``; each turn runs the tool loop on a provider-facing working copy,
then appends what the turn produced and applies the turn limit.

Budget trims (proactive, reported-usage, reactive) act on the working copy only, which is
rebuilt from ``Agent.history`` every turn; the turn limit acts on ``Agent.history`` itself,
after every turn (success, error and cancellation alike) and on seeding.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from harness.agent.announce import Announcer
from harness.agent.cache_loss import MEASURE_CACHE_LOSS, BookkeepingFactory
from harness.agent.config import DEFAULT_SENDER, Clock, IdFactory, LoopConfig
from harness.agent.dispatch import to_provider_messages
from harness.agent.loop import ToolLoop
from harness.agent.routes import Route
from harness.agent.trim_step import apply_conversation_trim
from harness.agent.turn_bracket import announced_turn
from harness.agent.turn_state import TurnState
from harness.events import EventBus, TurnOutcome
from harness.runtime import (
    Chat,
    ChatMessage,
    ConversationMessage,
    ResolvedContextLimits,
    RuntimeProfile,
    effective_max_history_messages,
    trim_conversation_to_recent_turns,
)

DEFAULT_AGENT_NAME = "trimscope"
"""The name a structured Agent reports on ``TurnStarted`` unless given one."""


class Agent:
    def __init__(
        self,
        config: LoopConfig,
        *,
        bus: EventBus,
        clock: Clock,
        ids: IdFactory,
        session_id: str,
        name: str = DEFAULT_AGENT_NAME,
        alias: str | None = None,
        channel: str | None = None,
        cache_loss: BookkeepingFactory = MEASURE_CACHE_LOSS,
    ) -> None:
        self._config = config
        self._ids = ids
        self.name = name
        self.announcer = Announcer(
            bus, clock, session_id, agent_alias=alias, channel=channel, sent=cache_loss()
        )
        self.history: list[ConversationMessage] = []
        self.history_has_trim_breadcrumb = False
        self.switched_route: Route | None = None
        self.final_context_limits: ResolvedContextLimits | None = None
        """The limits of the route that served the last call of the latest turn
        (``None`` when that turn served no call): the ``done`` frame's source."""

    @property
    def config(self) -> LoopConfig:
        return self._config

    def update_profile(self, profile: RuntimeProfile) -> None:
        """Live configuration: limits are read at use time, like a daemon-backed Agent."""
        self._config = dataclasses.replace(self._config, profile=profile)

    def switch_model(self, provider: str, model: str | None) -> None:
        """An explicit session model switch; it changes the route of every later call."""
        self.switched_route = Route(provider, model)

    def clear_history(self) -> None:
        self.history = []
        self.history_has_trim_breadcrumb = False

    def seed_history(self, rows: Sequence[ConversationMessage]) -> None:
        """Seed (restore) a history; the turn limit applies at once (outside any turn)."""
        self.history = list(rows)
        self.history_has_trim_breadcrumb = False
        self.announcer.turn_id = None
        self._apply_turn_limit()

    def seed_conversation_history(self, rows: Sequence[ChatMessage]) -> None:
        self.seed_history([Chat(row) for row in rows])

    def working_history(self) -> list[ChatMessage]:
        return to_provider_messages(self.history, self._config.tool_mode)

    async def turn(self, text: str, *, model: str | None = None) -> str | None:
        """Run one user turn; returns the final answer, raises the turn's error."""
        self.announcer.turn_id = self._ids("turn")
        user_row = ChatMessage("user", text)
        self.history.append(Chat(user_row))
        state = TurnState(self.working_history(), self.history_has_trim_breadcrumb)
        route = self._config.routes.select(
            switched=self.switched_route, requested_model=model, has_images=False
        )
        model_name = self._config.routes.model_for(route)
        kind = self._config.provider_kind(route)
        async with announced_turn(
            self.announcer, self.name, route, model_name, text, provider_kind=kind
        ) as tally:
            try:
                await ToolLoop(self._config, self.announcer, self._ids).run(
                    state, requested_model=model, switched=self.switched_route
                )
                if state.hit_iteration_limit:
                    tally.outcome = TurnOutcome.MAX_ITERATIONS
                return state.final_text
            finally:
                tally.iterations = state.iterations
                self.final_context_limits = state.final_limits
                self.history.extend(state.recorded)
                self._apply_turn_limit()  # on every path, before TurnFinished

    async def send(
        self, text: str, *, model: str | None = None, sender: str = DEFAULT_SENDER
    ) -> str | None:
        """The ``Driver`` entry point: one turn (a structured Agent has no senders)."""
        return await self.turn(text, model=model)

    def provider_rows(self) -> tuple[list[ChatMessage], bool]:
        return self.working_history(), self.history_has_trim_breadcrumb

    def _apply_turn_limit(self) -> None:
        cap = effective_max_history_messages(self._config.profile)
        result = trim_conversation_to_recent_turns(
            self.history, cap, self.history_has_trim_breadcrumb
        )
        if result.trimmed:
            self.history = apply_conversation_trim(self.announcer, result)
            self.history_has_trim_breadcrumb = True
