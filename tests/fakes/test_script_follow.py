"""Scripts that follow the conversation: a ``when`` step answers the request it names
(the nth user turn, a request containing a text, a retry) whenever it comes, so extra
calls do not shift later scripted answers; other calls take the ordered steps, then the
default; a script without ``when`` keeps its call-count order."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import (
    FakeBehaviour,
    FakeProvider,
    FakeScript,
    Fault,
    ScriptedReply,
    StepCondition,
    say,
)
from fakes.wire.base import RequestContext
from tests.fakes.conftest import Connect

SUMMARY = "Summarize the conversation so far."


def when(text: str, **condition: Any) -> FakeBehaviour:
    return FakeBehaviour(reply=ScriptedReply(text=text), when=StepCondition(**condition))


def _ask(fake: FakeProvider, *users: str, system: str | None = None) -> str:
    messages: list[dict[str, str]] = [{"role": "system", "content": system}] if system else []
    for n, text in enumerate(users):
        if n:
            messages.append({"role": "assistant", "content": "ok"})
        messages.append({"role": "user", "content": text})
    raw = json.dumps({"model": "m", "messages": messages}).encode()
    index, behaviour = fake.take_call()
    answer = fake.answer(fake.wire("openai_chat"), raw, RequestContext(), index, behaviour)
    assert answer.status == 200, answer.body
    body: Any = answer.body
    return str(body["choices"][0]["message"]["content"])


def _fake(*steps: FakeBehaviour, default: str = "default") -> FakeProvider:
    return FakeProvider("openai", "m", script=FakeScript(steps, say(default)))


def test_user_turn_steps_answer_their_turn_whatever_came_between() -> None:
    fake = _fake(when("one", user_turn=1), when("two", user_turn=2), when("three", user_turn=3))
    assert _ask(fake, "q1") == "one"
    assert _ask(fake, "q1") == "default"  # an unplanned retry
    assert _ask(fake, "q1", "q2") == "two"
    assert _ask(fake, "q1", "q2") == "default"  # a second call of the same turn
    assert _ask(fake, "q3") == "three"  # earlier turns trimmed away: still turn 3


def test_contains_answers_the_summarisation_request_and_is_not_a_user_turn() -> None:
    fake = _fake(
        when("summary", contains="Summarize"),
        when("one", user_turn=1),
        when("two", user_turn=2),
    )
    assert _ask(fake, "q1") == "one"
    assert _ask(fake, "q1", SUMMARY) == "summary"
    assert _ask(fake, "q2") == "two"


def test_contains_reads_the_system_prompt_too() -> None:
    fake = _fake(when("summary", contains="Summarize"))
    assert _ask(fake, "the conversation", system=SUMMARY) == "summary"


def test_retry_answers_the_same_request_as_the_previous_call() -> None:
    fake = _fake(when("again", retry=True), say("first"), say("second"))
    assert _ask(fake, "q1") == "first"
    assert _ask(fake, "q1") == "again"
    assert _ask(fake, "q1", "q2") == "second"
    assert _ask(fake, "q1", "q2") == "default"  # the retry step is used up


def test_conditions_together_must_all_hold() -> None:
    fake = _fake(when("retry of two", user_turn=2, retry=True))
    assert [_ask(fake, "q1"), _ask(fake, "q1"), _ask(fake, "q1", "q2")] == ["default"] * 3
    assert _ask(fake, "q1", "q2") == "retry of two"


def test_calls_no_when_step_takes_get_the_ordered_steps_then_the_default() -> None:
    fake = _fake(say("a"), when("one", user_turn=1), say("b"))
    assert [_ask(fake, "q1"), _ask(fake, "q1", "q2"), _ask(fake, "q3"), _ask(fake, "q4")] == [
        "one",
        "a",
        "b",
        "default",
    ]


def test_a_script_without_when_keeps_its_call_count_order() -> None:
    fake = _fake(say("a"), say("b"))
    assert [_ask(fake, "q1"), _ask(fake, "q1"), _ask(fake, "q2"), _ask(fake, "q3")] == [
        "a",
        "b",
        "default",
        "default",
    ]


def test_reset_starts_the_turns_and_the_steps_over() -> None:
    fake = _fake(when("one", user_turn=1))
    assert _ask(fake, "q1") == "one"
    fake.reset()
    assert _ask(fake, "other") == "one"


@pytest.mark.parametrize(
    ("condition", "problem"),
    [
        ({}, "user_turn, contains or retry"),
        ({"user_turn": 0}, "from 1"),
        ({"contains": ""}, "text"),
    ],
)
def test_a_condition_must_say_something_sensible(condition: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        StepCondition(**condition)


def test_the_default_step_takes_no_condition() -> None:
    with pytest.raises(ValueError, match="no when"):
        FakeScript((), when("x", user_turn=1))


_EXTRA = st.sampled_from(["summary", "retry", "none"])


@given(st.lists(st.lists(_EXTRA, max_size=3), min_size=1, max_size=5))
def test_extra_calls_never_shift_the_answers_planned_for_each_turn(
    extras: list[list[str]],
) -> None:
    """Whatever side calls and retries come between, each turn's first call gets the step
    planned for that turn."""
    turns = len(extras)
    fake = _fake(
        when("summary", contains="Summarize"),
        *(when(f"turn {n}", user_turn=n) for n in range(1, turns + 1)),
    )
    history: list[str] = []
    for n, between in enumerate(extras, start=1):
        history.append(f"question {n}")
        assert _ask(fake, *history) == f"turn {n}"
        for extra in between:
            if extra == "summary":
                assert _ask(fake, *history, SUMMARY) in ("summary", "default")
            elif extra == "retry":
                _ask(fake, *history)


@pytest.mark.anyio
async def test_a_when_steps_latency_and_fault_apply_over_http(connect: Connect) -> None:
    slow = FakeBehaviour(latency_ms=200, when=StepCondition(user_turn=2))
    limited = FakeBehaviour(
        fault=Fault("rate_limit", retry_after=3), when=StepCondition(retry=True)
    )
    client, _ = await connect(_fake(slow, limited))
    body = {"model": "m", "messages": [{"role": "user", "content": "q1"}]}
    assert (await client.post("/v1/chat/completions", json=body)).status_code == 200
    retried = await client.post("/v1/chat/completions", json=body)
    assert (retried.status_code, retried.headers["retry-after"]) == (429, "3")
    second = {"model": "m", "messages": [{"role": "user", "content": "q2"}]}
    started = time.monotonic()
    assert (await client.post("/v1/chat/completions", json=second)).status_code == 200
    assert time.monotonic() - started >= 0.2
