"""The adapter helper is stdlib only, so a runtime's own environment can copy it: a
40-line runtime on a copy of it, run by a bare interpreter (``python -S -E``, no
trimscope importable), talks to the fakes over HTTP with urllib and passes."""

from __future__ import annotations

import ast
import asyncio
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from typing_extensions import Buffer

from harness.interrupt import StopRequest
from harness.scenarios.loader import load_all
from harness.sut import adapter
from harness.sut.suite import SutSuite, run_sut_suite

STDLIB = set(sys.stdlib_module_names) | {"__future__"}

CHAT_RUNTIME = """\
import json, urllib.request
from adapter import Adapter, Callbacks, Session, TurnFailed

async def on_open(session: Session) -> None:
    system = session.open["system"]
    session.state = [{"role": "system", "content": system}] if system else []

async def on_user(session: Session, text: str) -> str:
    history, provider = session.state, session.open["provider"]
    history.append({"role": "user", "content": text})
    body = json.dumps({"model": provider["model"], "messages": history}).encode()
    request = urllib.request.Request(
        provider["base_url"] + "/chat/completions", data=body,
        headers={"content-type": "application/json",
                 "authorization": "Bearer " + provider["api_key"]})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.load(response)["choices"][0]["message"]["content"]
    except urllib.error.HTTPError as error:
        raise TurnFailed("provider", f"HTTP {error.code}") from error
    history.append({"role": "assistant", "content": answer})
    return answer

Adapter("urllib-chat", "1", ["openai_chat"], ["system"], Callbacks(on_open, on_user)).main()
"""

SCENARIO = """\
id: chat
title: three plain turns
rules: ["4"]
system_prompt: be brief
providers:
  openai.main:
    kind: openai
    model: gpt-test
    context_window: 8000
    fake:
      default: {text: fine}
conversation:
  - user: one
  - user: two
  - user: three
expect:
  answers: [fine, fine, fine]
"""


def test_the_adapter_imports_only_the_standard_library() -> None:
    tree = ast.parse(Path(adapter.__file__).read_text(encoding="utf-8"))
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        for name in (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    }
    assert imported <= STDLIB, imported - STDLIB


@pytest.mark.integration
def test_a_forty_line_runtime_on_a_copy_of_the_adapter_passes(tmp_path: Path) -> None:
    shutil.copy(adapter.__file__, tmp_path / "adapter.py")
    (tmp_path / "runtime.py").write_text(CHAT_RUNTIME, encoding="utf-8")
    assert len(CHAT_RUNTIME.splitlines()) <= 40
    (tmp_path / "chat.yaml").write_text(SCENARIO, encoding="utf-8")
    # -S -E: no site-packages, no PYTHONPATH: nothing but the standard library and the copy
    argv = [sys.executable, "-S", "-E", str(tmp_path / "runtime.py")]
    suite = SutSuite(argv, op_timeout_s=10.0)
    outcomes = run_sut_suite(suite, load_all([tmp_path / "chat.yaml"]), print, StopRequest())
    (only,) = outcomes
    assert (only.verdict, only.violations, only.detail) == ("PASS", (), "")
    assert only.requests == 3
    assert only.identical == 3  # a plain chat client sends what the reference sends


def test_the_adapter_survives_a_bad_line_and_a_turn_for_no_session() -> None:
    trimscope = Path(sys.executable).with_name("trimscope")
    lines = b'junk\n{"op":"user","session":"x","text":"hi"}\n{"op":"hello","protocol":1}\n'
    argv = [str(trimscope), "sut", "reference"]
    done = subprocess.run(argv, input=lines, capture_output=True, timeout=60, check=False)
    assert done.returncode == 0
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies[0] == {
        "op": "error", "session": "x", "kind": "internal", "message": "no such session is open"
    }  # fmt: skip
    assert replies[1]["op"] == "hello"
    assert b"ignored a non-JSON line: b'junk\\n'" in done.stderr


class _Recording(io.BytesIO):
    """stdout's buffer as the adapter writes it: one entry per write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []

    def write(self, data: Buffer) -> int:
        self.writes.append(bytes(data))
        return super().write(data)


def test_events_go_out_with_the_turns_next_message_in_one_write() -> None:
    """Each write to the pipe wakes trimscope: a turn's events wait for its answer."""

    async def on_user(session: adapter.Session, text: str) -> str:
        for dropped in (1, 2, 3):
            session.event("trim", dropped_messages=dropped)
        return "done"

    async def turn() -> list[bytes]:
        runtime = adapter.Adapter(
            "t", "1", ["openai_chat"], ["events"], adapter.Callbacks(_nothing, on_user)
        )
        out = _Recording()
        runtime._out = out  # stdout, recorded
        await runtime.dispatch({"op": "open", "session": "s"})
        await runtime.dispatch({"op": "user", "session": "s", "text": "hi"})
        await asyncio.gather(*runtime._turns)
        return out.writes

    opened, answered = asyncio.run(turn())
    assert json.loads(opened)["op"] == "opened"
    lines = [json.loads(line) for line in answered.splitlines()]
    assert [(m["op"], m.get("dropped_messages")) for m in lines] == [
        ("event", 1), ("event", 2), ("event", 3), ("answer", None)
    ]  # fmt: skip


async def _nothing(session: adapter.Session) -> None:
    return None
