"""``trimscope run`` stopped by a real signal at any moment after it starts: during its
imports and setup (before the first scenario) as well as at random moments of the run,
every requested output is written, parses and says it was interrupted, and the exit code
is 130 / 143 (or 0 with clean outputs when the run had already finished)."""

from __future__ import annotations

import json
import os
import random
import signal
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness.telemetry import names as n
from tests.interrupting import (
    EXIT_FOR,
    Running,
    assert_nothing_left,
    finish,
    loaded_libraries,
    start,
    thaw,
    wait_for_file,
    wait_for_stop_handlers,
)
from tests.scenarios.support import scenario, write

RANDOM_MOMENTS = 3


def _library(folder: Path) -> Path:
    write(folder, "a-quick.yaml", scenario("a-quick"))
    slow = scenario(
        "b-slow", replace=('default: {text: "ok"}', 'default: {text: "ok", latency_ms: 700}')
    )
    write(folder, "b-slow.yaml", slow)
    write(folder, "c-last.yaml", scenario("c-last"))
    return folder


def _start(tmp_path: Path) -> tuple[Running, Path]:
    out = tmp_path / "out"
    (out / "t").mkdir(parents=True)
    running = start(
        ["run", _library(tmp_path / "lib"), "--transcript", out / "t",
         "--junit-xml", out / "junit.xml", "--metrics-out", out / "metrics.prom",
         "--otel-jsonl", out / "spans.jsonl"],
        tmp_path,
    )  # fmt: skip
    return running, out


def _marked(out: Path) -> str | None:
    """The signal every output names, checking that they agree (``None``: none does)."""
    suite = ET.parse(out / "junit.xml").getroot()
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    metrics = (out / "metrics.prom").read_text()
    spans = [json.loads(line) for line in (out / "spans.jsonl").read_text().splitlines()]
    last = spans[-1] if spans else {"name": None}
    in_metrics = n.RUN_INTERRUPTED in metrics
    in_spans = last["name"] == n.SPAN_RUN_INTERRUPTED
    assert suite.get("tests") == "3"  # every scenario is a case, run or not
    assert ("interrupted" in props) == in_metrics == in_spans, (props, in_metrics, in_spans)
    if not in_spans:
        return None
    name = props["interrupted"]
    assert f'{n.RUN_INTERRUPTED}{{signal="{name}"}} 1.0' in metrics
    assert last["attributes"] == {n.ATTR_RUN_SIGNAL: name}
    return name


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_imports_writes_every_output(
    tmp_path: Path, signum: signal.Signals
) -> None:
    running, out = _start(tmp_path)
    wait_for_stop_handlers(running, freeze=True)
    # the CLI's first line: the scenario loader (pydantic) is not even imported yet
    assert "pydantic_core" not in loaded_libraries(running)
    running.process.send_signal(signum)
    thaw(running)
    code, stdout, stderr = finish(running)
    assert code == EXIT_FOR[signum], stderr
    assert _marked(out) == signum.name
    suite = ET.parse(out / "junit.xml").getroot()
    assert suite.get("skipped") == "3"  # none ran: each case says it was not run
    assert "3 not run" in stdout
    assert list((out / "t").iterdir()) == []  # no scenario began: no transcript
    assert_nothing_left(running)


def test_a_signal_at_random_moments_writes_every_output(tmp_path: Path) -> None:
    seed = int.from_bytes(os.urandom(4))  # named in every failure, to replay it
    rng = random.Random(seed)
    for attempt in range(RANDOM_MOMENTS):
        signum = rng.choice([signal.SIGINT, signal.SIGTERM])
        delay = rng.uniform(0.0, 6.0)  # from the first line to past a loaded machine's run
        running, out = _start(tmp_path / str(attempt))
        wait_for_stop_handlers(running)
        time.sleep(delay)
        running.process.send_signal(signum)
        code, _, stderr = finish(running)
        what = f"seed {seed}: {signum.name} after {delay:.2f}s: exit {code}"
        if code == 0:  # the run ended first: clean outputs
            assert _marked(out) is None, what
        else:
            assert code == EXIT_FOR[signum], f"{what}: {stderr}"
            assert _marked(out) == signum.name, what
        assert_nothing_left(running)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_once_the_outputs_are_written_changes_nothing(
    tmp_path: Path, signum: signal.Signals
) -> None:
    # The interpreter's teardown resets Python's handlers to the default: a signal then
    # used to kill a run that had finished cleanly (exit -2 / -15).
    running, out = _start(tmp_path)
    wait_for_file(running, out / "junit.xml", timeout=60)  # written last but the table
    for _ in range(20):  # through the table and the teardown
        if running.process.poll() is not None:
            break
        running.process.send_signal(signum)
        time.sleep(0.01)
    code, _, stderr = finish(running)
    assert code == 0, stderr
    assert _marked(out) is None
