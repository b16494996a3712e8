"""Provider calls and trims for the cache and cost tests: the same events reach a
``LoadTally`` (asyncio mode) and ``PrometheusObserver`` registries (Locust mode)."""

from __future__ import annotations

from collections.abc import Iterable

from harness.events import CallOutcome, Event, HistoryTrimmed, ProviderCallFinished, TrimTrigger
from harness.load.tally import LoadTally
from harness.runtime import REASON_BUDGET


def call(
    model: str | None,
    reported: int | None,
    read: int | None = None,
    write: int | None = None,
    output: int | None = None,
    *,
    provider: str = "p",
    outcome: CallOutcome = CallOutcome.OK,
) -> ProviderCallFinished:
    return ProviderCallFinished(
        session_id="s",
        turn_id="t",
        call_id="c",
        provider=provider,
        provider_kind="openai",
        model=model,
        outcome=outcome,
        duration_s=0.01,
        input_tokens=reported,
        output_tokens=output,
        cache_read_input_tokens=read,
        cache_creation_input_tokens=write,
    )


def trim(
    loss: int | None, trigger: TrimTrigger = TrimTrigger.PROACTIVE, *, provider: str = "p"
) -> HistoryTrimmed:
    return HistoryTrimmed(
        session_id="s",
        turn_id="t",
        dropped_messages=2,
        kept_turns=1,
        reason=REASON_BUDGET,
        dropped_turns=1,
        trigger=trigger,
        tokens_before=10,
        tokens_after=5,
        budget_tokens=8,
        provider=provider,
        model="m",
        cache_loss_tokens=loss,
    )


def worker_events(worker: int) -> list[Event]:
    """One Locust worker's share of a run: two models over two providers, a call that
    reports no usage, one that reports output only, a trim that lost nothing, one whose
    loss is unknown."""
    if worker == 0:
        return [
            call("m-a", 3_000, 1_024, 512, 40),
            call("m-a", 2_500, 0, 0, 35, provider="q"),
            call("m-b", 1_800, 1_280, 0, 12),
            call("m-a", None, outcome=CallOutcome.OVERFLOW),
            trim(700),
            trim(0, TrimTrigger.TURN_LIMIT),
        ]
    return [
        call("m-a", 4_100, 2_048, 0, 51),
        call(None, 900, None, 256, None),
        call("m-b", None, output=7),
        trim(1_300, TrimTrigger.REACTIVE, provider="q"),
        trim(None, TrimTrigger.REPORTED_USAGE),
        trim(250),
    ]


def tally_of(events: Iterable[Event]) -> LoadTally:
    tally = LoadTally()
    for event in events:
        tally.on_event(event)
    return tally
