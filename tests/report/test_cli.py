"""``trimscope report``: exit codes, messages, and all-or-nothing writing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from harness.cli import app
from harness.report import build, write_atomic
from tests.report.transcripts import Session, busy_session, lines, write

PREVIOUS = "<html>the previous report</html>"


def _invoke(*args: object) -> Result:
    return CliRunner().invoke(app, ["report", *(str(a) for a in args)])


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_files_and_folders_make_one_report(tmp_path: Path) -> None:
    write(tmp_path / "run" / "a.jsonl", busy_session("a"), busy_session("b"))
    single = write(tmp_path / "b.jsonl", Session("c").turn().budget(10).call(5).end())
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "report.html"
    result = _invoke(tmp_path / "run", single, "-o", out)
    assert result.exit_code == 0, result.output
    assert f"wrote {out}: 3 session(s), 9 call(s), 8 trim(s)" in result.stdout
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert html.count('<section class="session"') == 3
    assert _leftovers(out.parent) == []


def test_a_malformed_line_exits_2_naming_file_and_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    good = lines(busy_session().events)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*good[:3], '{"kind": "HistoryTrimmed", "oops"', *good[3:]]) + "\n")
    write(tmp_path / "fine.jsonl", busy_session("fine"))
    out = tmp_path / "report.html"
    result = _invoke(tmp_path, "-o", out)
    assert result.exit_code == 2
    assert re.search(rf"invalid input: {re.escape(str(bad))}:4: not JSON", result.stderr)
    assert "no report written" in result.stderr
    assert not out.exists()
    assert _leftovers(tmp_path) == []


def test_bad_input_leaves_an_existing_report_as_it_was(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "TurnStarted", "session_id": 7}\n')
    out = tmp_path / "report.html"
    out.write_text(PREVIOUS)
    result = _invoke(bad, "-o", out)
    assert result.exit_code == 2
    assert f"{bad}:1: TurnStarted.session_id: expected a string" in result.stderr
    assert out.read_text() == PREVIOUS


def test_a_missing_transcript_path_exits_2(tmp_path: Path) -> None:
    result = _invoke(tmp_path / "nowhere.jsonl", "-o", tmp_path / "r.html")
    assert result.exit_code == 2
    assert "no such file or folder" in result.stderr


def test_a_torn_last_line_is_skipped_with_a_warning_unless_strict(tmp_path: Path) -> None:
    good = lines(busy_session().events)
    torn = tmp_path / "torn.jsonl"
    torn.write_text("\n".join(good) + "\n" + good[0][:15])
    out = tmp_path / "r.html"
    result = _invoke(torn, "-o", out)
    assert result.exit_code == 0
    assert f"warning: {torn}:{len(good) + 1}: incomplete last line skipped" in result.stderr
    assert "incomplete last line skipped" in out.read_text()
    out.unlink()
    assert _invoke(torn, "--strict", "-o", out).exit_code == 2
    assert not out.exists()


def test_a_failure_while_writing_removes_the_temporary_file_and_keeps_the_old_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "report.html"
    out.write_text(PREVIOUS)

    def disk_full(fd: int) -> None:
        assert _leftovers(tmp_path), "the document goes to a temporary file first"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(out, build([write(tmp_path / "t.jsonl", busy_session())]).html())
    assert out.read_text() == PREVIOUS
    assert _leftovers(tmp_path) == []


def test_the_cli_reports_a_write_failure_with_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = write(tmp_path / "t.jsonl", busy_session())
    out = tmp_path / "report.html"

    def refuse(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = _invoke(transcript, "-o", out)
    assert result.exit_code == 1
    assert "cannot write" in result.stderr
    assert not out.exists()
    assert _leftovers(tmp_path) == []
