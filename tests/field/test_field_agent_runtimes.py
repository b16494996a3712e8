"""pydantic-ai, the OpenAI Agents SDK and Google ADK, each in its venv behind its adapter
(``adapters/``), driven over the SUT protocol against real fakes on 127.0.0.1.

Each test asserts what the pinned version was seen to send (``docs/field-bugs.md`` 5-7):
ADK's token-threshold compaction leaves a function call after its summary, which Gemini
refuses, and the refused turn's question then breaks the next turn too; ADK's sliding
window (the docs' sample) keeps Gemini's order; the Agents SDK stores the question of a
turn that overflowed, so every later turn overflows again; pydantic-ai with
``messages[-1:]`` sends, in the middle of each tool round, the system prompt alone.

The scenarios are ``tests/field/scenarios/`` (scripted by turn, so a runtime's own
summarisation request gets a summary). Skipped with a reason when a venv is missing,
failed under ``CI=true`` (``Runtime.require``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fakes.serving.log import Exchange
from harness.interrupt import StopRequest
from harness.scenarios.loader import load_all
from harness.sut.suite import JudgedSession, SutOutcome, SutSuite, run_sut_suite
from tests.field.test_field_runtimes import ROOT, Runtime

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
OP_TIMEOUT_S = 60.0
SCENARIO_TIMEOUT_S = 240.0
GEMINI_CALL_AFTER_USER = (
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn."
)
ADK_SUMMARY_PROMPT = "The following is a conversation history between a user and an AI agent"

PYDANTIC_AI = Runtime("pydantic-ai", "pydantic_ai_history.py")
OPENAI_AGENTS = Runtime("openai-agents", "openai_agents_session.py")
GOOGLE_ADK = Runtime("google-adk", "adk_compaction.py")

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Driven:
    outcome: SutOutcome
    sent: list[Exchange]

    def invariants(self) -> set[str]:
        return {v.invariant for v in self.outcome.violations}


def drive(runtime: Runtime, config: str, scenario: str) -> Driven:
    python = runtime.require()
    command = [str(python), str(ROOT / "adapters" / runtime.program), "--config", config]
    sent: dict[str, list[Exchange]] = {}

    def keep_requests(session: JudgedSession) -> None:
        sent[session.item.scenario.id] = list(session.exchanges)

    suite = SutSuite(
        command,
        op_timeout_s=OP_TIMEOUT_S,
        scenario_timeout_s=SCENARIO_TIMEOUT_S,
        observers=[keep_requests],
        references=None,
    )
    loaded = load_all([SCENARIOS / f"{scenario}.yaml"])
    (outcome,) = run_sut_suite(suite, loaded, lambda _: None, StopRequest())
    return Driven(outcome, sent.get(scenario, []))


def gemini_contents(exchange: Exchange) -> list[tuple[str, list[str]]]:
    """Each content's role and the kinds of its parts (``text``, ``functionCall``, ...)."""
    body: Any = exchange.request_body
    return [(c["role"], [next(iter(p)) for p in c["parts"]]) for c in body["contents"]]


def texts(items: Sequence[Any]) -> list[str]:
    out = []
    for item in items:
        content = item.get("content")
        out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def test_adk_token_threshold_compaction_leaves_a_function_call_gemini_refuses() -> None:
    driven = drive(GOOGLE_ADK, "token-threshold", "field-gemini-tool-turns-budget")
    summaries = [e for e in driven.sent if ADK_SUMMARY_PROMPT in json.dumps(e.request_body)]
    assert summaries, "ADK never compacted: nothing to observe"
    refused = [e for e in driven.sent if e.status == 400]
    assert refused
    first = refused[0]
    assert json.dumps(first.response_body).count(GEMINI_CALL_AFTER_USER) == 1
    # The summary (a model content) stands first, then the model's function call whose
    # user question went into the summary: a call after a model turn.
    contents = gemini_contents(first)
    assert contents[:2] == [("model", ["text"]), ("model", ["text", "functionCall"])]
    assert {"tool_pairing", "wire_order", "session_survives_failure"} <= driven.invariants()
    # The failed turn's question stays in the session: every later turn is refused too.
    later = driven.sent[driven.sent.index(first) :]
    assert [e.status for e in later] == [400] * len(later) == [400] * 4


def test_adk_sliding_window_compaction_keeps_gemini_turn_order() -> None:
    driven = drive(GOOGLE_ADK, "sliding-window", "field-gemini-tool-turns")
    summaries = [e for e in driven.sent if ADK_SUMMARY_PROMPT in json.dumps(e.request_body)]
    assert len(summaries) == 2  # after turns 3 and 6: compaction_interval 3
    assert all(e.status == 200 for e in driven.sent)
    after = driven.sent[driven.sent.index(summaries[0]) + 1]
    assert gemini_contents(after) == [("model", ["text"]), ("user", ["text"])]
    assert not {"tool_pairing", "wire_order", "current_user_kept"} & driven.invariants()


def test_agents_sdk_session_keeps_the_question_that_overflowed_and_every_turn_overflows() -> None:
    driven = drive(
        OPENAI_AGENTS, "session-limit", "field-openai-responses-overflow-then-more-turns"
    )
    statuses = [e.status for e in driven.sent]
    assert statuses == [200, 200, 200, 400, 400, 400]
    failed_question = "Is Titan larger than the planet Mercury?"
    for exchange in driven.sent[3:]:
        assert "context_length_exceeded" in json.dumps(exchange.response_body)
        body: Any = exchange.request_body
        assert failed_question in texts(body["input"])
    later: Any = driven.sent[5].request_body
    assert texts(later["input"])[-3:] == [failed_question, "How far is Neptune?", "Thanks."]
    assert "session_survives_failure" in driven.invariants()


def test_pydantic_ai_last_message_sends_the_system_prompt_alone_mid_turn() -> None:
    driven = drive(PYDANTIC_AI, "last-message", "field-openai-tool-turns")
    assert len(driven.sent) == 12  # six turns, each a call then its answer
    for n, exchange in enumerate(driven.sent):
        body: Any = exchange.request_body
        assert exchange.status == 200  # the provider accepts it: nothing fails loudly
        if n % 2 == 1:  # after the tool result: its call, its result, the question all gone
            assert body["messages"] == [{"role": "system", "content": "sys"}]
    assert "current_user_kept" in driven.invariants()
    assert "tool_pairing" not in driven.invariants()
