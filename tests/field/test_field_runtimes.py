"""Real runtimes from PyPI, run through a real ``trimscope proxy`` against a real fake.

LangChain (``trim_messages(strategy="last")``) and LiteLLM (``litellm.utils.trim_messages``)
each run their own agent loop (``tests/field/*.py``) in a venv of their own, as a user
would, with a 400-token window, six turns and one tool round a turn. At a budget of 80
tokens both keep a tool result whose call they trimmed away; the fake refuses it as OpenAI
does (400), and the proxy's findings say so: an ``orphan_tool_result`` on the call the fake
refused. LangChain also sends, in the middle of a turn, a request without the turn's
question (the provider accepts it): ``user_dropped`` with status 200.

Skipped with a reason when a runtime's venv is missing (``make test`` installs them),
failed under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fakes import FakeProvider, FakeScript, FakeServer, ScriptedToolCall, call_tools, say

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent
TRIMSCOPE = Path(sys.executable).with_name("trimscope")
WINDOW = 400
BUDGET = 80
TURNS = 6
RUN_TIMEOUT_S = 180
INSTALL_HINT = "run scripts/install-field-runtimes.sh (make test does)"

pytestmark = pytest.mark.integration


def pins_of(name: str) -> list[str]:
    """What the install script installs for ``name`` (its stamp's words)."""
    script = (ROOT / "scripts" / "install-field-runtimes.sh").read_text(encoding="utf-8")
    for line in script.splitlines():
        words = shlex.split(line) if line.startswith("install ") else []
        if words[:2] == ["install", name]:
            return words[2:]
    raise LookupError(f"scripts/install-field-runtimes.sh installs no {name}")


@dataclass(frozen=True)
class Runtime:
    name: str
    program: str

    @property
    def python(self) -> Path:
        return ROOT / ".tools" / f"field-{self.name}" / "bin" / "python"

    def require(self) -> Path:
        """The venv's python; skipped (failed under ``CI=true``) when the venv is missing
        or was installed with other pins than the install script's today (its stamp)."""
        stamp = self.python.parent.parent / ".installed"
        if stamp.is_file() and self.python.is_file():
            if stamp.read_text(encoding="utf-8").split() == pins_of(self.name):
                return self.python
            message = f"{self.name}'s venv has other pins than the install script's: {INSTALL_HINT}"
        else:
            message = f"{self.name} is not installed in .tools/field-{self.name}: {INSTALL_HINT}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}; CI must run the real-runtime tests")
        pytest.skip(message)


LANGCHAIN = Runtime("langchain", "langchain_trim.py")
LITELLM = Runtime("litellm", "litellm_trim.py")


def _script() -> FakeScript:
    """Each turn: a tool call, then the answer (by call position: enough until the first
    request the fake refuses, which is what the tests look at)."""
    steps = []
    for n in range(4 * TURNS):
        steps += [call_tools(ScriptedToolCall("lookup", {"topic": f"t{n}"}, id=f"call_{n}"))]
        steps += [say(f"Answer {n}")]
    return FakeScript(steps=tuple(steps))


@dataclass(frozen=True)
class Proxied:
    fake: FakeProvider
    findings: list[dict[str, object]]
    turns: list[dict[str, object]]


Run = Callable[[Runtime, str], Proxied]


@pytest.fixture
def proxied_run(tmp_path: Path) -> Iterator[Run]:
    """Runs one runtime through a real proxy in front of a real fake; yields a function
    that returns the fake (its request log), the proxy's findings and the turns' outcomes."""
    stack: list[subprocess.Popen[str]] = []

    def run(runtime: Runtime, session: str) -> Proxied:
        python = runtime.require()
        fake = FakeProvider("openai", "m", context_window=WINDOW, script=_script())
        findings_path = tmp_path / f"{session}.jsonl"
        with FakeServer(fake) as server:
            proxy = subprocess.Popen(
                [str(TRIMSCOPE), "proxy", "--upstream",
                 f"{server.base_url}/v1", "--wire", "openai_chat", "--port", "0",
                 "--findings-jsonl", str(findings_path)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
            )  # fmt: skip
            stack.append(proxy)
            assert proxy.stdout is not None
            base_url = proxy.stdout.readline().strip()
            assert base_url.startswith("http://127.0.0.1:"), (
                proxy.stderr.read() if proxy.stderr else ""
            )
            done = subprocess.run(
                [str(python), str(PROGRAMS / runtime.program), "--base-url", base_url,
                 "--session", session, "--budget", str(BUDGET), "--turns", str(TURNS)],
                capture_output=True, text=True, timeout=RUN_TIMEOUT_S, cwd=ROOT, check=False,
            )  # fmt: skip
            proxy.send_signal(signal.SIGTERM)
            assert proxy.wait(timeout=30) == 128 + signal.SIGTERM
        assert done.returncode == 0, done.stderr[-2000:]
        turns = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        found = [json.loads(line) for line in findings_path.read_text().splitlines()]
        return Proxied(fake, found, turns)

    yield run
    for process in stack:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def _refused_for_pairing(fake: FakeProvider) -> list[int]:
    """1-based calls the fake refused as OpenAI refuses a tool result without its call."""
    return [
        e.call_index + 1
        for e in fake.log.calls()
        if e.call_index is not None
        and e.status == 400
        and "tool_call" in json.dumps(e.response_body)
    ]


@pytest.mark.parametrize("runtime", [LANGCHAIN, LITELLM], ids=lambda r: r.name)
def test_a_trim_that_keeps_a_tool_result_without_its_call_is_an_orphan_the_provider_refused(
    proxied_run: Run, runtime: Runtime
) -> None:
    result = proxied_run(runtime, f"{runtime.name}-80")
    refused = _refused_for_pairing(result.fake)
    assert refused, "the runtime never sent a broken pair: nothing to observe"
    orphans = [f for f in result.findings if f["kind"] == "orphan_tool_result"]
    assert sorted({int(str(f["call"])) for f in orphans}) == refused
    assert all(f["status"] == 400 and f["session"] == f"{runtime.name}-80" for f in orphans)
    assert any(t["outcome"] == "error" for t in result.turns)  # what the user saw


def test_langchain_sends_a_mid_turn_request_without_the_turns_question(
    proxied_run: Run,
) -> None:
    result = proxied_run(LANGCHAIN, "langchain-user")
    dropped = [f for f in result.findings if f["kind"] == "user_dropped"]
    assert dropped, result.findings
    calls = {e.call_index + 1: e for e in result.fake.log.calls() if e.call_index is not None}
    for finding in dropped:
        sent = calls[int(str(finding["call"]))]
        assert finding["status"] == sent.status == 200  # accepted silently
        assert all(row.role != "user" for row in sent.rows)
