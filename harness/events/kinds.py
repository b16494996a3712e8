"""The event kinds. Field names follow the reference where it has one (spec 13, 19.6).

Every event carries ``session_id`` and the ``turn_id`` it belongs to (``None`` outside a
turn, e.g. a seeding trim), and ``at``: seconds from the injected clock, so transcripts
are reproducible under a fake clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from harness.runtime import BudgetRule, CompactionOutcome, ProviderEditKind, WindowSource


class TrimTrigger(StrEnum):
    """Which moment of the loop trimmed (decision 19.6)."""

    PROACTIVE = "proactive"
    REPORTED_USAGE = "reported_usage"
    REACTIVE = "reactive"
    TURN_LIMIT = "turn_limit"
    # A trim inferred from a runtime's requests (``harness.wire``): which moment of that
    # runtime's loop trimmed is not visible on the wire, so it is none of the above.
    WIRE = "wire"


class EventSource(StrEnum):
    """Who reported an event: the reference agent's loop, or the wire observer reading a
    runtime's requests through the proxy. Metrics carry it as the ``source`` label."""

    AGENT = "agent"
    WIRE = "wire"


class TurnOutcome(StrEnum):
    """How a turn ended."""

    OK = "ok"
    ERROR = "error"
    CANCELLED = "cancelled"
    MAX_ITERATIONS = "max_iterations"
    COMPACTED = "compacted"  # a channel turn whose overflow compacted the sender's cache


class CallPurpose(StrEnum):
    """Which request a capacity check measured (spec 8)."""

    TOOL_LOOP = "tool_loop"
    MAX_ITERATIONS_SUMMARY = "max_iterations_summary"


class CallOutcome(StrEnum):
    """How one provider attempt ended."""

    OK = "ok"
    OVERFLOW = "overflow"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    CONNECT_ERROR = "connect_error"  # refused or unreachable: nothing was sent
    TIMEOUT = "timeout"
    PROTOCOL_ERROR = "protocol_error"
    REJECTED = "rejected"
    CANCELLED = "cancelled"  # the caller stopped waiting (a signal, a deadline)


class RecoveryOutcome(StrEnum):
    """What reactive recovery did (spec 10, docs/decisions.md)."""

    RETRYING = "retrying"
    CONTEXT_FLOOR_EXCEEDS_BUDGET = "context_floor_exceeds_budget"
    ONLY_ONE_TURN_LEFT = "only_one_turn_left"


@dataclass(frozen=True, slots=True, kw_only=True)
class _Base:
    session_id: str
    turn_id: str | None
    at: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(_Base):
    agent_name: str
    provider: str
    model: str | None
    user_text_bytes: int
    provider_kind: str | None = None
    """The route's client kind (``openai``, ``anthropic``...): what ``gen_ai.provider.name``
    is named from; ``None`` in transcripts written before it was recorded."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnFinished(_Base):
    outcome: TurnOutcome
    iterations: int
    error_type: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetResolved(_Base):
    """The served route's limits, resolved once per call (spec 6, 7)."""

    provider: str
    model: str | None
    model_context_window: int
    window_source: WindowSource
    configured_model_context_window: int | None
    budget_tokens: int
    rule: BudgetRule


@dataclass(frozen=True, slots=True, kw_only=True)
class CapacityChecked(_Base):
    """The pre-dispatch check's operands and verdict (spec 8, decision 19.8)."""

    provider: str
    model: str | None
    message_tokens: int
    tool_schema_tokens: int
    estimate_tokens: int
    model_context_window: int
    fits: bool
    purpose: CallPurpose


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderCallStarted(_Base):
    call_id: str
    provider: str
    provider_kind: str  # wire family, e.g. "openai", "anthropic"
    model: str | None
    iteration: int
    estimate_tokens: int
    model_context_window: int
    compacted: bool  # the request used a trimmed history
    source: EventSource = EventSource.AGENT


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderCallFinished(_Base):
    call_id: str
    provider: str
    provider_kind: str
    model: str | None
    outcome: CallOutcome
    duration_s: float
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    finish_reasons: tuple[str, ...] = ()
    error_type: str | None = None
    status_code: int | None = None
    source: EventSource = EventSource.AGENT


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderContextEdited(_Base):
    """One edit the provider reports having made to a call's context (issue 17): the
    provider-side counterpart of ``HistoryTrimmed``. ``trigger`` is the route's configured
    threshold (``None``: the provider's default); ``compaction`` is set for a compaction
    only, and ``compaction_input_tokens``/``compaction_output_tokens`` when the provider
    reports the compaction step's own usage (Anthropic's ``usage.iterations``: tokens
    billed besides the call's usage). ``fallback`` names what the runtime did instead when
    a compaction it asked for failed (``client_trim``: the proactive trim ran; ``None``
    otherwise)."""

    call_id: str
    provider: str
    provider_kind: str
    model: str | None
    edit: ProviderEditKind
    wire_type: str
    trigger: str | None = None
    cleared_items: int | None = None
    cleared_input_tokens: int | None = None
    compaction: CompactionOutcome | None = None
    compaction_input_tokens: int | None = None
    compaction_output_tokens: int | None = None
    fallback: str | None = None
    source: EventSource = EventSource.AGENT


