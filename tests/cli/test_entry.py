"""The ``trimscope`` entry: help for users, ``--version``, ``-h``, commands imported only when
they run, and exit 3 (one line, traceback saved) for an internal error."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

import harness.cli.options
from harness.cli import app, main
from harness.cli.crash import CRASH_PREFIX
from harness.cli.lazy import COMMANDS, load_command
from harness.exit_codes import ExitCode

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "budget-proactive-drops-oldest-turns.yaml"

# What neither ``--help`` nor ``validate`` may import: each belongs to the commands that
# need it (telemetry to run/load, servers to fake serve/load, Locust to its own processes).
HEAVY = ("opentelemetry", "prometheus_client", "locust", "gevent", "uvicorn", "harness.load")
# Validation reads files: no HTTP client, no agent, no provider clients either.
HEAVY_FOR_VALIDATE = (*HEAVY, "httpx", "respx", "harness.agent", "harness.providers")
HEAVY_FOR_HELP = (*HEAVY, "pydantic", "yaml", "fakes", "harness.scenarios", "httpx", "starlette")

PROBE = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["trimscope", *sys.argv[1:]]
from harness.cli import main
main()
"""


def _modules_after(*args: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, json.loads(done.stderr.strip().splitlines()[-1])


def _loaded(modules: list[str], forbidden: tuple[str, ...]) -> list[str]:
    return [m for m in modules if m.split(".")[0] in forbidden or m.startswith(forbidden)]


def test_help_imports_no_command_and_no_heavy_library() -> None:
    code, modules = _modules_after("--help")
    assert code == 0
    assert _loaded(modules, HEAVY_FOR_HELP) == []


def test_validate_imports_no_telemetry_server_or_locust() -> None:
    code, modules = _modules_after("validate", str(SCENARIO))
    assert code == 0
    assert "harness.scenarios.loader" in modules  # the probe does see what was imported
    assert _loaded(modules, HEAVY_FOR_VALIDATE) == []


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_help_listing_says_what_each_command_says_of_itself(name: str) -> None:
    real = load_command(name)
    assert real.name == name
    assert real.get_short_help_str(limit=1000) == COMMANDS[name][1]


def test_top_level_help_is_written_for_users() -> None:
    for flag in ("-h", "--help"):
        result = CliRunner().invoke(app, [flag])
        assert result.exit_code == 0
        assert "composition root" not in result.output
        assert "context window" in result.output
        for name in COMMANDS:
            assert name in result.output


def test_h_is_help_on_every_command() -> None:
    for args in (["run"], ["fake", "serve"], ["dashboards", "build"], ["load"]):
        result = CliRunner().invoke(app, [*args, "-h"])
        assert result.exit_code == 0, result.output
        usage = " ".join(result.output.split())
        assert "Usage:" in usage
        assert " ".join(args) + " [OPTIONS]" in usage


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"trimscope {version('trimscope')}\n"


def test_an_unknown_command_suggests_the_near_one() -> None:
    result = CliRunner().invoke(app, ["valdate"])
    assert result.exit_code == 2
    assert "validate" in result.output


def test_internal_error_is_one_line_exit_3_and_a_saved_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("wires crossed\nsecond line")

    monkeypatch.setattr(harness.cli.options, "load_all", broken)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # re-read TMPDIR
    with pytest.raises(SystemExit) as exited:
        main(["validate", str(SCENARIO)])
    assert exited.value.code == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "internal error (RuntimeError: wires crossed)" in err
    assert "Traceback" not in err
    (saved,) = tmp_path.glob(f"{CRASH_PREFIX}*")
    assert str(saved) in err
    text = saved.read_text(encoding="utf-8")
    for piece in ("Traceback", "second line", "broken"):
        assert piece in text


def test_a_file_error_during_the_work_is_exit_1_naming_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    junit = tmp_path / "junit.xml"

    def disk_full(path: Path, *_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr("harness.cli.run.write_junit", disk_full)
    with pytest.raises(SystemExit) as exited:
        main(["run", str(SCENARIO), "--junit-xml", str(junit)])
    assert exited.value.code == ExitCode.UNWRITTEN
    err = capsys.readouterr().err
    assert f"cannot write {junit}: {os.strerror(errno.ENOSPC)}" in err
    assert "Traceback" not in err
