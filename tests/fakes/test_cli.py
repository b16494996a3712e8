"""``trimscope fake serve`` as a user runs it: a subprocess, a real socket, real signals."""

from __future__ import annotations

import collections
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fakes.shapes import fixture
from tests.fakes.wire_requests import text_for_tokens

pytestmark = pytest.mark.integration
STARTUP_SECONDS = 20.0


def _command() -> list[str]:
    script = Path(sys.executable).with_name("trimscope")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from harness.cli import main; main()"]


class Served:
    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [*_command(), "fake", "serve", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        stdout = self.process.stdout
        self.reader = threading.Thread(
            target=lambda: collections.deque(map(self.lines.put, stdout), maxlen=0), daemon=True
        )
        self.reader.start()

    def base_url(self) -> str:
        try:
            return self.lines.get(timeout=STARTUP_SECONDS).strip()
        except queue.Empty:
            self.process.kill()
            raise AssertionError("the server printed no base URL") from None

    def stop(self, sig: int) -> int:
        self.process.send_signal(sig)
        return self.process.wait(timeout=15)


@pytest.fixture
def served() -> Iterator[list[Served]]:
    started: list[Served] = []
    yield started
    for item in started:
        if item.process.poll() is None:
            item.process.kill()
        item.process.wait(timeout=15)
        item.reader.join(timeout=15)
        assert item.process.stdout is not None
        item.process.stdout.close()


def _serve(served: list[Served], *args: str) -> Served:
    item = Served(*args)
    served.append(item)
    return item


def test_done_when_openai_fake_answers_overflow_and_normal_completion(
    served: list[Served],
) -> None:
    server = _serve(
        served, "--provider", "openai", "--model", "gpt-test", "--context-window", "1000"
    )
    base = server.base_url()
    assert base.startswith("http://127.0.0.1:")
    big = {"model": "gpt-test", "messages": [{"role": "user", "content": text_for_tokens(1200)}]}
    overflow = httpx.post(base + "/v1/chat/completions", json=big, timeout=10.0)
    assert overflow.status_code == 400
    assert overflow.json() == {
        "error": {
            "message": "This model's maximum context length is 1000 tokens. However, your "
            "messages resulted in 1200 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    small = {"model": "gpt-test", "messages": [{"role": "user", "content": "hello world"}]}
    completion = httpx.post(base + "/v1/chat/completions", json=small, timeout=10.0)
    assert completion.status_code == 200
    body = completion.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"]["role"] == "assistant"
    assert body["usage"]["prompt_tokens"] == 7
    assert body["usage"]["total_tokens"] == 7 + body["usage"]["completion_tokens"]
    assert server.stop(signal.SIGINT) == 0


def test_sigterm_shuts_down_cleanly_and_scripts_load_from_yaml(
    served: list[Served], tmp_path: Path
) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("steps:\n  - fault: {kind: rate_limit, retry_after: 9}\n", "utf-8")
    server = _serve(
        served,
        "--provider",
        "anthropic",
        "--model",
        "claude-test",
        "--context-window",
        "500",
        "--counter",
        "provider",
        "--script",
        str(script),
    )
    base = server.base_url()
    assert httpx.get(base + "/v1/models", timeout=10.0).json()["data"][0]["max_input_tokens"] == 500
    body = {
        "model": "claude-test",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "hi"}],
    }
    limited = httpx.post(base + "/v1/messages", json=body, timeout=10.0)
    assert (limited.status_code, limited.headers["retry-after"]) == (429, "9")
    assert httpx.post(base + "/v1/messages", json=body, timeout=10.0).status_code == 200
    assert server.stop(signal.SIGTERM) == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(base + "/v1/models", timeout=2.0)


@pytest.mark.parametrize(
    ("option", "value"),
    [("--provider", "nope"), ("--variant", "nope"), ("--foreign-history", "nope")],
)
def test_bad_options_are_usage_errors(option: str, value: str) -> None:
    args = {"--provider": "openai", "--model": "m", "--context-window": "10", option: value}
    result = subprocess.run(
        [*_command(), "fake", "serve", *(x for pair in args.items() for x in pair)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "nope" in result.stderr


def test_foreign_history_is_taken_as_opaque_unless_served_strict(served: list[Served]) -> None:
    block = fixture("foreign_history.json")["anthropic_thinking"]["block"]
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "b"},
    ]
    body = {"model": "m", "max_tokens": 64, "messages": history}
    common = ("--provider", "anthropic", "--model", "m", "--context-window", "10000")
    opaque = _serve(served, *common).base_url()
    strict = _serve(served, *common, "--foreign-history", "strict").base_url()
    assert httpx.post(opaque + "/v1/messages", json=body, timeout=10).status_code == 200
    refused = httpx.post(strict + "/v1/messages", json=body, timeout=10)
    assert refused.status_code == 400
    assert "signature" in refused.json()["error"]["message"]
