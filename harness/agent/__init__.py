"""When the rules run: the structured Agent, the tool loop, the legacy run path, channel
sender caches, route selection, and the client frames."""

from harness.agent.announce import Announcer
from harness.agent.cache_loss import (
    MEASURE_CACHE_LOSS,
    BookkeepingFactory,
    CacheLossBookkeeping,
    NoCacheLossBookkeeping,
    SentRequests,
)
from harness.agent.channel import RESEND_NOTICE, ChannelOrchestrator
from harness.agent.config import DEFAULT_SENDER, Clock, Hook, IdFactory, LoopConfig
from harness.agent.dispatch import ToolMode, to_provider_messages
from harness.agent.legacy import LegacySession, LogSink
from harness.agent.loop import ToolLoop
from harness.agent.routes import HINT_PREFIX, Route, RouteTable
from harness.agent.session import (
    Driver,
    DriverKind,
    SequentialIds,
    SessionSpec,
    TickClock,
    open_agent,
    open_session,
)
from harness.agent.structured import Agent
from harness.agent.tool_execution import run_tool_calls
from harness.agent.tools import Tool, ToolBox, ToolOutput, echo_tool, template_tool
from harness.agent.trim_step import apply_chat_trim, apply_conversation_trim
from harness.agent.turn_state import TurnState
from harness.providers.overflow.classify import Classifier

__all__ = [
    "DEFAULT_SENDER",
    "HINT_PREFIX",
    "MEASURE_CACHE_LOSS",
    "RESEND_NOTICE",
    "Agent",
    "Announcer",
    "BookkeepingFactory",
    "CacheLossBookkeeping",
    "ChannelOrchestrator",
    "Classifier",
    "Clock",
    "Driver",
    "DriverKind",
    "Hook",
    "IdFactory",
    "LegacySession",
    "LogSink",
    "LoopConfig",
    "NoCacheLossBookkeeping",
    "Route",
    "RouteTable",
    "SentRequests",
    "SequentialIds",
    "SessionSpec",
    "TickClock",
    "Tool",
    "ToolBox",
    "ToolLoop",
    "ToolMode",
    "ToolOutput",
    "TurnState",
    "apply_chat_trim",
    "apply_conversation_trim",
    "echo_tool",
    "open_agent",
    "open_session",
    "run_tool_calls",
    "template_tool",
    "to_provider_messages",
]
