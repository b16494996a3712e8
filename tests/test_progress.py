"""Progress of long commands: a bar on a terminal, status lines elsewhere, nothing quiet."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from fakes.pytest_plugin import FakeServerFactory
from harness.cli import app
from harness.progress import (
    HEARTBEAT_THREAD,
    BarTracker,
    StatusTracker,
    Tracker,
    status_line,
    tracker,
)
from tests.conformance.support import MODEL, serve
from tests.scenarios.support import scenario, write

INTERVAL = 10.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def heartbeats() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == HEARTBEAT_THREAD]


def wait_until(done: Callable[[], bool]) -> None:
    """Polls a condition another thread makes true; the bound only keeps a broken
    heartbeat from hanging the suite (no result depends on how long it took)."""
    for _ in range(1000):
        if done():
            return
        time.sleep(0.01)
    raise AssertionError("the condition never became true")


def test_status_line_says_done_total_rate_and_eta() -> None:
    # 40 of 99 in 4 s: 10 per second, 59 left, so 5.9 s to go.
    assert status_line("run", 40, 99, 4.0, "1 failed") == (
        "run: 40/99 (40%), 10.0/s, ETA 0m06s, 1 failed"
    )
    assert status_line("load", 1234, None, 2.0) == "load: 1,234, 617.0/s"
    assert status_line("run", 99, 99, 9.0) == "run: 99/99 (100%), 11.0/s"  # done: no ETA


def test_off_a_terminal_one_line_per_interval_and_a_last_one() -> None:
    clock, out = FakeClock(), io.StringIO()
    with tracker("run", 30, stream=out, interval_s=INTERVAL, clock=clock) as progress:
        assert isinstance(progress, StatusTracker)
        for _ in range(30):
            clock.now += 1.0
            progress.advance()
    lines = out.getvalue().splitlines()
    assert lines == [
        "run: 10/30 (33%), 1.0/s, ETA 0m20s",
        "run: 20/30 (66%), 1.0/s, ETA 0m10s",
        "run: 30/30 (100%), 1.0/s",
        "run: 30/30 (100%), 1.0/s; 0m30s elapsed",
    ]


def test_notes_are_plain_text_off_a_terminal() -> None:
    out = io.StringIO()
    with tracker("run", 2, stream=out, clock=FakeClock()) as progress:
        progress.note("[bold red]FAIL[/] alpha")
    assert out.getvalue().splitlines()[0] == "FAIL alpha"


def test_quiet_shows_nothing_anywhere() -> None:
    for stream in (io.StringIO(), Terminal()):
        with tracker("run", 3, quiet=True, stream=stream, interval_s=0.01) as progress:
            assert type(progress) is Tracker
            assert not heartbeats()
            progress.advance(3)
            progress.note("hidden")
        assert stream.getvalue() == ""


def test_a_terminal_gets_the_bar() -> None:
    screen = Terminal()
    with tracker("run", 3, stream=screen, interval_s=0.01) as progress:
        assert isinstance(progress, BarTracker)
        assert not heartbeats()  # the bar redraws itself: no heartbeat thread
        progress.advance(3, detail="0 failed")
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    assert "3/3" in drawn
    assert "0 failed" in drawn


@given(
    st.lists(
        st.tuples(st.floats(0, 30, allow_nan=False), st.integers(0, 5)), min_size=1, max_size=60
    )
)
def test_status_lines_are_spaced_by_the_interval_and_end_with_the_total(
    steps: list[tuple[float, int]],
) -> None:
    clock, out = FakeClock(), io.StringIO()
    began, printed_at = clock.now, [clock.now]
    with tracker("load", None, stream=out, interval_s=INTERVAL, clock=clock) as progress:
        for wait, done in steps:
            clock.now += wait
            before = len(out.getvalue().splitlines())
            progress.advance(done)
            if len(out.getvalue().splitlines()) > before:
                printed_at.append(clock.now)
    lines = out.getvalue().splitlines()
    assert all(b - a >= INTERVAL for a, b in itertools.pairwise(printed_at))
    assert len(lines) == len(printed_at)  # the periodic lines, then the last one
    counts = [int(re.sub(r"^load: ([\d,]+), .*", r"\1", line).replace(",", "")) for line in lines]
    assert counts == sorted(counts)
    assert counts[-1] == sum(done for _, done in steps)
    assert lines[-1].endswith(" elapsed")
    assert clock.now - began >= INTERVAL * (len(lines) - 1)


# The heartbeat: a status line while an item stalls.


def test_a_stalled_item_gets_a_line_saying_how_long_none_finished() -> None:
    clock, out = FakeClock(), io.StringIO()
    progress = StatusTracker("run", 3, out, INTERVAL, clock)  # not entered: no thread
    clock.now += 2.0
    progress.advance(detail="0 failed")
    clock.now += 7.0
    assert progress.beat() == 1.0  # 9 s without a line: due in 1 s, nothing written yet
    clock.now += 33.0
    assert progress.beat() == INTERVAL
    assert progress.beat() == INTERVAL  # at most one per interval
    assert out.getvalue().splitlines() == [
        "run: 1/3 (33%), 0.0/s, ETA 1m24s, 0 failed; none finished for 0m40s"
    ]


def test_the_heartbeat_writes_a_plain_line_when_items_did_finish() -> None:
    # Items finished within the interval, none of them late enough to write the line.
    clock, out = FakeClock(), io.StringIO()
    progress = StatusTracker("load", None, out, INTERVAL, clock)
    for _ in range(3):
        clock.now += 3.0
        progress.advance()
    clock.now += 1.0
    progress.beat()
    assert out.getvalue().splitlines() == ["load: 3, 0.3/s"]


STEPS = st.one_of(
    st.tuples(st.just("wait"), st.floats(0, 30, allow_nan=False)),
    st.tuples(st.just("advance"), st.integers(0, 5)),
    st.tuples(st.just("beat"), st.just(0)),
)


@given(st.lists(STEPS, max_size=80))
def test_items_and_heartbeats_share_one_cadence(steps: list[tuple[str, float]]) -> None:
    clock, out = FakeClock(), io.StringIO()
    progress = StatusTracker("load", None, out, INTERVAL, clock)
    last_line = finished = clock.now
    for kind, value in steps:
        before = len(out.getvalue().splitlines())
        if kind == "wait":
            clock.now += value
            continue
        if kind == "advance":
            progress.advance(int(value))
        else:
            progress.beat()
        lines = out.getvalue().splitlines()
        due = clock.now - last_line >= INTERVAL
        # A line exactly when one is due, whichever path looks first: never two within an
        # interval, never an interval of silence left behind by a beat.
        assert len(lines) == before + due
        if kind == "advance" and value:
            finished = clock.now
        if due:
            last_line = clock.now
            stalled = re.fullmatch(r"load: [\d,]+, [\d.,]+/s; none finished for (\d+)m(\d\d)s",
                                   lines[-1])  # fmt: skip
            # Only a beat says so: an item that finished late enough has just finished.
            says = kind == "beat" and clock.now - finished >= INTERVAL
            assert (stalled is not None) == says, lines[-1]
            if stalled is not None:
                minutes, seconds = map(int, stalled.groups())
                assert minutes * 60 + seconds == round(clock.now - finished)
    progress.__exit__(None, None, None)
    assert out.getvalue().splitlines()[-1].endswith(" elapsed")


def test_an_entered_tracker_beats_on_its_own_while_an_item_stalls() -> None:
    # The interval is short in real time, the clock fake: the thread checks every 0.05 s
    # and the frozen clock lets exactly one line through, whatever the scheduling.
    clock, out = FakeClock(), io.StringIO()
    with tracker("run", 3, stream=out, interval_s=0.05, clock=clock) as progress:
        assert len(heartbeats()) == 1
        progress.advance()
        clock.now += 40.0
        wait_until(lambda: bool(out.getvalue()))
        time.sleep(0.1)  # two more checks, which must write nothing
    assert not heartbeats()
    assert out.getvalue().splitlines() == [
        "run: 1/3 (33%), 0.0/s, ETA 1m20s; none finished for 0m40s",
        "run: 1/3 (33%), 0.0/s, ETA 1m20s; 0m40s elapsed",
    ]


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
def test_the_heartbeat_ends_with_the_tracker_on_an_error_or_ctrl_c(
    error: BaseException,
) -> None:
    out = io.StringIO()

    def stopped_while_running() -> None:
        with tracker("run", 3, stream=out, interval_s=INTERVAL):
            assert len(heartbeats()) == 1
            raise error

    with pytest.raises(type(error)):
        stopped_while_running()
    assert not heartbeats()  # joined, not left to wait out its 10 s
    assert out.getvalue().endswith(" elapsed\n")


class Trickle(io.StringIO):
    """Writes a character at a time and lets other threads run between them, as a slow
    pipe would: an unlocked writer interleaves with it at once."""

    def write(self, text: str) -> int:
        for char in text:
            super().write(char)
            time.sleep(0)
        return len(text)


def test_heartbeat_lines_and_notes_never_interleave() -> None:
    out, written = Trickle(), 0
    with tracker("run", None, stream=out, interval_s=0.001) as progress:
        # Notes until the heartbeat has written 20 lines among them (no item finishes).
        while out.getvalue().count("none finished") < 20 and written < 10_000:
            progress.note(f"[red]FAIL[/] scenario-{written}")
            written += 1
    lines = out.getvalue().splitlines()
    status = re.compile(r"run: 0, 0\.0/s(; none finished for \d+m\d\ds|; \d+m\d\ds elapsed)")
    notes = [line for line in lines if not status.fullmatch(line)]
    assert notes == [f"FAIL scenario-{n}" for n in range(written)]
    assert len(lines) - len(notes) > 20  # the heartbeat's lines, and the last one


# The commands: CliRunner's stderr is not a terminal, so they print status lines.


def _cli(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def test_run_counts_scenarios_and_names_failures_at_once(tmp_path: Path) -> None:
    write(tmp_path, "good.yaml", scenario("good"))
    write(tmp_path, "bad.yaml", scenario("bad", answer="something else"))
    result = _cli("run", tmp_path)
    assert result.exit_code == 1
    assert "FAIL bad" in result.stderr
    assert "scenarios: 2/2 (100%)" in result.stderr
    assert "1 failed" in result.stderr.splitlines()[-1]


def test_quiet_run_prints_no_progress(tmp_path: Path) -> None:
    write(tmp_path, "good.yaml", scenario("good"))
    result = _cli("run", tmp_path, "--quiet")
    assert result.exit_code == 0
    assert "scenarios:" not in result.stderr
    assert "1/1 passed" in result.stdout


def test_load_counts_sessions_and_calls(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    result = _cli("load", "--sessions", "3", "--concurrency", "2", "--turns", "1", "--json", out)
    assert result.exit_code == 0, result.output
    calls = json.loads(out.read_text(encoding="utf-8"))["provider_calls"]
    assert "sessions: 3/3 (100%)" in result.stderr
    assert f"{calls:,} calls" in result.stderr.splitlines()[-1]
    quiet = _cli("load", "--sessions", "1", "--turns", "1", "--quiet")
    assert "sessions:" not in quiet.stderr


def test_conformance_counts_requests_against_its_budget(
    tmp_path: Path, fake_server: FakeServerFactory
) -> None:
    _, base_url = serve(fake_server, "openai", 2000)
    report = tmp_path / "report.json"
    result = _cli(
        "conformance", "--provider", "openai", "--base-url", base_url, "--model", MODEL,
        "--context-window", "2000", "--json", report,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    spent = json.loads(report.read_text(encoding="utf-8"))["spent"]
    last = result.stderr.splitlines()[-1]
    assert last.startswith(f"requests: {spent['requests']}/{spent['max_requests']} (")


@pytest.mark.integration
def test_locust_mode_counts_the_sessions_its_workers_end(tmp_path: Path) -> None:
    command = [str(Path(sys.executable).with_name("trimscope")), "load", "--locust"]
    command += ["--workers", "1", "--sessions", "4", "--concurrency", "2", "--turns", "1"]
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    done = subprocess.run(
        [*command, "--duration", "15"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1].startswith("sessions: 4/4 (100%)"), done.stderr


# The commands build their tracker with the default interval; this script shortens it, then
# runs the real command with stderr a pipe, as CI does.
SHORT_INTERVAL_RUN = """\
import sys
from harness import progress
progress.tracker.__kwdefaults__["interval_s"] = 0.3
from harness.cli import main
main(sys.argv[1:])
"""


def test_a_command_whose_item_stalls_shows_heartbeat_lines(tmp_path: Path) -> None:
    # The fake takes 1.5 s to answer the one call: no scenario finishes for that long.
    slow = ('default: {text: "ok"}', 'default: {text: "ok", latency_ms: 1500}')
    write(tmp_path, "slow.yaml", scenario("slow", replace=slow))
    done = subprocess.run(
        [sys.executable, "-c", SHORT_INTERVAL_RUN, "run", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    waiting = re.compile(r"scenarios: 0/1 \(0%\), 0\.0/s; none finished for 0m0\ds")
    assert any(waiting.fullmatch(line) for line in lines), done.stderr
    assert lines[-1].startswith("scenarios: 1/1 (100%)"), done.stderr
    assert lines[-1].endswith(" elapsed"), done.stderr
