"""``trimscope fake serve --script FILE``: the file is a scenario fake's steps and default,
read with the scenario loader's checks; anything wrong exits 2 with ``file:line: key.path``
before a server starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fakes import (
    FakeBehaviour,
    FakeScript,
    Fault,
    ScriptedReply,
    ScriptedToolCall,
    StepCondition,
    UsageReport,
)
from harness.scenarios.fake_script import load_fake_script
from harness.scenarios.loader import ScenarioError
from tests.scenarios.support import cli, write

EXIT_INVALID = 2
SCRIPT = """\
steps:
  - text: looking
    tool_calls: [{name: read_file, arguments: {path: a.txt}, id: call_x}]
    usage: {input_factor: 0.5, cached_tokens: 10}
  - fault: {kind: rate_limit, retry_after: 3}
  - {latency_ms: 40, text: late}
  - fault: {kind: auth}
default: {text: done}
"""


def test_script_file_loads_as_the_fakes_script(tmp_path: Path) -> None:
    script = load_fake_script(write(tmp_path, "script.yaml", SCRIPT))
    assert script == FakeScript(
        steps=(
            FakeBehaviour(
                reply=ScriptedReply(
                    "looking", (ScriptedToolCall("read_file", {"path": "a.txt"}, "call_x"),)
                ),
                usage=UsageReport(input_factor=0.5, cached_tokens=10),
            ),
            FakeBehaviour(
                reply=ScriptedReply(), fault=Fault("rate_limit", retry_after=3, seconds=30.0)
            ),
            FakeBehaviour(reply=ScriptedReply("late"), latency_ms=40),
            FakeBehaviour(fault=Fault("auth")),
        ),
        default=FakeBehaviour(reply=ScriptedReply("done")),
    )


BAD = {
    "unknown-top-level-key": (
        SCRIPT.replace("default:", "defaults:"),
        "8: defaults: expected one of the keys: steps, default, fault_rates,"
        " found unknown key 'defaults'",
    ),
    "unknown-step-key": (
        SCRIPT.replace("  - text: looking", "  - txt: looking"),
        "2: steps[0].txt: expected one of the keys: text, tool_calls, usage, fault, latency_ms,"
        " when, found unknown key 'txt' (did you mean 'text'?)",
    ),
    "unknown-fault-key": (
        SCRIPT.replace("retry_after: 3", "retry_afterr: 3"),
        "5: steps[1].fault.retry_afterr: expected one of the keys",
    ),
    "quoted-latency": (
        SCRIPT.replace("latency_ms: 40", 'latency_ms: "40"'),
        "6: steps[2].latency_ms: expected an integer, found '40'",
    ),
    "hang-over-limit": (
        SCRIPT.replace("default: {text: done}", "default: {fault: {kind: hang, seconds: 1.0e+9}}"),
        "8: default.fault.seconds: expected at most 600 seconds",
    ),
    "escaped-nul": (
        SCRIPT.replace("text: done", 'text: "do\\0ne"'),
        "8: default.text: expected printable text, found U+0000 (a control character)",
    ),
    "empty-when": (
        SCRIPT.replace("{latency_ms: 40, text: late}", "{when: {}, text: late}"),
        "6: steps[2].when: expected at least one of user_turn, contains, retry, found none",
    ),
    "user-turn-zero": (
        SCRIPT.replace("{latency_ms: 40, text: late}", "{when: {user_turn: 0}, text: late}"),
        "6: steps[2].when.user_turn: expected a number >= 1, found 0",
    ),
    "unknown-when-key": (
        SCRIPT.replace("{latency_ms: 40, text: late}", "{when: {turn: 2}, text: late}"),
        "6: steps[2].when.turn: expected one of the keys: user_turn, contains, retry,"
        " found unknown key 'turn'",
    ),
    "retry-not-boolean": (
        SCRIPT.replace("{latency_ms: 40, text: late}", "{when: {retry: yes please}}"),
        "6: steps[2].when.retry: expected true or false, found 'yes please'",
    ),
    "when-on-default": (
        SCRIPT.replace("default: {text: done}", "default: {text: done, when: {retry: true}}"),
        "8: default.when: expected no when on the default step",
    ),
    "not-a-mapping": ("- text: a\n", "1: (top level): expected a script mapping, found a list"),
    "empty": ("", "1: (top level): expected a script mapping, the file is empty"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_script_exits_2_naming_file_line_and_key(tmp_path: Path, case: str) -> None:
    text, expected = BAD[case]
    path = write(tmp_path, "script.yaml", text)
    with pytest.raises(ScenarioError) as caught:
        load_fake_script(path)
    assert any(p.startswith(f"{path}:{expected}") for p in caught.value.problems), (
        caught.value.problems
    )
    result = cli(*_serve(path))
    assert result.exit_code == EXIT_INVALID
    assert any(line.startswith(f"{path}:{expected}") for line in result.stderr.splitlines())
    assert "invalid --script" in result.stderr
    assert "http://" not in result.stdout  # no server started


def _serve(script: Path, *extra: str) -> list[str | Path]:
    return [
        "fake", "serve", "--provider", "openai", "--model", "m", "--context-window", "100",
        "--script", script, *extra,
    ]  # fmt: skip


def test_when_steps_load_as_conditions(tmp_path: Path) -> None:
    text = (
        "steps:\n"
        "  - {when: {user_turn: 2}, text: two}\n"
        "  - {when: {contains: Summarize, retry: false}, text: summary}\n"
        "  - {text: plain}\n"
    )
    steps = load_fake_script(write(tmp_path, "script.yaml", text)).steps
    assert [s.when for s in steps] == [
        StepCondition(user_turn=2),
        StepCondition(contains="Summarize", retry=False),
        None,
    ]


def test_fifo_script_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    os.mkfifo(path)
    result = cli(*_serve(path))
    assert result.exit_code == EXIT_INVALID
    assert f"{path}:1: (file): expected a regular file, found a FIFO" in result.stderr


def test_bad_limit_option_of_fake_serve_exits_2(tmp_path: Path) -> None:
    result = cli(*_serve(write(tmp_path, "script.yaml", SCRIPT), "--limit", "turns=x"))
    assert result.exit_code == EXIT_INVALID
    assert "--limit: turns: expected an integer" in result.stderr
