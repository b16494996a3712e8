"""Every output of ``trimscope load`` is its own failure domain (issue 28): a full disk
under one output costs that output only, in one line naming the file and the system's
error; every other output is written, the ``--json`` summary above all; the run exits 1.

The always-on tests inject the ``OSError``; the real ones mount a 64 KiB tmpfs (skipped,
with the reason, where mounting is not allowed) and run the command as a process, crash
guard included.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path
from typing import IO

import pytest
from typer.testing import CliRunner

from harness.atomic import atomic_write
from harness.cli import app
from harness.telemetry.exporters import read_span_lines
from tests.interrupting import TRIMSCOPE
from tests.small_disk import small_disk

RUN = ("--sessions", "20", "--concurrency", "4", "--turns", "2", "--quiet")
FULL = os.strerror(errno.ENOSPC)


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["load", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def _trimscope(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [str(TRIMSCOPE), "load", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def _full_write(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> None:
    """``module.name`` (an atomic writer) fails as a full disk does: ``write`` on the open
    stream raises an ``OSError`` that names no file."""

    def fill_fails(target: Path, *_: object) -> None:
        def fill(stream: IO[bytes]) -> None:
            raise OSError(errno.ENOSPC, FULL)

        atomic_write(target, fill)

    monkeypatch.setattr(f"{module}.{name}", fill_fails)


def _fill(path: Path) -> None:
    """Write ``path`` until its disk is full."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"x" * 4096) == 4096:
            pass
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)


def test_a_summary_that_cannot_be_written_exits_1_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _full_write(monkeypatch, "harness.load.summary", "write_text_atomic")
    out, metrics = tmp_path / "summary.json", tmp_path / "metrics.prom"
    code, output = _invoke(*RUN, "--json", str(out), "--metrics-out", str(metrics))
    assert code == 1, output
    assert f"error: cannot write --json {out}: {FULL} (errno 28)" in output
    assert output.count("cannot write") == 1
    assert not out.exists()
    assert "trimscope_load_sessions_total" in metrics.read_text(encoding="utf-8")


def test_metrics_that_cannot_be_written_leave_the_summary_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _full_write(monkeypatch, "harness.telemetry.exposition", "write_bytes_atomic")
    out, metrics = tmp_path / "summary.json", tmp_path / "metrics.prom"
    code, output = _invoke(*RUN, "--json", str(out), "--metrics-out", str(metrics))
    assert code == 1, output
    assert output.count(f"error: cannot write --metrics-out {metrics}: {FULL}") == 1
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["sessions_completed"] == 20
    assert summary["unwritten_outputs"] == [
        {
            "option": "--metrics-out",
            "path": str(metrics),
            "error": f"{FULL} (errno 28)",
            "lines_dropped": None,
        }
    ]


def test_spans_on_a_full_small_disk_cost_one_line_and_the_summary_is_written(
    tmp_path: Path,
) -> None:
    """Issue 28's reproduction: ~12,000 tracebacks, exit 3 and no summary, before."""
    out = tmp_path / "summary.json"
    with small_disk(tmp_path / "disk") as disk:
        spans = disk / "spans.jsonl"
        done = _trimscope(*RUN, "--otel-jsonl", spans, "--json", out)
        data = spans.read_bytes()
        records = read_span_lines(spans)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "Exception while exporting" not in done.stderr
    assert done.stderr.count("cannot write --otel-jsonl") == 1, done.stderr
    assert f"error: cannot write --otel-jsonl {spans}: {FULL} (errno 28)" in done.stderr
    assert data.endswith(b"\n")
    assert records
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["sessions_completed"] == 20
    (unwritten,) = summary["unwritten_outputs"]
    assert unwritten["option"] == "--otel-jsonl"
    assert unwritten["lines_dropped"] > 0
    assert "UNWRITTEN --otel-jsonl" in done.stdout


def test_a_summary_on_a_full_small_disk_exits_1_not_3(tmp_path: Path) -> None:
    """The ``OSError`` of a write on the open stream names no file: the crash guard took
    it for a bug (exit 3) before; now the file is named and the metrics are written."""
    metrics = tmp_path / "metrics.prom"
    with small_disk(tmp_path / "disk") as disk:
        _fill(disk / "filler")
        out = disk / "summary.json"
        done = _trimscope(*RUN, "--json", out, "--metrics-out", metrics)
        leftovers = sorted(p.name for p in disk.iterdir())
    assert done.returncode == 1, done.stderr
    assert f"error: cannot write --json {out}: {FULL} (errno 28)" in done.stderr
    assert "internal error" not in done.stderr
    assert leftovers == ["filler"]  # no summary, no temporary
    assert "trimscope_load_sessions_total" in metrics.read_text(encoding="utf-8")


def test_a_sweep_page_that_cannot_be_written_costs_the_page_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _full_write(monkeypatch, "harness.cli.load_sweep", "write_text_atomic")
    out, page = tmp_path / "sweep.json", tmp_path / "sweep.html"
    code, output = _invoke(
        "--sessions", "2", "--turns", "1", "--quiet", "--sweep", "budget=0,1200",
        "--json", str(out), "--html", str(page),
    )  # fmt: skip
    assert code == 1, output
    assert output.count(f"error: cannot write --html {page}: {FULL}") == 1
    assert [row["value"] for row in json.loads(out.read_text(encoding="utf-8"))["rows"]] == [
        0,
        1200,
    ]
    assert not page.exists()
