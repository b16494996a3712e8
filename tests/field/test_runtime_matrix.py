"""The field adapters (``adapters/``) speak the SUT protocol, and ``docs/runtime-matrix.md``
is what ``trimscope matrix`` writes today.

Each test needing a field runtime skips with a reason when its venv is missing, and fails
under ``CI=true`` (``Runtime.require``, as the other field tests).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.interrupt import StopRequest
from harness.scenarios.bundled import scenario_library
from harness.scenarios.loader import load_all
from harness.sut.judge import INVARIANTS
from harness.sut.matrix import default_entries, portable_scenarios, run_entry
from tests.field.test_field_agent_runtimes import GOOGLE_ADK, OPENAI_AGENTS, PYDANTIC_AI
from tests.field.test_field_runtimes import LANGCHAIN, LITELLM, ROOT, Runtime

TRIMSCOPE = Path(sys.executable).with_name("trimscope")
HELLO_TIMEOUT_S = 60
OPENAI_CHAT = ["openai_chat"]
OPENAI_BOTH = ["openai_chat", "openai_responses"]
RESPONSES_FIRST = ["openai_responses", "openai_chat"]
RESPONSES = ["openai_responses"]
TRIMMERS = ["tools", "system", "budget"]
"""Honour ``budget_tokens``: LangChain's and LiteLLM's trimmers, ADK's token threshold."""
NO_BUDGET = ["tools", "system"]
MATRIX_TIMEOUT_S = 600

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("runtime", "program", "config", "wires", "features"),
    [
        (LANGCHAIN, "langchain_trim.py", "last", OPENAI_CHAT, TRIMMERS),
        (LANGCHAIN, "langchain_trim.py", "last-start-on-human", OPENAI_CHAT, TRIMMERS),
        (LANGCHAIN, "langchain_trim.py", "summarization", OPENAI_CHAT, TRIMMERS),
        (LITELLM, "litellm_trim.py", "default", OPENAI_CHAT, TRIMMERS),
        (PYDANTIC_AI, "pydantic_ai_history.py", "keep-recent", OPENAI_BOTH, NO_BUDGET),
        (PYDANTIC_AI, "pydantic_ai_history.py", "last-message", OPENAI_BOTH, NO_BUDGET),
        (PYDANTIC_AI, "pydantic_ai_history.py", "openai-compaction", RESPONSES, NO_BUDGET),
        (PYDANTIC_AI, "pydantic_ai_history.py", "openai-server-compaction", RESPONSES,
         TRIMMERS),
        (OPENAI_AGENTS, "openai_agents_session.py", "session-limit", RESPONSES_FIRST, NO_BUDGET),
        (OPENAI_AGENTS, "openai_agents_session.py", "responses-compaction", RESPONSES_FIRST,
         NO_BUDGET),
        (GOOGLE_ADK, "adk_compaction.py", "sliding-window", ["gemini"], NO_BUDGET),
        (GOOGLE_ADK, "adk_compaction.py", "token-threshold", ["gemini"], TRIMMERS),
    ],
)  # fmt: skip
def test_each_field_adapter_answers_hello_with_protocol_1_and_exits_on_bye(
    runtime: Runtime, program: str, config: str, wires: list[str], features: list[str]
) -> None:
    python = runtime.require()
    done = subprocess.run(
        [str(python), str(ROOT / "adapters" / program), "--config", config],
        input='{"op":"hello","protocol":1}\n{"op":"bye"}\n',
        capture_output=True, text=True, timeout=HELLO_TIMEOUT_S, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout  # nothing but protocol lines on stdout
    hello = json.loads(lines[0])
    assert hello["op"] == "hello"
    assert hello["protocol"] == 1
    assert hello["wires"] == wires
    assert config in hello["name"]
    assert hello["features"] == features


def test_the_reference_row_of_the_matrix_keeps_every_invariant() -> None:
    loaded = portable_scenarios(load_all([scenario_library()]))
    reference = default_entries(ROOT)[0]
    assert reference.runtime == "trimscope-reference"
    row = run_entry(
        reference, ROOT, loaded, op_timeout_s=30, scenario_timeout_s=60, stop=StopRequest()
    )
    assert row.judged == len(loaded)
    assert row.skipped == 0
    assert {name: row.failed[name] for name in INVARIANTS} == dict.fromkeys(INVARIANTS, 0)
    assert {name: row.passed[name] for name in INVARIANTS} == dict.fromkeys(INVARIANTS, len(loaded))
    assert row.first == {}


def test_the_committed_runtime_matrix_is_what_trimscope_matrix_writes_today(
    tmp_path: Path,
) -> None:
    for runtime in (LANGCHAIN, LITELLM, PYDANTIC_AI, OPENAI_AGENTS, GOOGLE_ADK):
        runtime.require()
    out = tmp_path / "runtime-matrix.md"
    done = subprocess.run(
        [str(TRIMSCOPE), "matrix", "--out", str(out), "--root", str(ROOT)],
        capture_output=True, text=True, timeout=MATRIX_TIMEOUT_S, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    committed = (ROOT / "docs" / "runtime-matrix.md").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == committed, (
        "docs/runtime-matrix.md is stale: run `trimscope matrix` and commit it"
    )
