"""``trimscope matrix``: rows of runtimes whose venv is missing, and the request excerpts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes.serving.log import Exchange
from harness.interrupt import StopRequest
from harness.sut.matrix import default_entries, render, request_excerpt, run_entry


def test_a_runtime_whose_venv_is_missing_is_listed_as_not_installed_not_run(
    tmp_path: Path,
) -> None:
    entries = default_entries(tmp_path)  # a root with no .tools at all
    assert [(e.runtime, e.config) for e in entries] == [
        ("trimscope-reference", "default"),
        ("langchain", "last"),
        ("langchain", "last-start-on-human"),
        ("langchain", "summarization"),
        ("litellm", "default"),
        ("pydantic-ai", "keep-recent"),
        ("pydantic-ai", "last-message"),
        ("pydantic-ai", "openai-compaction"),
        ("pydantic-ai", "openai-server-compaction"),
        ("openai-agents", "session-limit"),
        ("openai-agents", "responses-compaction"),
        ("google-adk", "sliding-window"),
        ("google-adk", "token-threshold"),
    ]
    assert entries[0].missing is None
    missing = entries[1:]
    assert all(e.missing and e.missing.startswith("not installed") for e in missing)
    rows = [
        run_entry(e, tmp_path, [], op_timeout_s=1, scenario_timeout_s=1, stop=StopRequest())
        for e in missing
    ]
    assert [(r.judged, r.skipped, r.first) for r in rows] == [(0, 0, {})] * len(missing)
    document = render(rows, 0)
    assert document.count("not installed (.tools/field-") == len(missing) == 12


def _sent(body: Any) -> Exchange:
    return Exchange(
        call_index=0, method="POST", path="/", request_headers={}, request_body=body,
        counter="heuristic", window=100, tokens=None, outcome="reply", status=200,
        response_headers={}, response_body={},
    )  # fmt: skip


def test_an_excerpt_shows_gemini_parts_and_responses_function_items() -> None:
    gemini = {"contents": [
        {"role": "model", "parts": [{"text": "Summary."}]},
        {"role": "model", "parts": [{"text": "x"}, {"functionCall": {"name": "lookup"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "lookup", "response": {}}}]},
    ]}  # fmt: skip
    assert request_excerpt(_sent(gemini)).splitlines() == [
        '{"role": "model", "parts": ["Summary."]}',
        '{"role": "model", "parts": ["x", "functionCall lookup"]}',
        '{"role": "user", "parts": ["functionResponse lookup"]}',
    ]
    responses = {"input": [
        {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "found"},
    ]}  # fmt: skip
    assert request_excerpt(_sent(responses)).splitlines() == [
        '{"role": "function_call", "call_id": "c1", "name": "lookup"}',
        '{"role": "function_call_output", "call_id": "c1", "output": "found"}',
    ]
