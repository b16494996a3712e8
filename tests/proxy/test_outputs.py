"""What the proxy writes: the findings file (a line per finding, flushed as it comes), the
cassette (every exchange, replayable), and never a key, whole or partly masked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
from starlette.types import ASGIApp

from fakes.pytest_plugin import FakeServerFactory
from fakes.scripting.script import FakeScript, fail
from harness.proxy import CassetteRecorder, FindingSink, JsonlFindings, Sinks, read_cassette
from harness.proxy.record import chunks_of
from tests.proxy.conftest import DerivingObserver, ProxyFactory
from tests.proxy.upstreams import echo_app

ServeApp = Callable[[ASGIApp], str]
CANARY = "sk-CANARY-7f3a9c2e51d84b60e2"
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
SESSION = "x-trimscope-session"


def test_each_finding_is_a_json_line_written_as_it_happens(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory, tmp_path: Path
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    findings = JsonlFindings(tmp_path / "findings.jsonl")
    proxy = start_proxy(fake.base_url + "/v1", observer=DerivingObserver(), sinks=[findings])
    for call in (1, 2):
        httpx.post(proxy.url + "/v1/chat/completions", json=CHAT, headers={SESSION: "s"})
        proxy.kept.wait(call)
        lines = (tmp_path / "findings.jsonl").read_text().splitlines()  # while it runs
        assert [json.loads(line)["call"] for line in lines] == list(range(1, call + 1))
    [_, found, _] = proxy.kept.seen[-1]
    assert json.loads(lines[-1]) == found[0].to_json()


def test_the_cassette_holds_every_exchange_replayable(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory, tmp_path: Path
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    recorder = CassetteRecorder(tmp_path)
    proxy = start_proxy(fake.base_url + "/v1", observer=DerivingObserver(), sinks=[recorder])
    plain = httpx.post(proxy.url + "/v1/chat/completions?x=1", json=CHAT)
    with httpx.stream("POST", proxy.url + "/v1/chat/completions",
                      json={**CHAT, "stream": True}) as streamed:  # fmt: skip
        pieces = list(streamed.iter_raw())
    proxy.kept.wait(2)
    first, second = read_cassette(recorder.path)
    assert (first["method"], first["path"], first["query"], first["status"]) == (
        "POST", "/v1/chat/completions", "x=1", 200
    )  # fmt: skip
    assert json.loads(str(first["request_body"])) == CHAT
    assert b"".join(chunks_of(first)) == plain.content
    assert first["findings"] == [f.to_json() for f in proxy.kept.seen[0][1]]
    assert second["streamed"] is True
    assert b"".join(chunks_of(second)) == b"".join(pieces)
    assert second["response_headers"]["content-type"].startswith("text/event-stream")  # type: ignore[index]


def _every_output(folder: Path) -> bytes:
    return b"\n".join(path.read_bytes() for path in folder.rglob("*") if path.is_file())


def test_keys_are_forwarded_but_written_nowhere_not_even_echoed(
    start_proxy: ProxyFactory, serve_app: ServeApp, fake_server: FakeServerFactory,
    tmp_path: Path,
) -> None:  # fmt: skip
    """The echo upstream sends every header and the query back in its body, the fake's
    auth fault echoes the key partly masked (as OpenAI does): both reach the client, none
    reaches the findings, the cassette, or what the sinks are given."""
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    sinks: list[FindingSink] = [
        JsonlFindings(outputs / "findings.jsonl"),
        CassetteRecorder(outputs),
    ]
    echo = start_proxy(serve_app(echo_app()), observer=DerivingObserver(), sinks=sinks)
    keyed = [{"authorization": f"Bearer {CANARY}"}, {"x-api-key": CANARY},
             {"x-goog-api-key": CANARY}, {"api-key": CANARY}]  # fmt: skip
    for headers in keyed:
        answer = httpx.post(echo.url + "/v1/chat/completions", json=CHAT, headers=headers)
        assert CANARY in answer.text  # forwarded: the upstream saw it
    assert CANARY in httpx.get(echo.url + "/v1/models", params={"key": CANARY}).text
    script = FakeScript(default=fail("auth"))
    fake = fake_server("openai", "m", context_window=4000, script=script)
    (outputs / "auth").mkdir()
    auth_sinks: list[FindingSink] = [
        JsonlFindings(outputs / "auth.jsonl"),
        CassetteRecorder(outputs / "auth"),
    ]
    masked = start_proxy(fake.base_url + "/v1", observer=DerivingObserver(), sinks=auth_sinks)
    refused = httpx.post(masked.url + "/v1/chat/completions", json=CHAT,
                         headers={"authorization": f"Bearer {CANARY}"})  # fmt: skip
    assert refused.status_code == 401
    assert CANARY[-4:] in refused.text  # the masked echo: head and tail of the key
    echo.kept.wait(len(keyed) + 1)
    masked.kept.wait()
    for sink in [*sinks, *auth_sinks]:
        sink.close()
    written = _every_output(outputs)
    assert b'"trim"' in written  # the findings were written, and quote the answers
    assert CANARY.encode() not in written
    assert CANARY[-12:].encode() not in written
    assert b"***" not in written  # the masked echo is redacted too
    handed = repr([*echo.kept.seen, *masked.kept.seen])
    assert CANARY not in handed
    assert CANARY[-12:] not in handed


def test_an_output_that_cannot_be_written_is_reported_once_and_the_proxy_goes_on(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory, tmp_path: Path
) -> None:
    """``/dev/full`` refuses every write (ENOSPC), as a full disk does."""
    fake = fake_server("openai", "m", context_window=4000)
    said: list[str] = []
    full = JsonlFindings(Path("/dev/full"))
    fine = JsonlFindings(tmp_path / "fine.jsonl")
    sinks = Sinks([full, fine], on_error=said.append)
    proxy = start_proxy(fake.base_url + "/v1", observer=DerivingObserver(), sinks=[sinks])
    for _ in range(3):
        answer = httpx.post(proxy.url + "/v1/chat/completions", json=CHAT)
        assert answer.status_code == 200
    proxy.kept.wait(3)
    assert len(said) == 1
    assert "/dev/full" in said[0]
    assert sinks.failed == [full]
    assert len((tmp_path / "fine.jsonl").read_text().splitlines()) == 3
