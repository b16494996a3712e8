"""Cache loss: the tokens of the route's last successful request that a trimmed history no
longer starts with (``harness.agent.cache_loss``), carried on ``HistoryTrimmed``."""

from __future__ import annotations

import asyncio

import fakes
from harness.agent.cache_loss import SentRequests, common_prefix_length, lost_prefix_tokens
from harness.events import HistoryTrimmed, TrimTrigger
from harness.runtime import BREADCRUMB, ChatMessage, RuntimeProfile, estimate_history_tokens
from tests.agent.support import build_rig

SYS = ChatMessage("system", "sys")  # 5 tokens
A40 = ChatMessage("user", "a" * 40)  # 14 tokens
OK = ChatMessage("assistant", "ok")  # 5 tokens
B = ChatMessage("user", "b")  # 5 tokens
CRUMB = ChatMessage("user", BREADCRUMB)


def test_a_history_that_extends_the_last_request_loses_nothing() -> None:
    assert lost_prefix_tokens([SYS, A40], [SYS, A40, OK, B]) == 0


def test_a_trim_loses_everything_after_the_shared_leading_rows() -> None:
    assert common_prefix_length([SYS, A40, OK], [SYS, CRUMB, B]) == 1
    assert lost_prefix_tokens([SYS, A40, OK], [SYS, CRUMB, B]) == 14 + 5


def test_equal_rows_count_as_shared_even_when_rebuilt() -> None:
    rebuilt = [ChatMessage("system", "sys"), ChatMessage("user", "a" * 40)]
    assert lost_prefix_tokens([SYS, A40], rebuilt) == 0


def test_only_a_successful_request_becomes_the_last_sent() -> None:
    sent = SentRequests()
    assert sent.loss("r", [SYS]) == 0  # nothing sent yet: nothing cached to lose
    sent.started("r", [SYS, A40])
    sent.succeeded("r")
    sent.started("r", [SYS, A40, OK, B])  # refused: never succeeded
    assert sent.loss("r", [SYS, CRUMB, B]) == estimate_history_tokens([SYS, A40]) - 5
    assert sent.loss("other", [SYS, CRUMB, B]) == 0


def test_each_trim_reports_what_it_cost_the_previous_request() -> None:
    """Budget 20. Turn 1 sends sys 5 + a*40 14. Turn 2 trims to [sys, crumb, b]: of the
    last request only sys is shared, 14 lost. Turn 3 trims to [sys, crumb, b, ok, c]: it
    extends turn 2's request, nothing lost; after its call the reported-usage trim keeps
    [sys, crumb] of that request (37 tokens) and loses the rest."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=20),
        tools=False,
        script=fakes.FakeScript(default=fakes.say("ok")),
    )
    for text in ("a" * 40, "b", "c"):
        asyncio.run(rig.agent.turn(text))
    trims = [e for e in rig.recorder.events if isinstance(e, HistoryTrimmed)]
    kept = estimate_history_tokens([SYS, CRUMB])
    assert [(t.trigger, t.cache_loss_tokens) for t in trims] == [
        (TrimTrigger.PROACTIVE, 14),
        (TrimTrigger.PROACTIVE, 0),
        (TrimTrigger.REPORTED_USAGE, 37 - kept),
    ]
    assert rig.sent_rows(3)[:3] == [("system", "sys"), ("user", BREADCRUMB), ("user", "b")]
