"""``trimscope matrix`` without the field venvs: their rows say not installed, nothing runs."""

from __future__ import annotations

from pathlib import Path

from harness.interrupt import StopRequest
from harness.sut.matrix import default_entries, render, run_entry


def test_a_runtime_whose_venv_is_missing_is_listed_as_not_installed_not_run(
    tmp_path: Path,
) -> None:
    entries = default_entries(tmp_path)  # a root with no .tools at all
    assert [(e.runtime, e.config) for e in entries] == [
        ("trimscope-reference", "default"),
        ("langchain", "last"),
        ("langchain", "last-start-on-human"),
        ("litellm", "default"),
        ("pydantic-ai", "keep-recent"),
        ("pydantic-ai", "last-message"),
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
    assert document.count("not installed (.tools/field-") == len(missing) == 9
