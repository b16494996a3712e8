"""Cache loss: the tokens of the route's last successful request that a trimmed history no
longer starts with (``harness.agent.cache_loss``), carried on ``HistoryTrimmed``.

``lost_prefix_tokens`` below is the definition on the rows themselves, as the agent first
computed it (keeping the last request's rows); ``SentRequests`` keeps only an estimate and
a digest per row, and must give exactly the same numbers."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fakes
from harness.agent import DriverKind, SessionSpec, open_session
from harness.agent.cache_loss import (
    MEASURE_CACHE_LOSS,
    BookkeepingFactory,
    CacheLossBookkeeping,
    NoCacheLossBookkeeping,
    Sent,
    SentRequests,
)
from harness.events import HistoryTrimmed, TrimTrigger
from harness.runtime import (
    BREADCRUMB,
    TOOL_RESULTS_PREFIX,
    ChatMessage,
    RuntimeProfile,
    estimate_history_tokens,
)
from tests.agent.support import build_rig


def common_prefix_length(a: Sequence[ChatMessage], b: Sequence[ChatMessage]) -> int:
    """How many leading rows ``a`` and ``b`` share (rows re-rendered equal count)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x is not y and x != y:
            break
        n += 1
    return n


def lost_prefix_tokens(last: Sequence[ChatMessage], trimmed: Sequence[ChatMessage]) -> int:
    """The oracle: ``estimate(last) - estimate(last[:kept])`` on the rows."""
    kept = common_prefix_length(last, trimmed)
    if kept == len(last):
        return 0
    return estimate_history_tokens(list(last)) - estimate_history_tokens(list(last[:kept]))


def sent_loss(last: Sequence[ChatMessage], trimmed: Sequence[ChatMessage]) -> int:
    sent = SentRequests()
    sent.started("r", last)
    sent.succeeded("r")
    return sent.loss("r", trimmed)


SYS = ChatMessage("system", "sys")  # 5 tokens
A40 = ChatMessage("user", "a" * 40)  # 14 tokens
OK = ChatMessage("assistant", "ok")  # 5 tokens
B = ChatMessage("user", "b")  # 5 tokens
CRUMB = ChatMessage("user", BREADCRUMB)


def test_a_history_that_extends_the_last_request_loses_nothing() -> None:
    assert lost_prefix_tokens([SYS, A40], [SYS, A40, OK, B]) == 0
    assert sent_loss([SYS, A40], [SYS, A40, OK, B]) == 0


def test_a_trim_loses_everything_after_the_shared_leading_rows() -> None:
    assert common_prefix_length([SYS, A40, OK], [SYS, CRUMB, B]) == 1
    assert lost_prefix_tokens([SYS, A40, OK], [SYS, CRUMB, B]) == 14 + 5
    assert sent_loss([SYS, A40, OK], [SYS, CRUMB, B]) == 14 + 5


def test_equal_rows_count_as_shared_even_when_rebuilt() -> None:
    rebuilt = [ChatMessage("system", "sys"), ChatMessage("user", "a" * 40)]
    assert lost_prefix_tokens([SYS, A40], rebuilt) == 0
    assert sent_loss([SYS, A40], rebuilt) == 0


def test_a_row_of_another_role_is_not_shared() -> None:
    assert sent_loss([SYS, A40], [SYS, ChatMessage("assistant", "a" * 40)]) == 14
    odd = ChatMessage("developer", "a" * 40)  # outside spec 1's four roles
    assert sent_loss([SYS, odd], [SYS, ChatMessage("function", "a" * 40)]) == 14
    assert sent_loss([SYS, odd], [SYS, ChatMessage("developer", "a" * 40)]) == 0


# Rows from a small pool, each drawn as a new object (a re-rendered row is equal but not
# the same object): prompts, answers, tool rows, prompt-mode carriers (priced differently
# in the current turn), the breadcrumb and roles outside spec 1's four, so shared
# prefixes and turn anchors vary.
_CONTENTS = (
    "a",
    "b" * 30,
    "ok",
    BREADCRUMB,
    f"{TOOL_RESULTS_PREFIX}\n<tool_result>x</tool_result>",
)
rows = st.builds(
    ChatMessage,
    st.sampled_from(("system", "user", "assistant", "tool", "developer", "function")),
    st.sampled_from(_CONTENTS),
)
histories = st.lists(rows, max_size=12)


@st.composite
def last_and_trimmed(draw: st.DrawFn) -> tuple[list[ChatMessage], list[ChatMessage]]:
    """A request, and a history that keeps some of its leading rows (re-rendered or the
    same objects), then goes on with anything: a trim, an extension or a rewrite."""
    last = draw(histories)
    kept = draw(st.integers(0, len(last)))
    rebuilt = draw(st.booleans())
    head = [ChatMessage(r.role, r.content) if rebuilt else r for r in last[:kept]]
    return last, head + draw(histories)


@given(last_and_trimmed())
def test_the_kept_digests_give_exactly_the_loss_of_the_rows(
    case: tuple[list[ChatMessage], list[ChatMessage]],
) -> None:
    last, trimmed = case
    assert sent_loss(last, trimmed) == lost_prefix_tokens(last, trimmed)


