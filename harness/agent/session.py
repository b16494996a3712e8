"""The session seam: one description of a session in, one ready driver out.

Every harness that runs conversations (the scenario runner, the pytest fixtures, load
sessions, the conformance recovery probe) translates its own vocabulary into a
``SessionSpec`` and calls ``open_session``; none builds an ``Agent``, a ``LegacySession``
or a ``ChannelOrchestrator`` itself. The drivers answer one ``Driver`` protocol, so the
code that sends turns never asks which one it holds.

The defaults that make runs reproducible live here, once: ``TickClock`` (a millisecond per
reading) and ``SequentialIds`` (``prefix-n``, numbered per prefix).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from harness.agent.cache_loss import MEASURE_CACHE_LOSS, BookkeepingFactory
from harness.agent.channel import ChannelOrchestrator
from harness.agent.config import DEFAULT_SENDER, Clock, IdFactory, LoopConfig
from harness.agent.legacy import LegacySession, LogSink
from harness.agent.structured import DEFAULT_AGENT_NAME, Agent
from harness.events import EventBus
from harness.runtime import Chat, ChatMessage


class TickClock:
    """Advances a millisecond per reading, so durations and ``at`` stamps are stable."""

    def __init__(self) -> None:
        self._ticks = itertools.count()

    def __call__(self) -> float:
        return next(self._ticks) / 1000.0


class SequentialIds:
    """``prefix-n`` ids, numbered per prefix from 1."""

    def __init__(self) -> None:
        self._counters: dict[str, itertools.count[int]] = {}

    def __call__(self, prefix: str) -> str:
        counter = self._counters.setdefault(prefix, itertools.count(1))
        return f"{prefix}-{next(counter)}"


class DriverKind(StrEnum):
    """Which reference path runs the session (spec 9, 12, 14)."""

    AGENT = "agent"
    LEGACY = "legacy"
    CHANNEL = "channel"


class Driver(Protocol):
    """A conversation the harness can drive, whichever path runs it."""

    async def send(
        self, text: str, *, model: str | None = None, sender: str = DEFAULT_SENDER
    ) -> str | None:
        """Run one user turn; return the final answer, raise the turn's error."""
        ...

    def provider_rows(self) -> tuple[list[ChatMessage], bool]:
        """The provider-facing rows the session holds now, and its breadcrumb flag."""
        ...


def _ignore_logs(message: str, attributes: Mapping[str, object]) -> None:
    """The legacy path's WARN records, when nobody asked for them."""


@dataclass(frozen=True, slots=True)
class SessionSpec:
    """Everything a session needs, described; ``open_session`` builds it.

    ``config`` carries the profile, routes, provider clients (the transport), tools and
    loop options; the rest is the session's own: who emits, on which bus, with which clock
    and ids, through which driver, starting from which system prompt."""

    config: LoopConfig
    bus: EventBus
    session_id: str
    driver: DriverKind = DriverKind.AGENT
    clock: Clock = field(default_factory=TickClock)
    ids: IdFactory = field(default_factory=SequentialIds)
    system_prompt: str | None = None
    agent_name: str = DEFAULT_AGENT_NAME
    alias: str | None = None
    channel: str | None = None
    log: LogSink = _ignore_logs
    cache_loss: BookkeepingFactory = MEASURE_CACHE_LOSS
    """Makes the session's cache-loss bookkeeping (``harness.agent.cache_loss``);
    ``NoCacheLossBookkeeping`` leaves every trim's cache loss unmeasured."""


def open_session(spec: SessionSpec) -> Agent | LegacySession | ChannelOrchestrator:
    """A ready driver for ``spec``, its history holding the system prompt if any."""
    if spec.driver is DriverKind.LEGACY:
        legacy = LegacySession(
            spec.config,
            bus=spec.bus,
            clock=spec.clock,
            ids=spec.ids,
            session_id=spec.session_id,
            log=spec.log,
            cache_loss=spec.cache_loss,
        )
        if spec.system_prompt:
            legacy.history.append(ChatMessage("system", spec.system_prompt))
        return legacy
    if spec.driver is DriverKind.CHANNEL:
        return ChannelOrchestrator(
            spec.config,
            bus=spec.bus,
            clock=spec.clock,
            ids=spec.ids,
            channel=spec.channel or spec.session_id,
            system_prompt=spec.system_prompt,
            cache_loss=spec.cache_loss,
        )
    agent = Agent(
        spec.config,
        bus=spec.bus,
        clock=spec.clock,
        ids=spec.ids,
        session_id=spec.session_id,
        name=spec.agent_name,
        alias=spec.alias,
        channel=spec.channel,
        cache_loss=spec.cache_loss,
    )
    if spec.system_prompt:
        agent.history.append(Chat(ChatMessage("system", spec.system_prompt)))
    return agent


def open_agent(spec: SessionSpec) -> Agent:
    """``open_session`` for callers that need the structured Agent's own controls
    (model switch, seeding); ``spec.driver`` must be ``agent``."""
    driver = open_session(spec)
    if not isinstance(driver, Agent):
        raise TypeError(f"expected an agent session, found driver {spec.driver}")
    return driver
