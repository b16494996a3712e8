"""A scripted runtime that makes a side request: before each turn after the first it asks
the model to summarise the conversation in a request of its own (one user message holding
the transcript, no system prompt, as LangChain's ``SummarizationMiddleware`` and Google
ADK's compaction summariser do), then sends the conversation. Real HTTP to the fake, with
``urllib``. ``python -c SCRIPT MODE``:

- ``summarise``: as above, the conversation kept whole;
- ``drop-system``: the same, but the conversation's own requests after the first lose the
  system prompt (a real ``system_kept`` violation);
- ``announce``: the side request holds no transcript (only "Summarise briefly."), and the
  runtime announces it (``event`` of kind ``side_request`` with its request number);
- ``silent``: the same request, not announced.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.interrupt import StopRequest
from harness.scenarios.loader import load_all
from harness.sut.suite import JudgedSession, SutOutcome, SutSuite, run_sut_suite

SCRIPT = r"""
import json, sys, urllib.request
MODE = sys.argv[1]
def out(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def post(provider, rows):
    body = json.dumps({"model": provider["model"], "messages": rows}).encode()
    request = urllib.request.Request(
        provider["base_url"] + "/chat/completions", data=body,
        headers={"content-type": "application/json",
                 "authorization": "Bearer " + provider["api_key"]})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["choices"][0]["message"]["content"]
sessions = {}
for line in sys.stdin:
    m = json.loads(line)
    op, s = m["op"], m.get("session")
    if op == "hello":
        out({"op": "hello", "protocol": 1, "name": "summarising", "version": "0",
             "wires": ["openai_chat"], "features": ["system"]})
    elif op == "open":
        sessions[s] = {"provider": m["provider"], "system": m["system"], "history": [], "sent": 0}
        out({"op": "opened", "session": s})
    elif op == "user":
        state = sessions[s]
        history, provider = state["history"], state["provider"]
        if history:
            if MODE in ("announce", "silent"):
                post(provider, [{"role": "user", "content": "Summarise briefly."}])
            else:
                transcript = "\n".join(r["role"] + ": " + r["content"] for r in history)
                post(provider, [{"role": "user", "content": "Summarise:\n" + transcript}])
            state["sent"] += 1
            if MODE == "announce":
                out({"op": "event", "session": s, "kind": "side_request", "call": state["sent"]})
        history.append({"role": "user", "content": m["text"]})
        head = [{"role": "system", "content": state["system"]}]
        if MODE == "drop-system" and state["sent"]:
            head = []
        answer = post(provider, head + history)
        state["sent"] += 1
        history.append({"role": "assistant", "content": answer})
        out({"op": "answer", "session": s, "text": answer})
    elif op == "bye":
        break
"""

SCENARIO = """\
id: summarised
title: two turns a summarising runtime summarises between
rules: ["4"]
system_prompt: You are a careful astronomer.
providers:
  openai.main:
    kind: openai
    model: gpt-test
    context_window: 8000
    fake:
      default: {text: Saturn has the brightest rings.}
conversation:
  - user: Which planets have rings around them?
  - user: How many moons does Saturn have today?
expect:
  answers: [Saturn has the brightest rings., Saturn has the brightest rings.]
"""


def run_summarising(
    mode: str, tmp_path: Path, judged: list[JudgedSession] | None = None
) -> SutOutcome:
    """The one scenario through the script in ``mode`` (its judged session appended to
    ``judged``)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "summarised.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    argv = [sys.executable, "-c", SCRIPT, mode]
    observers = [] if judged is None else [judged.append]
    suite = SutSuite(argv, op_timeout_s=20.0, observers=observers, references=None)
    [outcome] = run_sut_suite(suite, load_all([path]), lambda _: None, StopRequest())
    return outcome
