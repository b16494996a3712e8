"""Progress of long commands: a bar on a terminal, status lines elsewhere, nothing quiet."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from fakes.pytest_plugin import FakeServerFactory
from harness.cli import app
from harness.progress import BarTracker, StatusTracker, Tracker, status_line, tracker
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
        with tracker("run", 3, quiet=True, stream=stream) as progress:
            assert type(progress) is Tracker
            progress.advance(3)
            progress.note("hidden")
        assert stream.getvalue() == ""


def test_a_terminal_gets_the_bar() -> None:
    screen = Terminal()
    with tracker("run", 3, stream=screen) as progress:
        assert isinstance(progress, BarTracker)
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
