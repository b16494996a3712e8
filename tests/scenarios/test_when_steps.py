"""A fake step's ``when`` with the real agent: a rate-limit retry and an overflow retry
take their own steps, and later turns still get the answers planned for them."""

from __future__ import annotations

import asyncio

from harness.agent import echo_tool
from harness.scenarios.fixtures import AgentFactory, FakeProviderFactory


def test_retries_do_not_shift_the_answers_planned_for_later_turns(
    fake_provider: FakeProviderFactory, agent: AgentFactory
) -> None:
    fake = fake_provider(
        "openai",
        "gpt-test",
        script=[
            {"when": {"retry": True}, "text": "after the retry"},
            {"when": {"user_turn": 3}, "text": "third"},
            {"when": {"user_turn": 2}, "fault": {"kind": "rate_limit", "retry_after": 0}},
            {"when": {"user_turn": 1}, "text": None, "tool_calls": [{"name": "echo"}]},
            {"when": {"user_turn": 1}, "text": "first"},
        ],
        default={"text": "unplanned"},
    )
    bot = agent(fake, tools=[echo_tool()])
    answers = [asyncio.run(bot.turn(q)) for q in ("one", "two", "three")]
    assert answers == ["first", "after the retry", "third"]
    assert [call.status for call in fake.log.calls()] == [200, 200, 429, 200, 200]


def test_an_overflow_retry_of_the_same_turn_takes_the_turns_next_step(
    fake_provider: FakeProviderFactory, agent: AgentFactory
) -> None:
    fake = fake_provider(
        "openai",
        "gpt-test",
        script=[
            {"when": {"user_turn": 2}, "fault": {"kind": "overflow"}},
            {"when": {"user_turn": 2}, "text": "second, trimmed"},
            {"when": {"user_turn": 3}, "text": "third"},
        ],
        default={"text": "ok"},
    )
    bot = agent(fake)
    answers = [asyncio.run(bot.turn(q)) for q in ("one", "two", "three")]
    assert answers == ["ok", "second, trimmed", "third"]
    assert [call.outcome for call in fake.log.calls()][1:3] == ["overflow", "reply"]
