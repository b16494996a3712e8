"""A file written in whole lines that a full disk cannot tear (issue 28).

Span files (``--otel-jsonl``) and transcripts are streams: each write is one or more whole
JSON lines, on disk when ``write`` returns (``os.write``, no buffer of ours). A write that
fails (a full disk, an I/O error) cuts the file back to its size after the last whole write
(``ftruncate`` frees blocks, so it works on a full disk), closes it, keeps the error
(``failure``) and tells ``on_failure`` once; every line from then on is counted in
``dropped`` and never written. Without ``on_failure`` the error is raised instead (after
the cut), for callers that stop on it.

Not retrying after a failure is deliberate: a disk that freed some room would give a file
with a hole of missing lines in the middle, which a reader cannot tell from a complete one.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final

LINE_FILE_MODE: Final = 0o644
"""The mode of a new file (before the umask), as ``open`` would create it."""
LineFileFailed = Callable[[Path, OSError], None]
"""Told once, at a file's first failed write: the file and the system's error."""


def write_all(fd: int, data: bytes) -> None:
    """``data`` written whole (``os.write`` may write part of it, then fail)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class LineFile:
    """``path`` opened for whole-line writes: appended to (``append``) or emptied first."""

    def __init__(
        self,
        path: Path,
        *,
        append: bool,
        on_failure: LineFileFailed | None = None,
        fsync_each: bool = False,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        self.path = path
        self._fd: int | None = os.open(path, flags, LINE_FILE_MODE)
        self._size = os.lseek(self._fd, 0, os.SEEK_END)  # after the last whole write
        self._on_failure = on_failure
        self._fsync_each = fsync_each
        self._lock = threading.Lock()
        self.failure: OSError | None = None
        self.dropped = 0

    @property
    def closed(self) -> bool:
        return self._fd is None

    def write(self, data: bytes, lines: int = 1) -> bool:
        """Write ``data`` (``lines`` whole lines); ``False`` when they were dropped."""
        with self._lock:
            if self._fd is None:  # failed before (or closed: nothing is dropped then)
                self.dropped += lines if self.failure is not None else 0
                return False
            try:
                write_all(self._fd, data)
                if self._fsync_each:
                    os.fsync(self._fd)
            except OSError as error:
                self.dropped += lines
                self._fail(error)
                return False
            self._size += len(data)
            return True

    def close(self, *, sync: bool = True) -> None:
        """Close the file, ``fsync``-ed first when ``sync``; a failing sync is a failure."""
        with self._lock:
            if self._fd is None:
                return
            try:
                if sync:
                    os.fsync(self._fd)
            except OSError as error:
                self._fail(error)
                return
            os.close(self._fd)
            self._fd = None

    def _fail(self, error: OSError) -> None:
        """Cut the torn write off, close the file, keep and report the error (lock held)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._size)
            with contextlib.suppress(OSError):
                os.close(fd)
        first = self.failure is None
        self.failure = self.failure or error
        if self._on_failure is None:
            raise error
        if first:
            self._on_failure(self.path, error)
