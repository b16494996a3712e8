"""What a report shows, computed from events alone (no I/O, no HTML).

Sessions are keyed by (transcript file, ``session_id``) in order of first appearance, so a
file may hold several sessions and two files may reuse an id without being merged.

Positions on a session's x axis: provider call *k* (1-based, in the order its
``ProviderCallStarted`` was recorded) sits at ``k``; anything recorded between calls *k*
and *k + 1* (a trim, a capacity refusal, a recovery) sits at ``k + 0.5``, so a trim before
the first call sits at ``0.5``. A call's budget is the last ``BudgetResolved`` recorded in
its session before it (the loop resolves one per call); its window is the call's own
``model_context_window``. An overflow belongs to the call its ``call_id`` names; what is
counted as one is ``harness.report.overflows``'s to say.

A session is *incomplete* when a signal stopped it (an ``interrupted`` line names it) or
when a turn of it started and never finished (the process died). Incomplete sessions are
drawn, labelled, but the totals count complete sessions only: a half-run session would
otherwise pass for a real one with fewer trims.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import assert_never

from harness.events import (
    BudgetResolved,
    CapacityChecked,
    Event,
    HistoryTrimmed,
    OverflowDetected,
    ProviderCallFinished,
    ProviderCallStarted,
    ProviderContextEdited,
    RecoveryAttempted,
    ToolCallFinished,
    ToolCallStarted,
    TrimTrigger,
    TurnFinished,
    TurnStarted,
    WireFindingObserved,
)
from harness.report.overflows import OverflowCounts, OverflowKind, overflow_counts, overflow_kind
from harness.telemetry.transcript import InterruptedMark


@dataclass(slots=True)
class Call:
    index: int
    call_id: str
    turn_id: str | None
    provider: str
    model: str | None
    estimate_tokens: int
    budget_tokens: int | None
    window_tokens: int
    compacted: bool
    outcome: str | None = None  # from ProviderCallFinished; None when it never finished
    input_tokens: int | None = None
    overflow: OverflowDetected | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Trim:
    position: float
    event: HistoryTrimmed


@dataclass(frozen=True, slots=True)
class Refusal:
    position: float
    event: CapacityChecked


@dataclass(frozen=True, slots=True)
class Recovery:
    position: float
    event: RecoveryAttempted


@dataclass(slots=True)
class Session:
    source: Path
    session_id: str
    calls: list[Call] = field(default_factory=list)
    trims: list[Trim] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    recoveries: list[Recovery] = field(default_factory=list)
    overflows: list[OverflowDetected] = field(default_factory=list)
    overflow_kinds: list[OverflowKind] = field(default_factory=list)
    """The kind of each of ``overflows``, in the same order."""
    overflow_answers: Counter[str] = field(default_factory=Counter)
    """Attempts that ended ``overflow``, by provider."""
    turns: int = 0
    turn_outcomes: Counter[str] = field(default_factory=Counter)
    tool_calls: int = 0
    providers: dict[str, None] = field(default_factory=dict)  # ordered set
    events: int = 0
    interrupted_by: str | None = None  # the signal an ``interrupted`` line names
    _open_turns: int = 0
    _budget: int | None = None
    _by_call_id: dict[str, Call] = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """Where an event recorded now sits: after the last call started."""
        return len(self.calls) + 0.5

    @property
    def incomplete(self) -> str | None:
        """Why the session is incomplete, or ``None`` when it ended."""
        if self.interrupted_by is not None:
            return f"interrupted by {self.interrupted_by}"
        if self._open_turns:
            return "a turn never finished (the run stopped mid-turn)"
        return None

    @property
    def notable(self) -> bool:
        return bool(self.trims or self.refusals or self.overflows)

    def add(self, event: Event) -> None:
        self.events += 1
        match event:
            case TurnStarted() | TurnFinished() | ToolCallStarted() | ToolCallFinished():
                self._on_turn(event)
            case BudgetResolved() | CapacityChecked() | HistoryTrimmed():
                self._on_decision(event)
            case (
                ProviderCallStarted()
                | ProviderCallFinished()
                | OverflowDetected()
                | RecoveryAttempted()
            ):
                self._on_call(event)
            case ProviderContextEdited() | WireFindingObserved():
                pass  # provider edits and wire findings are counted by telemetry; no table yet
            case _:
                assert_never(event)

    def _on_turn(
        self, event: TurnStarted | TurnFinished | ToolCallStarted | ToolCallFinished
    ) -> None:
        match event:
            case TurnStarted():
                self.turns += 1
                self._open_turns += 1
                self.providers.setdefault(event.provider, None)
            case TurnFinished():
                self.turn_outcomes[event.outcome] += 1
                self._open_turns = max(0, self._open_turns - 1)
            case ToolCallStarted():
                self.tool_calls += 1
            case ToolCallFinished():
                pass  # counted at its start
            case _:
                assert_never(event)

    def _on_decision(self, event: BudgetResolved | CapacityChecked | HistoryTrimmed) -> None:
        match event:
            case BudgetResolved():
                self._budget = event.budget_tokens
            case CapacityChecked():
                if not event.fits:
                    self.refusals.append(Refusal(self.gap, event))
            case HistoryTrimmed():
                self.trims.append(Trim(self.gap, event))
            case _:
                assert_never(event)

    def _on_call(
        self,
        event: ProviderCallStarted | ProviderCallFinished | OverflowDetected | RecoveryAttempted,
    ) -> None:
        match event:
            case ProviderCallStarted():
                self._start(event)
            case ProviderCallFinished():
                call = self._by_call_id.get(event.call_id)
                if event.outcome == "overflow":
                    self.overflow_answers[event.provider] += 1
                if call is not None:
                    call.outcome, call.input_tokens = event.outcome, event.input_tokens
                    call.cache_read_tokens = event.cache_read_input_tokens
                    call.cache_write_tokens = event.cache_creation_input_tokens
            case OverflowDetected():
                self.overflows.append(event)
                overflowed = self._by_call_id.get(event.call_id)
                if overflowed is not None:
                    overflowed.overflow = event
                # the attempt it follows has finished: its outcome says what it was
                outcome = None if overflowed is None else overflowed.outcome or "unfinished"
                self.overflow_kinds.append(overflow_kind(event, outcome))
            case RecoveryAttempted():
                self.recoveries.append(Recovery(self.gap, event))
            case _:
                assert_never(event)

    def _start(self, event: ProviderCallStarted) -> None:
        call = Call(
            index=len(self.calls) + 1,
            call_id=event.call_id,
            turn_id=event.turn_id,
            provider=event.provider,
            model=event.model,
            estimate_tokens=event.estimate_tokens,
            budget_tokens=self._budget,
            window_tokens=event.model_context_window,
            compacted=event.compacted,
        )
        self.calls.append(call)
        self._by_call_id[event.call_id] = call
        self.providers.setdefault(event.provider, None)


def sessions_of(
    source: Path, events: Iterable[Event], interruptions: Iterable[InterruptedMark] = ()
) -> list[Session]:
    """The sessions of one transcript file, in order of their first event, each marked
    with the ``interrupted`` line that names it (a mark naming no recorded session is a
    file-level note, see ``compose``)."""
    found: dict[str, Session] = {}
    for event in events:
        session = found.get(event.session_id)
        if session is None:
            session = found[event.session_id] = Session(source, event.session_id)
        session.add(event)
    for mark in interruptions:
        if mark.session_id is not None and mark.session_id in found:
            found[mark.session_id].interrupted_by = mark.signal
    return list(found.values())


@dataclass(frozen=True, slots=True)
class OverflowTally:
    count: int
    """``OverflowDetected`` events: errors a classifier called an overflow."""
    reference_recognised: int
    extended_recognised: int
    answers: int = 0
    """Attempts that ended ``overflow``."""
    look_alikes: int = 0


@dataclass(frozen=True, slots=True)
class CacheTally:
    """Reported input tokens and what the provider cache did with them; cache loss of the
    trims by trigger (``HistoryTrimmed.cache_loss_tokens``, where measured)."""

    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cache_loss_by_trigger: dict[str, int]

    @property
    def hit_ratio(self) -> float | None:
        return self.cache_read_tokens / self.input_tokens if self.input_tokens else None


@dataclass(frozen=True, slots=True)
class Totals:
    """The run's totals, over every session of every file."""

    files: int
    sessions: int  # complete ones only: see the module docstring
    turns: int
    calls: int
    compacted_calls: int
    tool_calls: int
    call_outcomes: dict[str, int]
    trims_by_trigger: dict[str, int]  # every trigger, zero included
    trims_by_reason: dict[str, dict[str, int]]  # reason → trigger → count
    dropped_messages: int
    recoveries_by_outcome: dict[str, int]
    refusals: int
    refusals_by_purpose: dict[str, int]
    overflows_by_provider: dict[str, OverflowTally]
    incomplete_sessions: int = 0
    overflow_kinds: list[OverflowKind] = field(default_factory=list)
    cache: CacheTally = field(default_factory=lambda: CacheTally(0, 0, 0, {}))

    @property
    def trims(self) -> int:
        return sum(self.trims_by_trigger.values())

    @property
    def recoveries(self) -> int:
        return sum(self.recoveries_by_outcome.values())

    @property
    def overflows(self) -> int:
        """Overflow answers (``harness.report.overflows``), not classifier events."""
        return self.overflow_counts.answers

    @property
    def overflow_counts(self) -> OverflowCounts:
        answers = sum(tally.answers for tally in self.overflows_by_provider.values())
        return overflow_counts(answers, self.overflow_kinds)


