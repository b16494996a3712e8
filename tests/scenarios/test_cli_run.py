"""``trimscope run`` on small libraries written for each test: selection, JUnit XML,
transcripts, and what a failing scenario looks like."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from harness.telemetry.transcript import read_transcript
from tests.scenarios.support import cli, scenario, write

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


def _library(folder: Path) -> Path:
    write(folder, "alpha.yaml", scenario("alpha"))
    write(folder, "beta.yaml", scenario("beta").replace("rules:", "tags: [slow]\nrules:"))
    write(folder, "gamma.yaml", scenario("gamma"))
    return folder


def test_all_pass_exit_0_with_the_table(tmp_path: Path) -> None:
    result = cli("run", _library(tmp_path))
    assert result.exit_code == EXIT_OK, result.stdout + result.stderr
    assert "3/3 passed" in result.stdout
    assert "scenarios: 3/3 (100%)" in result.stderr  # the closing status line


def test_k_selects_by_id_and_by_tag(tmp_path: Path) -> None:
    library = _library(tmp_path / "lib")
    by_id = cli("run", library, "-k", "^gam", "--junit-xml", tmp_path / "id.xml")
    by_tag = cli("run", library, "-k", "slow", "--junit-xml", tmp_path / "tag.xml")
    assert by_id.exit_code == by_tag.exit_code == EXIT_OK
    for name, wanted in (("id.xml", ["gamma"]), ("tag.xml", ["beta"])):
        cases = ET.parse(tmp_path / name).getroot().findall("testcase")
        assert [c.get("name") for c in cases] == wanted


def test_k_matching_nothing_is_an_input_error(tmp_path: Path) -> None:
    result = cli("run", _library(tmp_path), "-k", "no-such-scenario")
    assert result.exit_code == EXIT_INVALID
    assert "no scenario matches" in result.stderr


def test_failing_scenario_exits_1_and_prints_a_diff(tmp_path: Path) -> None:
    library = _library(tmp_path / "lib")
    write(library, "wrong.yaml", scenario("wrong", answer="not ok"))
    junit = tmp_path / "out" / "junit.xml"
    junit.parent.mkdir()
    result = cli("run", library, "--junit-xml", junit)
    assert result.exit_code == EXIT_FAILED
    assert "answers: expected ['not ok'], found ['ok']" in result.stdout
    assert "3/4 passed" in result.stdout
    suite = ET.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "0")
    failed = [c for c in suite.findall("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["wrong"]


def test_failing_request_rows_show_a_unified_diff(tmp_path: Path) -> None:
    expect = 'expect:\n  requests:\n    1:\n      - {role: user, content: "goodbye"}\n'
    text = scenario("rows").split("expect:")[0] + expect
    result = cli("run", write(tmp_path, "rows.yaml", text))
    assert result.exit_code == EXIT_FAILED
    lines = result.stdout.splitlines()
    assert "--- expected request 1 rows" in lines
    assert "+++ actual request 1 rows" in lines
    assert '-user: "goodbye"' in lines
    assert '+user: "hello"' in lines


def test_transcript_writes_one_readable_file_per_scenario(tmp_path: Path) -> None:
    out = tmp_path / "transcripts"
    result = cli("run", _library(tmp_path / "lib"), "--transcript", out)
    assert result.exit_code == EXIT_OK
    assert sorted(p.name for p in out.iterdir()) == ["alpha.jsonl", "beta.jsonl", "gamma.jsonl"]
    events = list(read_transcript(out / "alpha.jsonl", strict=True))
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "TurnStarted"
    assert kinds[-1] == "TurnFinished"
    assert kinds.count("ProviderCallStarted") == 1
    assert {e.session_id for e in events} == {"alpha"}


def test_transcript_is_rewritten_not_appended_on_a_second_run(tmp_path: Path) -> None:
    library, out = _library(tmp_path / "lib"), tmp_path / "t"
    cli("run", library, "--transcript", out)
    first = (out / "alpha.jsonl").read_text()
    cli("run", library, "--transcript", out)
    assert (out / "alpha.jsonl").read_text() == first


def test_validate_counts_valid_files(tmp_path: Path) -> None:
    result = cli("validate", _library(tmp_path))
    assert result.exit_code == EXIT_OK
    assert "3 scenario file(s) valid" in result.stdout
