"""Atomic output files: a reader sees the old file or the whole new one, never half of one.

Every output trimscope writes in one piece (JSON summaries, JUnit XML, HTML reports, plans,
metrics textfiles, dashboards) goes through ``atomic_write``: the content is written to a
temporary file in the target's own folder (a rename is atomic only within one file
system), flushed and ``fsync``-ed (so a crash after the rename cannot leave an empty file
on a journaling file system), then renamed over the target with ``os.replace``. On any
failure, an interruption included, the temporary file is removed and an existing target
is left as it was. A write that fails on the open stream (a full disk) raises an
``OSError`` without a file name; it is raised again naming the target, so the caller (and
the CLI's crash guard) can say which output could not be written.

Streams written as they go (transcripts, span files) are not whole files: they are
written one complete line per ``write`` and their readers skip a torn last line.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

FILE_MODE: Final = 0o644
"""The mode of a written output: ``mkstemp`` creates 0600, which would surprise a reader
used to the umask's files (and a web server serving a report)."""
TEMP_SUFFIX: Final = ".tmp"


def atomic_write(target: Path, fill: Callable[[IO[bytes]], None]) -> None:
    """Create ``target`` (and its folder) from what ``fill`` writes to a binary stream."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=TEMP_SUFFIX
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            fill(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        if error.filename is None:
            raise OSError(error.errno, error.strerror, str(target)) from error
        raise
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_bytes_atomic(target: Path, data: bytes) -> None:
    def fill(stream: IO[bytes]) -> None:
        stream.write(data)

    atomic_write(target, fill)


def write_text_atomic(target: Path, text: str) -> None:
    """``text`` as UTF-8 (no newline translation: what is given is what is written)."""
    write_bytes_atomic(target, text.encode("utf-8"))
