"""``trimscope proxy`` as a user runs it: a real process, real requests, a real signal.
SIGINT and SIGTERM stop it with exit 130 / 143 and every output written; the key the
client sent is in no output, no record, not on stdout or stderr; nothing is left behind."""

from __future__ import annotations

import concurrent.futures
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from starlette.types import ASGIApp

from fakes.pytest_plugin import FakeServerFactory
from harness.proxy import names as n
from harness.proxy import read_cassette
from harness.proxy.record import chunks_of
from tests.interrupting import (
    EXIT_FOR,
    Running,
    assert_nothing_left,
    finish,
    start,
    wait_for,
)
from tests.proxy.upstreams import EndlessStream, silent_app

CANARY = "sk-CANARY-proxy-cli-93b1d07e4c"
READY = "SIGINT or SIGTERM stops"
STARTUP_S = 30.0


def _proxy(upstream: str, tmp_path: Path, *extra: str) -> tuple[Running, str]:
    """A running ``trimscope proxy`` and the base URL it announced."""
    args: list[str | Path] = [
        "proxy", "--upstream", upstream, "--wire", "openai_chat", "--port", "0",
        "--findings-jsonl", tmp_path / "findings.jsonl", "--record", tmp_path / "record",
        "--metrics-out", tmp_path / "metrics.prom", *extra,
    ]  # fmt: skip
    running = start(args, tmp_path)
    wait_for(running, READY, STARTUP_S)
    found = re.search(r"proxy: (\S+) -> ", running.stderr[-1])
    assert found is not None, running.stderr
    return running, found.group(1)


def _sample(metrics: str, name: str, labels: str = "") -> float:
    found = re.search(rf"^{re.escape(name + labels)} (\S+)$", metrics, re.M)
    assert found is not None, f"no {name}{labels}"
    return float(found.group(1))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_it_with_every_output_written_and_no_key_anywhere(
    fake_server: FakeServerFactory, tmp_path: Path, signum: signal.Signals
) -> None:
    fake = fake_server("openai", "m", context_window=4000)
    running, base = _proxy(fake.base_url + "/v1", tmp_path, "--serve-metrics", "0")
    [live] = [line.split()[-1] for line in running.stderr if "metrics: http" in line]
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    for stream in (False, True):
        answer = httpx.post(base + "/chat/completions", json={**chat, "stream": stream},
                            headers={"authorization": f"Bearer {CANARY}"})  # fmt: skip
        assert answer.status_code == 200
    served = httpx.get(live).text  # live while it runs
    assert _sample(served, f"{n.REQUESTS}_total", '{status_class="2xx"}') == 2
    running.process.send_signal(signum)
    code, out, err = finish(running)
    assert code == EXIT_FOR[signum]
    assert out.strip() == base  # stdout: the URL to give the client, and nothing else
    assert f"stopped by {signum.name}" in err
    assert "Traceback" not in err
    metrics = (tmp_path / "metrics.prom").read_text()
    assert _sample(metrics, f"{n.REQUESTS}_total", '{status_class="2xx"}') == 2
    assert _sample(metrics, "trimscope_run_interrupted", f'{{signal="{signum.name}"}}') == 1
    [cassette] = (tmp_path / "record").iterdir()
    assert [entry["streamed"] for entry in read_cassette(cassette)] == [False, True]
    assert (tmp_path / "findings.jsonl").read_text() == ""  # the observer found nothing yet
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert CANARY.encode() not in written + out.encode() + err.encode()
    assert_nothing_left(running)


def test_a_stop_during_a_stream_ends_it_and_records_the_partial_exchange(
    serve_app: Callable[[ASGIApp], str], tmp_path: Path
) -> None:
    endless = EndlessStream()
    running, base = _proxy(serve_app(endless.app()), tmp_path)
    with httpx.stream("POST", base + "/chat/completions", json={}) as answer:
        chunks = answer.iter_raw()
        first = next(chunks)
        running.process.send_signal(signal.SIGTERM)
        with pytest.raises(httpx.HTTPError):  # cut once the graceful wait (5 s) is over
            for _ in chunks:
                pass
    code, _, _ = finish(running)
    assert code == EXIT_FOR[signal.SIGTERM]
    assert endless.closed.wait(5), "the upstream stream is still open"
    [cassette] = (tmp_path / "record").iterdir()
    [entry] = read_cassette(cassette)
    assert entry["outcome"] == "client_left"
    assert chunks_of(entry)[0] == first
    assert_nothing_left(running)


def test_a_stop_while_the_upstream_is_silent_records_the_exchange_cut_short(
    serve_app: Callable[[ASGIApp], str], tmp_path: Path
) -> None:
    running, base = _proxy(serve_app(silent_app()), tmp_path)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(httpx.post, base + "/chat/completions", json={}, timeout=30)
        time.sleep(0.5)  # the request is in the proxy, waiting for the upstream's headers
        running.process.send_signal(signal.SIGINT)
        code, _, err = finish(running)
        answer = waiting.result()
    assert code == EXIT_FOR[signal.SIGINT]
    assert answer.status_code == 503
    assert answer.json()["error"]["type"] == "proxy_stopping"
    assert "Traceback" not in err
    [cassette] = (tmp_path / "record").iterdir()
    [entry] = read_cassette(cassette)
    assert (entry["status"], entry["outcome"]) == (None, "client_left")
    assert_nothing_left(running)


def test_the_help_says_how_to_point_a_client_at_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from harness.cli import main; main()", "proxy", "--help"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    for words in ("--upstream", "/v1/chat/completions", "docs/proxy.md", "130 / 143"):
        assert words in " ".join(done.stdout.split()), words