@given(last_and_trimmed())
def test_the_estimate_the_caller_hands_in_gives_the_same_loss(
    case: tuple[list[ChatMessage], list[ChatMessage]],
) -> None:
    """The loop hands in the estimate its capacity check measured; the loss is the one the
    rows define."""
    last, trimmed = case
    sent = SentRequests()
    sent.started("r", last, estimate_history_tokens(last))
    sent.succeeded("r")
    assert sent.loss("r", trimmed) == lost_prefix_tokens(last, trimmed)
    handed, measured = Sent.of(last, estimate_history_tokens(last)), Sent.of(last)
    assert (handed.tokens, handed.keys) == (measured.tokens, measured.keys)


def test_the_loop_hands_in_the_estimate_of_the_rows_alone() -> None:
    """With native tools the capacity check's estimate includes the tool schemas; the
    request kept for the cache loss is priced on its rows only (the schemas come first in
    every request and cancel out)."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=100_000),
        script=fakes.FakeScript(default=fakes.say("ok")),
    )
    asyncio.run(rig.agent.turn("hello"))
    [(route, request)] = rig.sent.requests
    assert request.tools  # the schemas were sent, so the two estimates differ
    # Against an empty history every row of the last request is lost: its whole estimate.
    assert rig.agent.announcer.sent.loss(route, []) == estimate_history_tokens(request.messages)


@given(
    st.lists(st.tuples(histories, st.booleans(), st.booleans()), min_size=1, max_size=5),
    histories,
)
def test_the_loss_is_against_the_last_request_that_succeeded(
    requests: list[tuple[list[ChatMessage], bool, bool]], trimmed: list[ChatMessage]
) -> None:
    """Whether or not a turn ended (``settle``) after a request, between its calls."""
    sent, last = SentRequests(), None
    for request, succeeded, turn_ended in requests:
        sent.started("r", request)
        if succeeded:
            sent.succeeded("r")
            last = request
        if turn_ended:
            sent.settle()
    expected = 0 if last is None else lost_prefix_tokens(last, trimmed)
    assert sent.loss("r", trimmed) == expected


def test_only_a_successful_request_becomes_the_last_sent() -> None:
    sent = SentRequests()
    assert sent.loss("r", [SYS]) == 0  # nothing sent yet: nothing cached to lose
    sent.started("r", [SYS, A40])
    sent.succeeded("r")
    sent.started("r", [SYS, A40, OK, B])  # refused: never succeeded
    assert sent.loss("r", [SYS, CRUMB, B]) == estimate_history_tokens([SYS, A40]) - 5
    assert sent.loss("other", [SYS, CRUMB, B]) == 0


def test_a_request_refused_in_a_turn_that_ended_never_becomes_the_last_sent() -> None:
    sent = SentRequests()
    sent.started("r", [SYS, A40])
    sent.succeeded("r")
    sent.started("r", [SYS, B])  # the turn ends (an error, a cancel) before any answer
    sent.settle()
    sent.succeeded("r")  # nothing pending any more: the last sent stays [SYS, A40]
    assert sent.loss("r", [SYS]) == estimate_history_tokens([SYS, A40]) - 5


def test_between_turns_the_last_request_is_kept_as_keys_not_rows() -> None:
    """An idle session must not hold its last request's rows (issue 16's memory)."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=100_000),
        script=fakes.FakeScript(default=fakes.say("ok")),
    )
    asyncio.run(rig.agent.turn("hello"))
    [(route, request)] = rig.sent.requests
    bookkeeping = rig.agent.announcer.sent
    assert isinstance(bookkeeping, SentRequests)  # the default: a session measures
    kept = bookkeeping._sent[route]  # white box: what it holds
    assert kept._rows is None
    assert kept.keys == Sent.of(request.messages).keys


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


def _trims_over_three_turns(cache_loss: BookkeepingFactory) -> list[tuple[TrimTrigger, int | None]]:
    """The trims of ``test_each_trim_reports_what_it_cost_the_previous_request``'s run."""
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=20),
        tools=False,
        script=fakes.FakeScript(default=fakes.say("ok")),
        cache_loss=cache_loss,
    )
    for text in ("a" * 40, "b", "c"):
        asyncio.run(rig.agent.turn(text))
    trims = [e for e in rig.recorder.events if isinstance(e, HistoryTrimmed)]
    return [(t.trigger, t.cache_loss_tokens) for t in trims]


def test_a_session_without_cache_loss_bookkeeping_trims_alike_and_measures_no_loss() -> None:
    """``NoCacheLossBookkeeping`` (``bench load``'s caching-off run): the same trims, none
    carrying a cache loss, where the default bookkeeping measures one."""
    measured = _trims_over_three_turns(MEASURE_CACHE_LOSS)
    unmeasured = _trims_over_three_turns(NoCacheLossBookkeeping)
    assert any(loss for _, loss in measured)
    assert unmeasured == [(trigger, None) for trigger, _ in measured]


@pytest.mark.parametrize("driver", list(DriverKind))
def test_every_driver_keeps_its_cache_loss_with_the_bookkeeping_its_session_was_given(
    driver: DriverKind,
) -> None:
    rig = build_rig(
        profile=RuntimeProfile(max_context_tokens=100_000),
        script=fakes.FakeScript(default=fakes.say("ok")),
    )
    made: list[CacheLossBookkeeping] = []

    def bookkeeping() -> CacheLossBookkeeping:
        made.append(NoCacheLossBookkeeping())
        return made[-1]

    spec = SessionSpec(
        rig.agent.config, rig.agent.announcer.bus, "other", driver=driver, cache_loss=bookkeeping
    )
    session = open_session(spec)
    asyncio.run(session.send("hello"))
    assert made
