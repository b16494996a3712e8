"""``trimscope run --sut``: bad input exits 2 naming it before any work; a real run writes
its JSON; a signal stops it with 130, outputs marked interrupted, nothing left behind."""

from __future__ import annotations

import json
import os
import signal
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.interrupting import assert_nothing_left, finish, start, wait_for_file
from tests.scenarios.support import cli
from tests.sut.runtimes import ANSWER, TOOL_CALL, command, library, script


@pytest.mark.parametrize(
    ("sut", "says"),
    [
        ("no-such-runtime --flag", "'no-such-runtime' not found"),
        ("{plain}", "not executable"),
        ('unclosed "quote', "No closing quotation"),
    ],
)
def test_a_sut_command_that_cannot_start_exits_2_naming_it(
    tmp_path: Path, sut: str, says: str
) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("not a program")
    result = cli("run", "--sut", sut.format(plain=plain), *library(tmp_path))
    assert result.exit_code == 2
    assert says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_json_without_sut_exits_2(tmp_path: Path) -> None:
    result = cli("run", "--json", tmp_path / "out.json", *library(tmp_path))
    assert result.exit_code == 2
    assert "--json needs --sut" in result.stderr


def test_an_in_process_only_option_with_sut_exits_2(tmp_path: Path) -> None:
    result = cli("run", "--sut", "true", "--transcript", tmp_path / "t", *library(tmp_path))
    assert result.exit_code == 2
    assert "--transcript applies to in-process runs" in result.stderr


@pytest.mark.integration
def test_a_run_writes_the_verdicts_as_json_and_junit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()  # outputs' folders must exist (none is created)
    sut = command(script(TOOL_CALL), tmp_path)
    paths = library(tmp_path / "lib")
    result = cli("run", "-q", "--sut", sut, "--json", out / "r.json",
                 "--junit-xml", out / "j.xml", *paths)  # fmt: skip
    assert result.exit_code == 0, result.stdout
    document = json.loads((out / "r.json").read_text())
    assert document["sut"] == {"name": "fault", "version": "0"}
    assert document["interrupted"] is None
    (only,) = document["scenarios"]
    assert (only["id"], only["verdict"], only["violations"]) == ("s0", "PASS", [])
    assert only["skipped_reason"] is None
    # the script answers without asking the fake; the reference asked it three times
    assert (only["requests"], only["reference_requests"]) == (0, 3)
    assert ET.parse(out / "j.xml").getroot().get("failures") == "0"


@pytest.mark.integration
def test_a_failed_invariant_exits_1(tmp_path: Path) -> None:
    # a runtime that answers without a request passes; one whose turn errors twice the
    # same way fails session_survives_failure
    refuse = 'out({"op": "error", "session": s, "kind": "internal", "message": "no"})'
    result = cli("run", "-q", "--sut", command(script(refuse), tmp_path), "--json",
                 tmp_path / "r.json", *library(tmp_path / "lib"))  # fmt: skip
    assert result.exit_code == 1
    (only,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert only["verdict"] == "FAIL"
    assert [v["invariant"] for v in only["violations"]] == ["session_survives_failure"]


@pytest.mark.integration
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_run_marks_outputs_and_leaves_nothing(
    tmp_path: Path, signum: signal.Signals
) -> None:
    out = tmp_path / "out"
    out.mkdir()  # outputs' folders must exist (none is created)
    flags = tmp_path / "flags"
    flags.mkdir()
    hang = script('open(os.path.join(MARKER, "in-turn"), "w").close(); time.sleep(3600)')
    sut = command(hang, flags)
    paths = library(tmp_path / "lib", count=2)
    running = start(
        ["run", "-q", "--sut", sut, "--json", out / "r.json", "--junit-xml", out / "j.xml",
         *paths],
        tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    wait_for_file(running, flags / "in-turn", timeout=60)
    running.process.send_signal(signum)
    code, _, stderr = finish(running)
    assert code == 128 + signum, stderr
    document = json.loads((out / "r.json").read_text())
    assert document["interrupted"] == signum.name
    assert document["not_run"] == ["s0", "s1"]
    props = {p.get("name"): p.get("value") for p in ET.parse(out / "j.xml").iter("property")}
    assert props == {"interrupted": signum.name}
    assert_nothing_left(running)


def test_a_well_behaved_answer_only_runtime_is_a_tool_less_pass(tmp_path: Path) -> None:
    """Sanity of the helpers the tests above use: the answering script is valid Python."""
    compile(script(ANSWER), "<runtime>", "exec")
