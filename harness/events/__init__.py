"""Every event and decision record, and the bus observers sit on.

Events are frozen, slotted dataclasses. Each kind is emitted through exactly one function
of ``harness.agent.announce``; observers ``match`` every kind and end in ``assert_never``.
"""

from harness.events.bus import EventBus, Observer, ObserverFailure
from harness.events.kinds import (
    EVENT_KINDS,
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
    event_kind,
)

__all__ = [
    "EVENT_KINDS",
    "BudgetResolved",
    "CallOutcome",
    "CallPurpose",
    "CapacityChecked",
    "Event",
    "EventBus",
    "HistoryTrimmed",
    "Observer",
    "ObserverFailure",
    "OverflowDetected",
    "ProviderCallFinished",
    "ProviderCallStarted",
    "ProviderContextEdited",
    "RecoveryAttempted",
    "RecoveryOutcome",
    "ToolCallFinished",
    "ToolCallStarted",
    "TrimTrigger",
    "TurnFinished",
    "TurnOutcome",
    "TurnStarted",
    "event_kind",
]
