"""Hostile scenario inputs, each run as the real ``trimscope`` in a subprocess under a memory
cap (``RLIMIT_AS``) and a timeout: every one is an input error (exit 2, ``file:line``),
never a hang, never gigabytes, never a traceback, and nothing is written.

Before the loader's limits, each of these hung or grew without bound (issue 11). The cap
and the timeout only turn such a regression into a failure instead of a stuck suite;
they are not performance thresholds.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.scenarios.malformed import fake, insert, laughs, sub
from tests.scenarios.support import scenario, write

EXIT_INVALID = 2
MEMORY_CAP_BYTES = 1536 * 1024 * 1024  # the CLI itself needs a few hundred MiB of address space
HAZARD_TIMEOUT_S = 120  # a hang is detected by this, on a busy 2-core machine
ENTRY = "from harness.cli import main; main()"

HAZARDS: dict[str, tuple[str, str]] = {
    "billion-laughs-in-tool-parameters": (
        insert(laughs(9)),
        "17: tools[0].parameters.l4[7]: expected at most 100000 YAML nodes",
    ),
    # Just under the 1 MiB file limit: 340,000 one-letter items, refused once 100,000 nodes
    # are composed rather than after all of them.
    "one-mib-of-tiny-items": (
        insert("x: [" + ", ".join(["a"] * 340_000) + "]"),
        "10: x: expected at most 100000 YAML nodes once aliases are expanded",
    ),
    "huge-repeat": (
        sub('  - user: "hello"', '  - repeat: {times: 1000000000, steps: [{user: "x"}]}'),
        "11: conversation[0].repeat.times: expected a number <= 5000",
    ),
    "nested-repeat-5000x5000": (
        sub(
            '  - user: "hello"',
            '  - repeat: {times: 5000, steps: [{repeat: {times: 5000, steps: [{user: "x"}]}}]}',
        ),
        "11: conversation[0].repeat: expected at most 10000 conversation steps",
    ),
    "hang-fault-1e9-seconds": (
        fake("fault: {kind: hang, seconds: 1000000000}"),
        "9: providers.openai.main.fake.default.fault.seconds: expected at most 600 seconds",
    ),
    "latency-1e12-ms": (
        fake("latency_ms: 1000000000000"),
        "9: providers.openai.main.fake.default.latency_ms: expected at most 600000 ms",
    ),
    "latency-1e12-ms-as-float": (
        fake("latency_ms: 1.0e+12"),
        "9: providers.openai.main.fake.default.latency_ms: expected an integer",
    ),
    # The fake calls the tool on every call, so a 2e9-fold result would really be built.
    "tool-repeat-2e9": (
        insert("tools: [{name: big, output: abc, repeat: 2000000000}]").replace(
            'default: {text: "ok"}', "default: {tool_calls: [{name: big}]}"
        ),
        "10: tools[0].repeat: expected a result of at most 1000000 characters",
    ),
}


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def trimscope_capped(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HAZARD_TIMEOUT_S,
        preexec_fn=_cap_memory,  # the child sets its own cap; no threads exist yet
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
        check=False,
    )


def _refused(done: subprocess.CompletedProcess[str], bad: Path, expected: str) -> None:
    assert done.returncode == EXIT_INVALID, done.stderr[-2000:]
    assert any(line.startswith(f"{bad}:{expected}") for line in done.stderr.splitlines()), (
        done.stderr[-2000:]
    )
    assert "Traceback" not in done.stderr + done.stdout
    assert "PASS" not in done.stderr + done.stdout


@pytest.mark.parametrize("case", sorted(HAZARDS))
def test_hazard_is_an_input_error_in_bounded_time_and_memory(tmp_path: Path, case: str) -> None:
    text, expected = HAZARDS[case]
    library = tmp_path / "library"
    write(library, "a-valid.yaml", scenario("valid"))
    bad = write(library, f"{case}.yaml", text)
    out = tmp_path / "out"
    out.mkdir()  # outputs' folders must exist (none is created)
    done = trimscope_capped(
        "run", library, "--junit-xml", out / "j.xml", "--transcript", out / "t", cwd=tmp_path
    )
    _refused(done, bad, expected)
    assert list(out.iterdir()) == []


SPECIAL: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (os.mkfifo, "a FIFO"),
    "dev-zero-symlink": (lambda path: path.symlink_to("/dev/zero"), "a character device"),
    "directory": (lambda path: path.mkdir(), "a directory"),
}


@pytest.mark.parametrize("case", sorted(SPECIAL))
@pytest.mark.parametrize("command", ["validate", "run"])
def test_non_regular_file_is_refused_unread(tmp_path: Path, case: str, command: str) -> None:
    make, kind = SPECIAL[case]
    library = tmp_path / "library"
    write(library, "a-valid.yaml", scenario("valid"))
    bad = library / f"{case}.yaml"
    make(bad)  # found by the folder walk, like any *.yaml
    done = trimscope_capped(command, library, cwd=tmp_path)
    _refused(done, bad, f"1: (file): expected a regular file, found {kind}")


def test_dev_zero_given_by_name_is_refused(tmp_path: Path) -> None:
    done = trimscope_capped("validate", "/dev/zero", cwd=tmp_path)
    _refused(
        done, Path("/dev/zero"), "1: (file): expected a regular file, found a character device"
    )
