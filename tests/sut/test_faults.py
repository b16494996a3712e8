"""A runtime that misbehaves gets a verdict naming what it did (and the line), within
bounded time, and nothing it started outlives the run: real child processes, each a small
``python -c`` script (``tests.sut.runtimes``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.interrupt import StopRequest
from harness.scenarios.loader import load_all
from harness.sut.child import MAX_LINES_PER_SECOND
from harness.sut.protocol import MAX_LINE_BYTES
from harness.sut.suite import SutSuite, run_sut_suite
from tests.interrupting import survivors
from tests.sut.runtimes import ANSWER, GRANDCHILD, TOOL_CALL, library, run, script

pytestmark = pytest.mark.integration
BOUND_S = 15.0
"""Each fault test's wall-clock bound: op timeouts of 1 s plus the stop's graces."""


def nothing_left(marker: Path, settle_s: float = 3.0) -> None:
    deadline = time.monotonic() + settle_s
    while (left := survivors(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []


def verdict_of(body: str, tmp_path: Path, count: int = 1) -> tuple[str, str]:
    started = time.monotonic()
    outcomes = run(body, tmp_path, count=count)
    assert time.monotonic() - started < BOUND_S
    nothing_left(tmp_path)
    return outcomes[0].verdict, outcomes[0].detail


def test_a_well_behaved_runtime_passes(tmp_path: Path) -> None:
    body = script(TOOL_CALL)
    outcomes = run(body, tmp_path)
    assert [(o.verdict, o.violations) for o in outcomes] == [("PASS", ())]
    nothing_left(tmp_path)


def test_garbage_on_stdout_is_a_protocol_verdict_naming_the_line(tmp_path: Path) -> None:
    verdict, detail = verdict_of(script('print("this is not json", flush=True)'), tmp_path)
    assert verdict == "PROTOCOL"
    assert detail == "line 3: not JSON: 'this is not json'"  # hello, opened, then this


def test_a_runtime_that_hangs_in_a_turn_times_out(tmp_path: Path) -> None:
    verdict, detail = verdict_of(script("time.sleep(3600)"), tmp_path)
    assert (verdict, detail) == ("TIMEOUT", "no answer to turn 1 within 1s")


def test_a_runtime_that_crashes_is_named_with_its_exit_status_and_stderr(tmp_path: Path) -> None:
    body = script('sys.stderr.write("boom\\n"); sys.exit(3)')
    verdict, detail = verdict_of(body, tmp_path)
    assert verdict == "CRASH"
    assert "exit status 3" in detail
    assert "boom" in detail


def test_a_runtime_that_exits_mid_session_is_a_crash(tmp_path: Path) -> None:
    verdict, detail = verdict_of(script("os._exit(0)"), tmp_path)
    assert verdict == "CRASH"
    assert "waiting for answer to turn 1: the runtime exit status 0" in detail


def test_a_runtime_that_never_answers_after_a_tool_result_times_out(tmp_path: Path) -> None:
    verdict, detail = verdict_of(script(TOOL_CALL, on_tool_result="pass"), tmp_path)
    assert (verdict, detail) == ("TIMEOUT", "no answer to turn 1 within 1s")


def test_an_answer_for_an_unknown_session_is_a_protocol_verdict(tmp_path: Path) -> None:
    body = script('out({"op": "answer", "session": "nobody", "text": "ok"})')
    verdict, detail = verdict_of(body, tmp_path)
    assert (verdict, detail) == ("PROTOCOL", "line 3: answer for unknown session 'nobody'")


def test_a_runtime_that_floods_stdout_is_stopped(tmp_path: Path) -> None:
    body = script('while True: out({"op": "log", "text": "spam"})')
    verdict, detail = verdict_of(body, tmp_path)
    assert verdict == "PROTOCOL"
    assert f"floods stdout: line {MAX_LINES_PER_SECOND + 1}: more than" in detail


def test_a_line_over_the_bound_is_a_protocol_verdict(tmp_path: Path) -> None:
    body = script(f'sys.stdout.write("x" * {MAX_LINE_BYTES + 10}); sys.stdout.flush()')
    verdict, detail = verdict_of(body, tmp_path)
    assert (verdict, detail) == ("PROTOCOL", f"line 3: longer than {MAX_LINE_BYTES} bytes")


def test_a_tool_call_for_a_tool_not_offered_is_a_protocol_verdict(tmp_path: Path) -> None:
    body = script(TOOL_CALL.replace('"echo"', '"rm"'))
    verdict, detail = verdict_of(body, tmp_path)
    assert (verdict, detail) == ("PROTOCOL", "line 3: tool_call for 'rm', a tool not offered")


def test_a_runtime_that_never_greets_fails_every_scenario_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    outcomes = run(script(ANSWER, hello="pass"), tmp_path, count=3)
    assert time.monotonic() - started < BOUND_S  # one timeout, not three
    assert [o.verdict for o in outcomes] == ["TIMEOUT"] * 3
    assert {o.detail for o in outcomes} == {"at hello: no hello within 1s"}
    nothing_left(tmp_path)


def test_a_faulted_runtime_is_replaced_for_the_next_scenario(tmp_path: Path) -> None:
    # the first process crashes at its first turn; the second one (a fresh start) too:
    # each scenario gets its own verdict, not the first one's
    outcomes = run(script("sys.exit(4)"), tmp_path, count=2)
    assert [o.verdict for o in outcomes] == ["CRASH", "CRASH"]
    nothing_left(tmp_path)


IGNORE_TERM = "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); "


def test_grandchildren_and_runtimes_that_ignore_sigterm_are_reaped(tmp_path: Path) -> None:
    verdict, _ = verdict_of(script(f"{IGNORE_TERM}{GRANDCHILD}; time.sleep(3600)"), tmp_path)
    assert verdict == "TIMEOUT"


def test_a_grandchild_left_by_a_runtime_that_exits_cleanly_is_reaped(tmp_path: Path) -> None:
    # the grandchild ignores SIGTERM and holds the pipes; the runtime itself answers and
    # leaves on bye: the group's SIGKILL still ends the grandchild, and the run returns
    body = script(f"{IGNORE_TERM}{GRANDCHILD}; {ANSWER}")
    verdict, _ = verdict_of(body, tmp_path)
    assert verdict == "PASS"


def test_an_executable_that_is_no_program_is_a_crash_at_hello(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus"
    bogus.write_bytes(b"\x00\x01 not a program")
    bogus.chmod(0o755)
    loaded = load_all(library(tmp_path / "lib", 2))
    suite = SutSuite([str(bogus)], op_timeout_s=1.0)
    outcomes = run_sut_suite(suite, loaded, lambda _: None, StopRequest())
    assert [o.verdict for o in outcomes] == ["CRASH", "CRASH"]
    assert outcomes[0].detail.startswith(f"at hello: cannot start {bogus}: ")
