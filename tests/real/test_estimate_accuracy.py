"""The estimate-accuracy benchmark measures what the server would report: its count for a
request equals the ``usage.prompt_tokens`` of a real chat completion of that request."""

from __future__ import annotations

import httpx
import pytest

from bench.estimate_accuracy import (
    KINDS,
    Sample,
    code_samples,
    content_kind,
    history_samples,
    measure,
    real_tokens,
    scenario_samples,
    table,
)
from harness.providers.clients.openai_chat import chat_messages
from harness.runtime import ChatMessage, ToolCall, native_tool_call_row, native_tool_result_row
from tests.real.server import ALIAS, RealServer

SYSTEM = ChatMessage("system", "You are a careful coding agent.")


def test_content_kinds() -> None:
    call = native_tool_call_row(None, [ToolCall("c1", "shell", '{"command":"ls -la"}')])
    result = native_tool_result_row("c1", "total 0\ndrwxr-xr-x 2 root root 40 .")
    assert content_kind([SYSTEM, ChatMessage("user", "Fix the build, please.")]) == "ASCII prose"
    assert content_kind([SYSTEM, ChatMessage("user", "ok"), call, result]) == "JSON tool rows"
    assert content_kind([SYSTEM, ChatMessage("user", "Résumé → café")]) == "non-ASCII"


def test_every_source_gives_samples_of_every_kind() -> None:
    samples = [*scenario_samples(), *history_samples(400), *code_samples()]
    assert {s.kind for s in samples} == set(KINDS)
    assert all(s.messages[0].role == "system" for s in samples)


@pytest.mark.integration
@pytest.mark.parametrize(
    "rows",
    [
        [ChatMessage("user", "Reply with the word OK.")],
        [ChatMessage("user", "Résumé des données: café, naïve → δ λ 🦀")],
        [ChatMessage("user", "def f(x):\n    return {'a': [x, x + 1]}\n")],
    ],
    ids=["prose", "non-ascii", "code"],
)
def test_the_measured_count_is_the_servers_reported_prompt_tokens(
    rows: list[ChatMessage], llama_512: RealServer
) -> None:
    messages = [SYSTEM, *rows]
    with httpx.Client(timeout=60.0) as http:
        measured = real_tokens(http, llama_512.url, messages)
        reply = http.post(
            llama_512.url + "/v1/chat/completions",
            json={"model": ALIAS, "max_tokens": 1, "messages": chat_messages(messages)},
        )
    assert reply.status_code == 200
    assert measured == reply.json()["usage"]["prompt_tokens"]


@pytest.mark.integration
def test_the_table_has_a_row_per_kind(llama_512: RealServer) -> None:
    samples = [
        Sample("t", "code", (SYSTEM, ChatMessage("user", "x = [1, 2, 3]\nprint(x)\n"))),
        Sample("t", "ASCII prose", (SYSTEM, ChatMessage("user", "Read the file and fix it."))),
    ]
    results = measure(llama_512.url, samples)
    assert all(r.real > 0 and r.estimate > 0 for r in results)
    lines = table(results, "test")
    assert [line.split()[0] for line in lines[3:]] == ["ASCII", "code", "JSON", "non-ASCII", "all"]
