"""Tiny runtimes for the fault tests: ``python -c SCRIPT MARKER`` programs that speak the
protocol well enough to get to a turn, then do one thing wrong. ``MARKER`` (a test's own
folder) is on each one's command line and in its grandchildren's environment, so the test
can scan ``/proc`` for anything left behind (``tests.interrupting.survivors``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from harness.interrupt import StopRequest
from harness.scenarios.loader import load_all
from harness.sut.suite import SutOutcome, SutSuite, run_sut_suite

PRELUDE = """\
import json, os, subprocess, sys, time
MARKER = sys.argv[1]
def out(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
HELLO = {"op": "hello", "protocol": 1, "name": "fault", "version": "0",
         "wires": ["openai_chat"], "features": ["tools", "system", "budget", "turn_limit"]}
for line in sys.stdin:
    m = json.loads(line)
    op, s = m["op"], m.get("session")
    if op == "hello":
        HELLO_REPLY
    elif op == "open":
        out({"op": "opened", "session": s})
    elif op == "user":
        ON_USER
    elif op == "tool_result":
        ON_TOOL_RESULT
    elif op == "bye":
        break
"""


def script(
    on_user: str,
    *,
    hello: str = "out(HELLO)",
    on_tool_result: str = 'out({"op": "answer", "session": s, "text": "ok"})',
) -> str:
    return (
        PRELUDE.replace("HELLO_REPLY", hello)
        .replace("ON_USER", on_user)
        .replace("ON_TOOL_RESULT", on_tool_result)
    )


def command(body: str, marker: Path) -> str:
    """The ``--sut`` command line for a script."""
    return shlex.join([sys.executable, "-c", body, str(marker)])


ANSWER = 'out({"op": "answer", "session": s, "text": "ok"})'
TOOL_CALL = (
    'out({"op": "tool_call", "session": s, "id": "t1", "name": "echo",'
    ' "arguments": {"text": "hi"}})'
)
GRANDCHILD = 'subprocess.Popen(["sleep", "1000"], env={"MARK": MARKER})'

SCENARIO = """\
id: {id}
title: a portable scenario for fault tests
rules: ["4"]
system_prompt: sys
providers:
  openai.main:
    kind: openai
    model: gpt-test
    context_window: 8000
    fake:
      script:
        - text: null
          tool_calls: [{{name: echo, arguments: {{text: hi}}, id: call_1}}]
      default: {{text: done}}
tools:
  - name: echo
conversation:
  - user: look it up
  - user: next
expect:
  answers: [done, done]
"""


def library(folder: Path, count: int = 1) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"s{index}.yaml"
        path.write_text(SCENARIO.format(id=f"s{index}"), encoding="utf-8")
        paths.append(path)
    return paths


def run(body: str, tmp_path: Path, *, count: int = 1, timeout_s: float = 1.0) -> list[SutOutcome]:
    """The suite over ``count`` portable scenarios against the script's runtime."""
    loaded = load_all(library(tmp_path / "lib", count))
    argv = [sys.executable, "-c", body, str(tmp_path)]
    suite = SutSuite(argv, op_timeout_s=timeout_s, scenario_timeout_s=30.0)
    return run_sut_suite(suite, loaded, lambda _: None, StopRequest())