def totals_of(every: Sequence[Session], files: int) -> Totals:
    """Totals over the complete sessions of ``every``; the incomplete ones are counted apart."""
    sessions = [session for session in every if session.incomplete is None]
    trims = [trim.event for session in sessions for trim in session.trims]
    by_trigger = {trigger.value: 0 for trigger in TrimTrigger}
    by_trigger.update(Counter(trim.trigger.value for trim in trims))
    by_reason: dict[str, dict[str, int]] = {}
    for trim in trims:
        row = by_reason.setdefault(trim.reason, {trigger.value: 0 for trigger in TrimTrigger})
        row[trim.trigger.value] += 1
    calls = [call for session in sessions for call in session.calls]
    refusals = [refusal.event for session in sessions for refusal in session.refusals]
    by_provider = _overflows_by_provider(sessions)
    return Totals(
        files=files,
        sessions=len(sessions),
        turns=sum(session.turns for session in sessions),
        calls=len(calls),
        compacted_calls=sum(call.compacted for call in calls),
        tool_calls=sum(session.tool_calls for session in sessions),
        call_outcomes=dict(Counter(call.outcome or "unfinished" for call in calls)),
        trims_by_trigger=by_trigger,
        trims_by_reason=by_reason,
        dropped_messages=sum(trim.dropped_messages for trim in trims),
        recoveries_by_outcome=dict(
            Counter(r.event.outcome for session in sessions for r in session.recoveries)
        ),
        refusals=len(refusals),
        refusals_by_purpose=dict(Counter(refusal.purpose for refusal in refusals)),
        overflows_by_provider=by_provider,
        incomplete_sessions=len(every) - len(sessions),
        overflow_kinds=[kind for session in sessions for kind in session.overflow_kinds],
        cache=_cache_tally(calls, trims),
    )


