"""A real small disk for output-failure tests: a tmpfs of a few KiB, mounted for one test.

Mounting needs root (or ``CAP_SYS_ADMIN``); where it is refused the test is skipped with
the reason, and the injected-``OSError`` tests, which run everywhere, cover the same code.
The finalizer unmounts the file system even when the test fails.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SMALL_DISK_BYTES = 64 * 1024
"""The size of issue 28's reproduction (``mount -t tmpfs -o size=64k``)."""


@contextmanager
def small_disk(folder: Path, size: int = SMALL_DISK_BYTES) -> Iterator[Path]:
    """``folder`` (created) as a tmpfs of ``size`` bytes while the block runs; the test is
    skipped when mounting is not allowed here."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip() or 'refused'}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)
