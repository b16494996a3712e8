"""Exit code 3: an unexpected internal error is one line on stderr plus the path of a file
holding the full traceback, never a traceback on the terminal.

Every input error is meant to be caught earlier and reported with exit 2; reaching this
handler is a bug, and the saved traceback is what a bug report needs. ``KeyboardInterrupt``
and ``SystemExit`` are not errors and pass through untouched. An ``OSError`` on a file
during the work is exit 1 (an output could not be written), as the README documents.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from typing import Final, NoReturn

import typer

from harness.exit_codes import ExitCode

CRASH_PREFIX: Final = "trimscope-crash-"
MAX_MESSAGE_CHARS: Final = 200
"""The one line stays one line: long or multi-line messages are cut (the file has them)."""


def save_traceback(error: BaseException) -> str:
    """Write ``error``'s traceback to a new file in the temp folder; return its path."""
    text = "".join(traceback.format_exception(error))
    handle, path = tempfile.mkstemp(prefix=CRASH_PREFIX, suffix=".txt")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    return path


def one_line(error: BaseException) -> str:
    first = (str(error).splitlines() or [""])[0]
    if len(first) > MAX_MESSAGE_CHARS:
        first = first[:MAX_MESSAGE_CHARS] + "…"
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def run_guarded(app: typer.Typer, argv: list[str] | None = None) -> None:
    """Run ``app``; turn an unexpected exception into exit 3 with its traceback saved."""
    try:
        app(args=argv)
    except OSError as error:
        if error.filename is None:
            _internal(error)
        # Every output was checked writable before the work began; failing now (a full
        # disk, a folder removed meanwhile) is an output that could not be written: exit 1.
        print(f"trimscope: cannot write {error.filename}: {error.strerror}", file=sys.stderr)
        raise SystemExit(ExitCode.UNWRITTEN) from None
    except Exception as error:  # the one place that may catch everything: it reports bugs
        _internal(error)


def _internal(error: Exception) -> NoReturn:
    try:
        where = f"full traceback in {save_traceback(error)}"
    except OSError as write_error:
        where = f"the traceback could not be saved ({write_error.strerror})"
    print(f"trimscope: internal error ({one_line(error)}); this is a bug; {where}", file=sys.stderr)
    raise SystemExit(ExitCode.INTERNAL) from None


__all__ = [
    "CRASH_PREFIX",
    "one_line",
    "run_guarded",
    "save_traceback",
]
