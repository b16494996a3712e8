"""``trimscope fake serve`` in a subprocess, as a user runs it (shared by the conformance
CLI tests and the fake-vs-real differential): the command line and a launcher that returns
the base URL the server prints once it accepts connections."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

STARTUP_SECONDS = 30.0


def trimscope_command() -> list[str]:
    """The installed console script when there is one, else the same entry point by hand."""
    script = Path(sys.executable).with_name("trimscope")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from harness.cli import main; main()"]


def serve_fake(started: list[subprocess.Popen[str]], *args: str) -> str:
    """Start ``trimscope fake serve ARGS``, add it to ``started`` (the caller stops it),
    and return the base URL it prints."""
    process = subprocess.Popen(
        [*trimscope_command(), "fake", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    started.append(process)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stream = process.stdout
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        return lines.get(timeout=STARTUP_SECONDS).strip()
    except queue.Empty:
        raise AssertionError("trimscope fake serve printed no base URL") from None


def stop_all(started: list[subprocess.Popen[str]]) -> None:
    for process in started:
        process.terminate()
        process.wait(timeout=15)
        if process.stdout is not None:
            process.stdout.close()
