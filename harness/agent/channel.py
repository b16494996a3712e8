"""Channel sender caches (spec 12): per-sender row FIFOs in an LRU, fed through the tool
loop. On an overflow (the channel's own, smaller hint list) the sender's cache is compacted
to its last 12 rows and the user is asked to resend."""

from __future__ import annotations

from collections import OrderedDict

from harness.agent.announce import Announcer
from harness.agent.cache_loss import MEASURE_CACHE_LOSS, BookkeepingFactory
from harness.agent.config import DEFAULT_SENDER, Clock, IdFactory, LoopConfig
from harness.agent.dispatch import to_provider_messages
from harness.agent.loop import ToolLoop
from harness.agent.turn_bracket import announced_turn
from harness.agent.turn_state import TurnState
from harness.events import EventBus, TurnOutcome
from harness.providers import ProviderError
from harness.runtime import (
    ChatMessage,
    append_sender_turn,
    compact_sender_history,
)

RESEND_NOTICE = (
    "The conversation got too long for the model's context window, so older messages "
    "were compacted. Please resend your last message."
)
DEFAULT_MAX_SENDERS = 256


class ChannelOrchestrator:
    def __init__(
        self,
        config: LoopConfig,
        *,
        bus: EventBus,
        clock: Clock,
        ids: IdFactory,
        channel: str,
        system_prompt: str | None = None,
        max_senders: int = DEFAULT_MAX_SENDERS,
        cache_loss: BookkeepingFactory = MEASURE_CACHE_LOSS,
    ) -> None:
        self._config = config
        self._cache_loss = cache_loss
        self._ids = ids
        self._bus, self._clock = bus, clock
        self._channel = channel
        self._system = [ChatMessage("system", system_prompt)] if system_prompt else []
        self._max_senders = max_senders
        self.caches: OrderedDict[str, list[ChatMessage]] = OrderedDict()

    def _cache(self, sender: str) -> list[ChatMessage]:
        cache = self.caches.pop(sender, [])
        self.caches[sender] = cache  # most recently used last
        while len(self.caches) > self._max_senders:
            self.caches.popitem(last=False)
        return cache

    def _push(self, sender: str, row: ChatMessage) -> None:
        cap = self._config.profile.max_history_messages
        self.caches[sender] = append_sender_turn(self.caches[sender], row, cap)

    def _is_overflow(self, error: ProviderError) -> bool:
        """The reference channel's own hint list (it lacks the llama.cpp and Z.AI phrases)
        under the ``reference`` classifier; the extended verdict otherwise."""
        return self._config.classifier.decides(error.verdicts, channel=True)

    async def send(
        self, text: str, *, model: str | None = None, sender: str = DEFAULT_SENDER
    ) -> str | None:
        """The ``Driver`` entry point: ``text`` from ``sender`` (a channel serves the
        default route; ``model`` is not a channel's choice and is ignored)."""
        return await self.handle(sender, text)

    def provider_rows(self) -> tuple[list[ChatMessage], bool]:
        """Every sender's cache, in LRU order; a channel keeps no breadcrumb flag."""
        return [row for cache in self.caches.values() for row in cache], False

    async def handle(self, sender: str, text: str) -> str | None:
        self._cache(sender)
        self._push(sender, ChatMessage("user", text))
        announcer = Announcer(
            self._bus, self._clock, f"{self._channel}:{sender}", sent=self._cache_loss()
        )
        announcer.channel, announcer.turn_id = self._channel, self._ids("turn")
        state = TurnState([*self._system, *self.caches[sender]], crumb_present=False)
        routes = self._config.routes
        route = routes.default
        kind = self._config.provider_kind(route)
        async with announced_turn(
            announcer, self._channel, route, routes.model_for(route), text, provider_kind=kind
        ) as tally:
            try:
                await ToolLoop(self._config, announcer, self._ids).run(
                    state, requested_model=None, switched=None
                )
            except ProviderError as error:
                if not self._is_overflow(error):
                    raise
                tally.outcome = TurnOutcome.COMPACTED
                self.caches[sender] = compact_sender_history(self.caches[sender])
                return RESEND_NOTICE
            finally:
                tally.iterations = state.iterations
        # What the turn produced, not the (possibly budget-trimmed) working copy.
        for row in to_provider_messages(state.recorded, self._config.tool_mode):
            self._push(sender, row)
        return state.final_text
