"""The reproductions of ``docs/field-bugs.md`` that the portable battery found (sections 8
and the 429 note), asserted against the real runtimes: the trimmer alone in its venv,
and the adapter over the SUT protocol against trimscope's fakes (real HTTP).

Each test skips with a reason when the runtime's venv is missing and fails under
``CI=true`` (``Runtime.require``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fakes.serving.log import Exchange
from harness.interrupt import StopRequest
from harness.scenarios.loader import load_all
from harness.sut.suite import JudgedSession, SutSuite, run_sut_suite
from tests.field.test_field_runtimes import LANGCHAIN, LITELLM, ROOT, Runtime

pytestmark = pytest.mark.integration

PARALLEL = ROOT / "scenarios" / "tools-openai-parallel-calls-dropped-whole.yaml"
LOOKALIKE = ROOT / "scenarios" / "classifier-openai-lookalike-mid-session-trims-nothing.yaml"
PURE_TIMEOUT_S = 120
ORPHAN = "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"

LANGCHAIN_PARALLEL = """\
from langchain_core.messages import (
    AIMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages)
calls = [{"id": f"call_{i}", "name": "weather", "args": {"text": c}}
         for i, c in enumerate(("Oslo", "Bergen", "Tromso"), start=1)]
history = [
    SystemMessage("sys"),
    HumanMessage("What is the weather in Oslo, Bergen and Tromso?"),
    AIMessage("", tool_calls=calls),
    *(ToolMessage(f"{c['args']['text']}: 14 C, light rain", tool_call_id=c["id"]) for c in calls),
    AIMessage("Rain in Oslo and Bergen and Tromso."),
    HumanMessage("And in Lisbon and Porto?"),
]
kept = trim_messages(history, strategy="last", token_counter="approximate", max_tokens=120,
                     include_system=True)
print([(type(m).__name__, getattr(m, "tool_call_id", None)) for m in kept])
"""

LITELLM_PARALLEL = """\
import os
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
from litellm.utils import trim_messages
def call(i, city):
    return {"id": f"call_{i}", "type": "function",
            "function": {"name": "weather", "arguments": f'{{"text":"{city}"}}'}}
history = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "What is the weather in Oslo, Bergen and Tromso?"},
    {"role": "assistant", "tool_calls": [call(1, "Oslo"), call(2, "Bergen"), call(3, "Tromso")]},
    {"role": "tool", "tool_call_id": "call_1", "content": "Oslo: 14 C, light rain"},
    {"role": "tool", "tool_call_id": "call_2", "content": "Bergen: 14 C, light rain"},
    {"role": "tool", "tool_call_id": "call_3", "content": "Tromso: 14 C, light rain"},
    {"role": "assistant", "content": "Rain in Oslo and Bergen and Tromso."},
    {"role": "user", "content": "And in Lisbon and Porto?"},
    {"role": "assistant", "tool_calls": [call(4, "Lisbon"), call(5, "Porto")]},
    {"role": "tool", "tool_call_id": "call_4", "content": "Lisbon: 14 C, light rain"},
    {"role": "tool", "tool_call_id": "call_5", "content": "Porto: 14 C, light rain"},
    {"role": "assistant", "content": "Rain in Lisbon and Porto."},
    {"role": "user", "content": "Which of the five cities was the warmest?"},
]
kept = trim_messages(history, model="gpt-4o", max_tokens=120)
print([(m["role"], m.get("tool_call_id"), m.get("content")) for m in kept][:3])
"""


def _pure(runtime: Runtime, code: str) -> str:
    python = runtime.require()
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                          timeout=PURE_TIMEOUT_S, cwd=ROOT, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _wire(runtime: Runtime, adapter: str, config: str, scenario: Path) -> JudgedSession:
    """The scenario through the adapter, as ``trimscope run --sut`` runs it."""
    python = runtime.require()
    argv = [str(python), str(ROOT / "adapters" / adapter), "--config", config]
    seen: list[JudgedSession] = []
    suite = SutSuite(argv, observers=(seen.append,), references=None)
    run_sut_suite(suite, load_all([scenario]), lambda _: None, StopRequest())
    (session,) = seen
    return session


def _messages(exchange: Exchange) -> list[dict[str, Any]]:
    body = exchange.request_body
    assert isinstance(body, dict)
    messages = body["messages"]
    assert isinstance(messages, list)
    return [message for message in messages if isinstance(message, dict)]


def _error(exchange: Exchange) -> str:
    return json.dumps(exchange.response_body)


def test_langchain_last_keeps_parallel_tool_results_without_their_call() -> None:
    kept = _pure(LANGCHAIN, LANGCHAIN_PARALLEL)
    assert kept == (
        "[('SystemMessage', None), ('ToolMessage', 'call_1'), ('ToolMessage', 'call_2'),"
        " ('ToolMessage', 'call_3'), ('AIMessage', None), ('HumanMessage', None)]"
    )
    session = _wire(LANGCHAIN, "langchain_trim.py", "last", PARALLEL)
    third = session.exchanges[2]
    assert [m["role"] for m in _messages(third)] == [
        "system", "tool", "tool", "tool", "assistant", "user"
    ]  # fmt: skip
    assert (third.status, ORPHAN in _error(third)) == (400, True)


def test_litellm_keeps_one_of_three_parallel_results_cut_short_without_its_call() -> None:
    kept = _pure(LITELLM, LITELLM_PARALLEL)
    assert kept == (
        "[('system', None, 'sys'), ('tool', 'call_3', 'Troms.. rain'),"
        " ('assistant', None, 'Rain in Oslo and Bergen and Tromso.')]"
    )
    session = _wire(LITELLM, "litellm_trim.py", "default", PARALLEL)
    fifth = session.exchanges[4]
    sent = _messages(fifth)
    assert sent[1] == {"role": "tool", "tool_call_id": "call_3", "content": "Troms.. rain"}
    assert (fifth.status, ORPHAN in _error(fifth)) == (400, True)


def test_langchain_start_on_human_sends_fewer_rows_after_an_unretried_429() -> None:
    session = _wire(LANGCHAIN, "langchain_trim.py", "last-start-on-human", LOOKALIKE)
    third, fourth = session.exchanges[2], session.exchanges[3]
    assert third.status == 429
    assert session.driven.turns[2].ended == "error"  # max_retries=0: the turn ends
    assert len(_messages(third)) == 6
    contents = [m["content"] for m in _messages(fourth)]
    assert contents == [
        "sys",
        "How many moons does Saturn have today?",
        "ok",
        "Which is the largest moon of Jupiter?",
        "Is Titan larger than the planet Mercury?",
    ]
    assert [v.invariant for v in session.outcome.violations] == ["no_trim_on_lookalike"]
