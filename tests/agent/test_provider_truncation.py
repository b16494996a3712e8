"""The provider wrapper's own overflow truncation on the agent path (spec 9,
``reliable.rs::truncate_for_context``): the request's copy is halved at a turn opening
once per call and retried; no breadcrumb, no ``HistoryTrimmed``, no ``RecoveryAttempted``,
and the agent's history is untouched. What it cannot fix reaches the loop's recovery."""

from __future__ import annotations

import asyncio

import pytest

import fakes
from harness.events import HistoryTrimmed, OverflowDetected, ProviderCallFinished, TrimTrigger
from harness.providers import ContextWindowExceeded
from harness.runtime import BREADCRUMB, RuntimeProfile
from tests.agent.support import Rig, build_rig


def _rig(fake_window: int, *, provider_truncation: bool = True) -> Rig:
    return build_rig(
        profile=RuntimeProfile(),
        fake_window=fake_window,
        tools=False,
        script=fakes.FakeScript(default=fakes.say("ok")),
        provider_truncation=provider_truncation,
    )


def _outcomes(rig: Rig) -> list[str]:
    return [e.outcome for e in rig.recorder.events if isinstance(e, ProviderCallFinished)]


def test_overflow_retried_on_the_older_half_dropped_without_breadcrumb_or_event() -> None:
    """Turn 3's request is 5 + (24 + 5) * 2 + 24 = 87 > 60. The wrapper keeps the turns
    from the first opening at or after half of the 5 non-system rows: b, ok, c = 58."""
    rig = _rig(60)
    asyncio.run(rig.agent.turn("a" * 80))
    asyncio.run(rig.agent.turn("b" * 80))
    assert asyncio.run(rig.agent.turn("c" * 80)) == "ok"
    assert _outcomes(rig) == ["ok", "ok", "overflow", "ok"]
    expected = [("system", "sys"), ("user", "b" * 80), ("assistant", "ok"), ("user", "c" * 80)]
    assert rig.sent_rows(4) == expected
    assert rig.recorder.of("HistoryTrimmed") == []
    assert rig.recorder.of("RecoveryAttempted") == []
    assert len(rig.recorder.of("OverflowDetected")) == 1
    assert len(rig.recorder.of("ProviderCallStarted")) == 3  # one per call, not per attempt
    assert len(rig.agent.history) == 7  # sys + three whole turns: the copy was cut, not this
    assert not rig.agent.history_has_trim_breadcrumb


def test_off_by_default_the_loop_recovers_instead() -> None:
    rig = _rig(60, provider_truncation=False)
    for text in ("a" * 80, "b" * 80, "c" * 80):
        asyncio.run(rig.agent.turn(text))
    triggers = [e.trigger for e in rig.recorder.events if isinstance(e, HistoryTrimmed)]
    assert triggers == [TrimTrigger.REACTIVE, TrimTrigger.REACTIVE]


def test_one_truncation_per_call_then_the_loop_recovery_and_the_next_call_truncates_again() -> None:
    """Window 70; turn 3 is 5 + 9 + 5 + 9 + 5 + 54 = 87. The wrapper's cut (b, ok, c = 73)
    still overflows, and a call truncates once: the error reaches the loop, which trims
    to floor(87 * 2 / 3) = 58 (only c is left) and adds the breadcrumb: 5 + 17 + 54 = 76.
    That new call overflows; its wrapper drops the breadcrumb (a user row opens a turn to
    the wrapper) and the request 5 + 54 = 59 fits."""
    rig = _rig(70)
    asyncio.run(rig.agent.turn("a" * 20))
    asyncio.run(rig.agent.turn("b" * 20))
    assert asyncio.run(rig.agent.turn("c" * 200)) == "ok"
    assert _outcomes(rig) == ["ok", "ok", "overflow", "overflow", "overflow", "ok"]
    trims = [e for e in rig.recorder.events if isinstance(e, HistoryTrimmed)]
    assert [(t.trigger, t.tokens_before, t.tokens_after) for t in trims] == [
        (TrimTrigger.REACTIVE, 87, 59)
    ]
    sent = [rig.sent_rows(n) for n in (3, 4, 5, 6)]
    assert [len(rows) for rows in sent] == [6, 4, 3, 2]
    assert sent[2][1] == ("user", BREADCRUMB)
    assert sent[3] == [("system", "sys"), ("user", "c" * 200)]
    assert len(rig.recorder.of("OverflowDetected")) == 3


def test_nothing_to_drop_leaves_the_error_to_the_loop() -> None:
    """One turn: the wrapper drops nothing, the loop's recovery reports only one turn
    left and the provider's error propagates after a single attempt."""
    rig = _rig(20)
    with pytest.raises(ContextWindowExceeded):
        asyncio.run(rig.agent.turn("z" * 200))
    assert _outcomes(rig) == ["overflow"]
    assert [getattr(e, "outcome", None) for e in rig.recorder.of("RecoveryAttempted")] == [
        "only_one_turn_left"
    ]
    overflows = [e for e in rig.recorder.events if isinstance(e, OverflowDetected)]
    assert len(overflows) == 1