def _overflows_by_provider(sessions: Sequence[Session]) -> dict[str, OverflowTally]:
    events = [
        (event, kind)
        for session in sessions
        for event, kind in zip(session.overflows, session.overflow_kinds, strict=True)
    ]
    answers: Counter[str] = Counter()
    for session in sessions:
        answers.update(session.overflow_answers)
    by_provider: dict[str, OverflowTally] = {}
    for provider in dict.fromkeys([*(e.provider for e, _ in events), *answers]):
        mine = [(e, kind) for e, kind in events if e.provider == provider]
        by_provider[provider] = OverflowTally(
            count=len(mine),
            reference_recognised=sum(e.reference_verdict for e, _ in mine),
            extended_recognised=sum(e.extended_verdict for e, _ in mine),
            answers=answers[provider],
            look_alikes=sum(kind == "look_alike" for _, kind in mine),
        )
    return by_provider


def _cache_tally(calls: Sequence[Call], trims: Sequence[HistoryTrimmed]) -> CacheTally:
    loss: Counter[str] = Counter()
    for trim in trims:
        if trim.cache_loss_tokens is not None:
            loss[trim.trigger.value] += trim.cache_loss_tokens
    return CacheTally(
        input_tokens=sum(call.input_tokens or 0 for call in calls),
        cache_read_tokens=sum(call.cache_read_tokens or 0 for call in calls),
        cache_write_tokens=sum(call.cache_write_tokens or 0 for call in calls),
        cache_loss_by_trigger=dict(sorted(loss.items())),
    )
