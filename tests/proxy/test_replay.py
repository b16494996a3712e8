"""``fake serve --replay DIR``: a real proxy records a real fake (``--record``), then the
replay answers the same requests with the same bytes (streams too, retries in recorded
order), matches a body whatever its key order, and answers an unknown request with a 404
naming the closest record and where it differs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from starlette.types import ASGIApp
from typer.testing import CliRunner

from fakes.pytest_plugin import FakeServerFactory
from fakes.scripting.script import FakeScript, fail
from harness.cli import app
from harness.cli.fake_replay import replay_app
from harness.proxy import CassetteRecorder
from tests.proxy.conftest import DerivingObserver, ProxyFactory

ServeApp = Callable[[ASGIApp], str]
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
PATH = "/v1/chat/completions"


def _record(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory, folder: Path
) -> dict[str, bytes]:
    script = FakeScript(steps=(fail("rate_limit", retry_after=2),))
    fake = fake_server("openai", "m", context_window=4000, script=script)
    proxy = start_proxy(
        fake.base_url + "/v1", observer=DerivingObserver(), sinks=[CassetteRecorder(folder)]
    )
    limited = httpx.post(proxy.url + PATH, json=CHAT)
    answered = httpx.post(proxy.url + PATH, json=CHAT)
    with httpx.stream("POST", proxy.url + PATH, json={**CHAT, "stream": True}) as streamed:
        pieces = b"".join(streamed.iter_raw())
    proxy.kept.wait(3)
    assert (limited.status_code, answered.status_code) == (429, 200)
    return {"limited": limited.content, "answered": answered.content, "streamed": pieces}


def test_the_replay_answers_as_recorded(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory, serve_app: ServeApp, tmp_path: Path
) -> None:
    recorded = _record(start_proxy, fake_server, tmp_path)
    base = serve_app(replay_app(tmp_path))
    first = httpx.post(base + PATH, json=CHAT)
    assert (first.status_code, first.content) == (429, recorded["limited"])
    assert first.headers["retry-after"] == "2"
    # the same request again: the next record of its key, then that last one again
    reordered = json.dumps({"messages": CHAT["messages"], "model": "m"}, indent=2)
    for _ in range(2):
        again = httpx.post(
            base + PATH, content=reordered, headers={"content-type": "application/json"}
        )
        assert (again.status_code, again.content) == (200, recorded["answered"])
    with httpx.stream("POST", base + PATH, json={**CHAT, "stream": True}) as streamed:
        assert streamed.headers["content-type"].startswith("text/event-stream")
        assert b"".join(streamed.iter_raw()) == recorded["streamed"]


def test_an_unrecorded_request_gets_a_404_naming_the_closest_record(
    start_proxy: ProxyFactory, fake_server: FakeServerFactory, serve_app: ServeApp, tmp_path: Path
) -> None:
    _record(start_proxy, fake_server, tmp_path)
    base = serve_app(replay_app(tmp_path))
    changed = {"model": "m", "messages": [{"role": "user", "content": "hello!"}]}
    missed = httpx.post(base + PATH, json=changed)
    assert missed.status_code == 404
    error = missed.json()["error"]
    [cassette] = tmp_path.glob("*.jsonl")
    assert error["type"] == "no_recorded_exchange"
    assert error["closest"]["source"] == f"{cassette}:1"
    assert error["closest"]["differences"] == ["body.messages[0].content"]
    assert error["message"] == (
        f"no recorded exchange matches POST {PATH}; closest: {cassette}:1,"
        " differs at: body.messages[0].content"
    )
    elsewhere = httpx.get(base + "/v1/models").json()["error"]
    assert elsewhere["closest"]["differences"][:2] == [
        "method (POST recorded)",
        f"path ({PATH} recorded)",
    ]


BASE = ["fake", "serve", "--replay"]


@pytest.mark.parametrize(
    ("lines", "extra", "named"),
    [
        (None, (), "found no folder"),
        ([], (), "found none"),
        (['{"version": 1}', "{}"], (), "version: expected 1, found None"),
        (["not json", "{}"], (), ":1: expected a JSON exchange"),
        (['{"version": 1, "status": "200"}'], (), "status: expected int or null, found str"),
        (['{"version": 1, "status": null}'], (), "found none (1 without an answer"),
        (['{"version": 1, "status": null}'], ("--fault-rate", "hang=0.1"), "--fault-rate"),
    ],
)
def test_a_folder_that_cannot_be_replayed_exits_2_naming_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lines: list[str] | None,
    extra: tuple[str, ...],
    named: str,
) -> None:
    monkeypatch.setattr("harness.cli.fake.serve_forever", lambda *_, **__: pytest.fail("served"))
    folder = tmp_path / "cassettes"
    if lines is not None:
        folder.mkdir()
        (folder / "exchanges-1.jsonl").write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, [*BASE, str(folder), *extra])
    assert result.exit_code == 2, result.output
    flat = "".join(result.output.translate(str.maketrans("", "", "│╭╮╰╯─")).split())
    assert "".join(named.split()) in flat, result.output
    assert "--replay" in flat or "--fault-rate" in flat
    assert "Traceback" not in result.output


def test_without_replay_the_fakes_options_are_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("harness.cli.fake.serve_forever", lambda *_, **__: pytest.fail("served"))
    result = CliRunner().invoke(app, ["fake", "serve", "--provider", "openai", "--model", "m"])
    assert result.exit_code == 2
    assert "--context-window" in result.output
