"""A tiny valid scenario (its line numbers are part of the tests), and ways to run the
``trimscope`` command: in process (``CliRunner``) or as the real console script."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app

# Line numbers: id 1, title 2, rules 3, providers 4, openai.main 5, kind 6, model 7,
# fake 8, default 9, conversation 10, user 11, expect 12, answers 13, counts 14,
# provider_calls 15.
TINY = """\
id: tiny
title: One question, one answer
rules: ["4"]
providers:
  openai.main:
    kind: openai
    model: gpt-test
    fake:
      default: {text: "ok"}
conversation:
  - user: "hello"
expect:
  answers: ["ok"]
  counts:
    provider_calls: 1
"""


def scenario(
    scenario_id: str = "tiny", *, answer: str = "ok", replace: tuple[str, str] | None = None
) -> str:
    text = TINY.replace("id: tiny", f"id: {scenario_id}").replace('["ok"]', f'["{answer}"]')
    if replace is not None:
        assert replace[0] in text, replace[0]
        text = text.replace(*replace)
    return text


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@dataclass(frozen=True)
class Result:
    exit_code: int
    stdout: str
    stderr: str


def cli(*args: str | Path) -> Result:
    """``trimscope ARGS`` in this process."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Result(result.exit_code, result.stdout, result.stderr)


def console_script(args: Sequence[str | Path], cwd: Path) -> Result:
    """The installed ``trimscope`` console script, as a user runs it."""
    script = Path(sys.executable).with_name("trimscope")
    fallback = [sys.executable, "-c", "from harness.cli import main; main()"]
    command = [str(script)] if script.exists() else fallback
    done = subprocess.run(
        [*command, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "80", "NO_COLOR": "1"},
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)
