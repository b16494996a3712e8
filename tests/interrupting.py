"""Helpers for interruption tests: a real ``trimscope`` process, a real signal, and a scan of
``/proc`` for anything it left running.

Every process the command starts inherits its environment, so the command is given a
``TMPDIR`` of the test's own: a process whose environment or command line mentions that
folder after the command exited is a child that survived, and anything left in the
folder is a temporary folder that was not removed.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TRIMSCOPE = Path(sys.executable).with_name("trimscope")
EXIT_FOR = {signal.SIGINT: 130, signal.SIGTERM: 143}


@dataclass
class Running:
    process: subprocess.Popen[str]
    tmpdir: Path
    stderr: list[str]


def start(
    args: Sequence[str | Path],
    tmp_path: Path,
    *,
    command: Sequence[str] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Running:
    """``trimscope ARGS`` (or ``command``) with stdout and stderr piped (read stderr with
    ``wait_for``) and a private TMPDIR under ``tmp_path``."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(parents=True)
    environ = dict(os.environ if env is None else env)
    environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    environ |= {"TMPDIR": str(tmpdir), "COLUMNS": "200"}
    process = subprocess.Popen(
        list(command) if command is not None else [str(TRIMSCOPE), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ,
        cwd=cwd,
    )
    return Running(process, tmpdir, [])


def wait_for_file(running: Running, path: Path, timeout: float) -> None:
    """Wait until ``path`` exists (the run's own output says how far it got); fail after
    ``timeout`` seconds, or at once when the run ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return
        if running.process.poll() is not None:
            break
        time.sleep(0.05)
    running.process.kill()
    raise AssertionError(f"no {path} in {timeout}s")


def wait_for(running: Running, text: str, timeout: float) -> None:
    """Read stderr lines until one contains ``text``; fail after ``timeout`` seconds."""
    stream = running.process.stderr
    assert stream is not None
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not selector.select(min(left, 0.5)):
                if running.process.poll() is not None:
                    break
                continue
            line = stream.readline()
            if not line:
                break
            running.stderr.append(line)
            if text in line:
                return
    running.process.kill()
    raise AssertionError(f"no {text!r} on stderr in {timeout}s: {''.join(running.stderr)}")


def finish(running: Running, timeout: float = 60) -> tuple[int, str, str]:
    """Wait for the process to exit: (exit code, stdout, all of stderr)."""
    try:
        out, err = running.process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        running.process.kill()
        out, err = running.process.communicate()
        raise AssertionError(f"still running after {timeout}s: {err}") from None
    return running.process.returncode, out, "".join(running.stderr) + err


def survivors(marker: Path) -> list[str]:
    """Command lines of live processes whose environment or command line names ``marker``."""
    needle = str(marker).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in cmdline or needle in environ:
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def assert_nothing_left(running: Running, settle_s: float = 5.0) -> None:
    """No process of the run survives (children get ``settle_s`` to finish exiting) and its
    TMPDIR is empty."""
    deadline = time.monotonic() + settle_s
    while (left := survivors(running.tmpdir)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], f"processes survived the run: {left}"
    assert sorted(p.name for p in running.tmpdir.iterdir()) == []


def wait_for_process(running: Running, contains: str, timeout: float) -> int:
    """The pid of a process of the run whose command line contains ``contains``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                environ = (entry / "environ").read_bytes()
            except (OSError, UnicodeDecodeError):
                continue
            if contains in cmdline and str(running.tmpdir).encode() in environ:
                return int(entry.name)
        if running.process.poll() is not None:
            break
        time.sleep(0.1)
    running.process.kill()
    raise AssertionError(f"no process running {contains!r} within {timeout}s")


def wait_for_stop_handlers(running: Running, *, freeze: bool = False, timeout: float = 60) -> None:
    """Wait until the process catches SIGTERM (``SigCgt`` in ``/proc/PID/status``; Python
    catches SIGINT from its own start): the moment ``trimscope`` records stop signals.
    ``freeze``: SIGSTOP it then (``thaw`` continues it), to look at where it was."""
    status = Path(f"/proc/{running.process.pid}/status")
    bit = 1 << (signal.SIGTERM - 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and running.process.poll() is None:
        try:
            caught = next(
                int(line.split()[1], 16)
                for line in status.read_text().splitlines()
                if line.startswith("SigCgt:")
            )
        except (OSError, StopIteration):
            caught = 0
        if caught & bit:
            if freeze:
                running.process.send_signal(signal.SIGSTOP)
            return
        time.sleep(0.001)
    running.process.kill()
    raise AssertionError(f"SIGTERM not caught within {timeout}s")


def loaded_libraries(running: Running) -> str:
    """``/proc/PID/maps``: the shared objects (C extensions) the process has loaded."""
    return Path(f"/proc/{running.process.pid}/maps").read_text()


def thaw(running: Running) -> None:
    running.process.send_signal(signal.SIGCONT)
