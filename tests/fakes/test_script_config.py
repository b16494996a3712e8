"""Scripts are plain typed data: a scenario loader builds them from YAML with pydantic."""

from __future__ import annotations

import pytest
import yaml
from pydantic import TypeAdapter, ValidationError

from fakes import FakeBehaviour, FakeScript, Fault, ScriptedToolCall, UsageReport

YAML = """
steps:
  - reply: {text: "looking"}
  - reply:
      text: null
      tool_calls:
        - {name: read_file, arguments: {path: a.txt}}
        - {name: list_dir, arguments: {path: .}, id: call_x}
    usage: {input_factor: 0.5, cached_tokens: 10}
  - fault: {kind: rate_limit, retry_after: 3}
  - fault: {kind: hang, seconds: 2.5}
  - latency_ms: 40
default:
  reply: {text: done}
"""


def test_script_loads_from_yaml() -> None:
    script = TypeAdapter(FakeScript).validate_python(yaml.safe_load(YAML))
    assert script.behaviour_for(0).reply.text == "looking"
    parallel = script.behaviour_for(1)
    assert parallel.reply.tool_calls == (
        ScriptedToolCall("read_file", {"path": "a.txt"}),
        ScriptedToolCall("list_dir", {"path": "."}, "call_x"),
    )
    assert parallel.usage == UsageReport(input_factor=0.5, cached_tokens=10)
    assert script.behaviour_for(2).fault == Fault("rate_limit", retry_after=3)
    assert script.behaviour_for(3).fault == Fault("hang", seconds=2.5)
    assert script.behaviour_for(4) == FakeBehaviour(latency_ms=40)
    assert script.behaviour_for(99).reply.text == "done"


@pytest.mark.parametrize(
    "bad",
    [
        {"steps": [{"fault": {"kind": "explode"}}]},
        {"steps": [{"fault": {"kind": "server_error", "status": 404}}]},
        {"steps": [{"fault": {"kind": "look_alike"}}]},
        {"steps": [{"usage": {"input_factor": -1}}]},
    ],
)
def test_invalid_scripts_are_refused(bad: object) -> None:
    with pytest.raises((ValidationError, ValueError)):
        TypeAdapter(FakeScript).validate_python(bad)
