"""``trimscope load --sut``: many sessions of one portable scenario through each runtime
under test, judged and counted; bad input exits 2 naming it before any runtime starts; a
signal stops it with 130/143, the JSON marked interrupted, nothing left behind."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.interrupting import assert_nothing_left, finish, start, wait_for_file
from tests.scenarios.support import cli
from tests.sut.runtimes import ANSWER, TOOL_CALL, command, library, script

REFUSE = 'out({"op": "error", "session": s, "kind": "internal", "message": "no"})'
LIBRARY = Path(__file__).parents[2] / "scenarios"
TRIMSCOPE = Path(sys.executable).with_name("trimscope")


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--locust"], "--locust: not with --sut"),
        (["--sweep", "budget=1,2", "--provider", "openai"], "--provider, --sweep: not with --sut"),
        (["--concurrency", "17"], "--concurrency: with --sut at most 16 processes, found 17"),
        (["--sut", "no-such-runtime"], "'no-such-runtime' not found"),
    ],
)
def test_bad_input_exits_2_naming_it(tmp_path: Path, extra: list[str], says: str) -> None:
    (scenario,) = library(tmp_path / "lib")
    result = cli("load", "--sut", "true", "--scenario", scenario, *extra)
    assert result.exit_code == 2, result.stderr
    assert says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_sut_without_a_scenario_exits_2(tmp_path: Path) -> None:
    result = cli("load", "--sut", "true")
    assert result.exit_code == 2
    assert "--sut needs --scenario FILE" in result.stderr


def test_a_scenario_that_is_not_portable_exits_2_naming_its_line(tmp_path: Path) -> None:
    path = LIBRARY / "count-trim-cap-zero-keeps-newest-turn-legacy.yaml"
    result = cli("load", "--sut", "true", "--scenario", path)
    assert result.exit_code == 2, result.stderr
    assert f"{path}:1: not portable: " in result.stderr


@pytest.mark.integration
def test_every_session_is_judged_and_counted_per_runtime(tmp_path: Path) -> None:
    (scenario,) = library(tmp_path / "lib")
    good, bad = command(script(TOOL_CALL), tmp_path), command(script(REFUSE), tmp_path)
    out = tmp_path / "load.json"
    result = cli("load", "-q", "--sut", good, "--sut", bad, "--scenario", scenario,
                 "--sessions", "6", "--concurrency", "3", "--json", out)  # fmt: skip
    assert result.exit_code == 1, result.stdout + result.stderr  # the second fails
    document = json.loads(out.read_text())
    assert document["interrupted"] is None
    first, second = document["runtimes"]
    assert first["sut"] == {"name": "fault", "version": "0"}
    assert (first["finished"], first["verdicts"], first["stopped_by"]) == (6, {"PASS": 6}, None)
    assert set(first["violations"].values()) == {0}
    assert (second["finished"], second["verdicts"]) == (6, {"FAIL": 6})
    assert second["violations"]["session_survives_failure"] == 6
    assert "session_survives_failure" in result.stdout


@pytest.mark.integration
def test_the_reference_through_the_protocol_passes_every_session(tmp_path: Path) -> None:
    (scenario,) = library(tmp_path / "lib")
    out = tmp_path / "load.json"
    result = cli("load", "-q", "--sut", f"{TRIMSCOPE} sut reference", "--scenario", scenario,
                 "--sessions", "4", "--concurrency", "2", "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    (only,) = json.loads(out.read_text())["runtimes"]
    assert (only["finished"], only["verdicts"]) == (4, {"PASS": 4})
    # each session: the tool round (2 requests) and the second turn (1), as the fake counts
    assert only["requests"] == 12
    assert only["tokens_sent"] > 0


@pytest.mark.integration
def test_the_duration_cap_stops_the_sessions_in_flight(tmp_path: Path) -> None:
    (scenario,) = library(tmp_path / "lib")
    slow = script("time.sleep(0.4); " + ANSWER)
    out = tmp_path / "load.json"
    result = cli("load", "-q", "--sut", command(slow, tmp_path), "--scenario", scenario,
                 "--sessions", "1000", "--concurrency", "2", "--duration", "2",
                 "--json", out)  # fmt: skip
    (only,) = json.loads(out.read_text())["runtimes"]
    assert only["stopped_by"] == "duration"
    assert 0 < only["finished"] < 1000
    assert result.exit_code == 0, result.stderr  # what finished passed


@pytest.mark.integration
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_run_marks_the_json_and_leaves_nothing(
    tmp_path: Path, signum: signal.Signals
) -> None:
    flags = tmp_path / "flags"
    flags.mkdir()
    hang = script('open(os.path.join(MARKER, "in-turn"), "w").close(); time.sleep(3600)')
    (scenario,) = library(tmp_path / "lib")
    out = tmp_path / "load.json"
    running = start(
        ["load", "-q", "--sut", command(hang, flags), "--scenario", scenario,
         "--sessions", "10", "--concurrency", "2", "--json", out],
        tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    wait_for_file(running, flags / "in-turn", timeout=60)
    running.process.send_signal(signum)
    code, _, stderr = finish(running)
    assert code == 128 + signum, stderr
    document = json.loads(out.read_text())
    assert document["interrupted"] == signum.name
    (only,) = document["runtimes"]
    assert (only["finished"], only["stopped_by"]) == (0, signum.name)
    assert_nothing_left(running)