@dataclass(frozen=True, slots=True, kw_only=True)
class OverflowDetected(_Base):
    """A provider error and what each classifier said of it (decision 19.10)."""

    call_id: str
    provider: str
    provider_kind: str
    status_code: int | None
    error_type: str
    reference_verdict: bool
    extended_verdict: bool
    message: str
    source: EventSource = EventSource.AGENT


@dataclass(frozen=True, slots=True, kw_only=True)
class RecoveryAttempted(_Base):
    """Reactive recovery after an overflow (spec 10); ``outcome`` says what happened."""

    call_id: str
    provider: str
    estimate_tokens: int
    target_budget_tokens: int
    system_floor_tokens: int
    route_budget_tokens: int
    trimmed: bool
    outcome: RecoveryOutcome


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryTrimmed(_Base):
    """One per trim. The first three fields are the reference's; the rest are ours (19.6)."""

    dropped_messages: int
    kept_turns: int
    reason: str
    dropped_turns: int
    trigger: TrimTrigger
    tokens_before: int | None
    tokens_after: int | None
    budget_tokens: int | None
    provider: str | None
    model: str | None
    channel: str | None = None
    agent_alias: str | None = None
    # Cache loss (issue 16): tokens of the route's last sent request that the trimmed
    # history no longer shares as a prefix; ``None`` where it is not measured (turn limit).
    cache_loss_tokens: int | None = None
    source: EventSource = EventSource.AGENT


@dataclass(frozen=True, slots=True, kw_only=True)
class WireFindingObserved(_Base):
    """One finding of the wire observer (``harness.wire.Finding``), for what the reference
    has no event of its own (compactions, broken tool pairs, dropped system or user rows,
    poisoned sessions, cache breaks...); the findings that have one (a trim, an overflow, a
    provider edit) are reported with that event too. ``finding`` is the finding's kind
    (``harness.wire.FINDING_KINDS``; named apart from the transcript's ``kind`` key),
    ``call`` its 1-based call within the session, ``wire`` the wire format it was read
    from (``harness.wire.WIRE_KINDS``). Plain strings: events import no ``harness.wire``."""

    finding: str
    wire: str
    call: int
    status_code: int | None
    provider: str | None = None
    model: str | None = None
    dropped_messages: int | None = None
    dropped_turns: int | None = None
    kept_turns: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    breadcrumb: bool | None = None
    on_turn_boundary: bool | None = None
    detail: str = ""
    source: EventSource = EventSource.WIRE


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallStarted(_Base):
    call_id: str
    tool_name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallFinished(_Base):
    call_id: str
    tool_name: str
    result_bytes: int
    truncated: bool
    error_type: str | None = None
    duration_s: float = 0.0


Event: TypeAlias = (
    TurnStarted
    | TurnFinished
    | BudgetResolved
    | CapacityChecked
    | ProviderCallStarted
    | ProviderCallFinished
    | ProviderContextEdited
    | OverflowDetected
    | RecoveryAttempted
    | HistoryTrimmed
    | WireFindingObserved
    | ToolCallStarted
    | ToolCallFinished
)

EVENT_KINDS: tuple[type[Event], ...] = (
    TurnStarted,
    TurnFinished,
    BudgetResolved,
    CapacityChecked,
    ProviderCallStarted,
    ProviderCallFinished,
    ProviderContextEdited,
    OverflowDetected,
    RecoveryAttempted,
    HistoryTrimmed,
    WireFindingObserved,
    ToolCallStarted,
    ToolCallFinished,
)

_KIND_NAMES = {kind: kind.__name__ for kind in EVENT_KINDS}


def event_kind(event: Event) -> str:
    """The event's kind name, as transcripts and scenario expectations spell it."""
    return _KIND_NAMES[type(event)]
