"""Every event and decision record, and the bus observers sit on.

Events are frozen, slotted dataclasses. Each kind the agent emits goes through exactly one
function of ``harness.agent.announce``; the events of a runtime seen on the wire
(``source="wire"``) are built by ``harness.proxy.events`` only. Observers ``match`` every
kind and end in ``assert_never``.
"""

from harness.events.bus import EventBus, Observer, ObserverFailure
from harness.events.fields import ENUM_FIELDS
from harness.events.kinds import (
    EVENT_KINDS,
    BudgetResolved,
    CallOutcome,
    CallPurpose,
    CapacityChecked,
    Event,
    EventSource,
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
    WireFindingObserved,
    event_kind,
)
from harness.runtime import CompactionOutcome, ProviderEditKind

__all__ = [
    "ENUM_FIELDS",
    "EVENT_KINDS",
    "BudgetResolved",
    "CallOutcome",
    "CallPurpose",
    "CapacityChecked",
    "CompactionOutcome",
    "Event",
    "EventBus",
    "EventSource",
    "HistoryTrimmed",
    "Observer",
    "ObserverFailure",
    "OverflowDetected",
    "ProviderCallFinished",
    "ProviderCallStarted",
    "ProviderContextEdited",
    "ProviderEditKind",
    "RecoveryAttempted",
    "RecoveryOutcome",
    "ToolCallFinished",
    "ToolCallStarted",
    "TrimTrigger",
    "TurnFinished",
    "TurnOutcome",
    "TurnStarted",
    "WireFindingObserved",
    "event_kind",
]
