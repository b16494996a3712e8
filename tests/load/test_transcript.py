"""``load --transcript DIR`` (issue 27's "reports for every run", done with issue 28's
failure domains): one transcript per run that ``trimscope report`` reads, ended with the
``interrupted`` line of each unfinished session when a signal stops the run, and a full
disk under it costs the transcript only."""

from __future__ import annotations

import errno
import json
import os
import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.load import LoadPlan, LoadSummary, nothing_ran
from harness.load.runner import RunOptions
from harness.telemetry import line_file
from harness.telemetry.transcript import read_transcript

RUN = ("load", "--quiet", "--sessions", "3", "--concurrency", "2", "--turns", "2")


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_a_load_transcript_is_read_by_the_report(tmp_path: Path) -> None:
    folder, page, out = tmp_path / "transcripts", tmp_path / "report.html", tmp_path / "s.json"
    folder.mkdir()
    code, output = _invoke(*RUN, "--transcript", str(folder), "--json", str(out))
    assert code == 0, output
    (transcript,) = folder.iterdir()
    assert transcript.name == "default-openai.jsonl"
    events = read_transcript(transcript, strict=True)
    assert len({e.session_id for e in events}) == 3
    summary = json.loads(out.read_text(encoding="utf-8"))
    calls = [e for e in events if type(e).__name__ == "ProviderCallFinished"]
    assert len(calls) == summary["provider_calls"]
    code, output = _invoke("report", str(folder), "-o", str(page))
    assert code == 0, output
    assert f"3 session(s), {summary['provider_calls']} call(s)" in output


def test_a_sweep_writes_a_transcript_per_run(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    code, output = _invoke(*RUN, "--sweep", "budget=0,1200", "--transcript", str(folder))
    assert code == 0, output
    assert sorted(p.name for p in folder.iterdir()) == [
        "default-openai-budget-0.jsonl",
        "default-openai-budget-1200.jsonl",
    ]


def test_a_stopped_run_ends_its_transcript_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stopped_run(plan: LoadPlan, options: RunOptions) -> LoadSummary:
        assert options.stop is not None
        options.stop.request(signal.SIGINT)
        return nothing_ran(plan, [], "SIGINT")

    monkeypatch.setattr("harness.cli.load.run_load", stopped_run)
    folder = tmp_path / "transcripts"
    folder.mkdir()
    code, _ = _invoke(*RUN, "--transcript", str(folder))
    assert code == 128 + signal.SIGINT
    lines = (folder / "default-openai.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"kind": "interrupted", "session_id": None, "signal": "SIGINT"}
    ]


def test_a_full_disk_under_the_transcript_costs_the_transcript_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = 0

    def fill_up(fd: int, data: bytes) -> None:  # the 20th line: half of it, then ENOSPC
        nonlocal written
        written += 1
        if written >= 20:
            os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.write(fd, data)

    monkeypatch.setattr(line_file, "write_all", fill_up)
    folder, out = tmp_path / "transcripts", tmp_path / "summary.json"
    folder.mkdir()
    code, output = _invoke(*RUN, "--transcript", str(folder), "--json", str(out))
    assert code == 1, output
    path = folder / "default-openai.jsonl"
    assert output.count(f"error: cannot write --transcript {path}: No space left") == 1
    assert path.read_bytes().endswith(b"\n")
    assert len(read_transcript(path, strict=True)) == 19
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["sessions_completed"] == 3  # the agents never saw the disk's error
    (unwritten,) = summary["unwritten_outputs"]
    assert unwritten["option"] == "--transcript"
    assert unwritten["lines_dropped"] > 0


def test_transcripts_refuse_locust() -> None:
    code, output = _invoke("load", "--locust", "--transcript", ".")
    assert code == 2
    assert "--transcript records asyncio runs" in output
