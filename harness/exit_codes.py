"""The exit codes of every trimscope command, declared once.

0 success; 1 a scenario or check failed, or an output could not be written; 2 invalid
input (option, file, path, port, variable), nothing done; 3 an internal error (a bug: the
traceback is saved and its path printed). A run stopped by a signal exits 128 + the
signal's number (``harness.interrupt.SIGNAL_EXIT_BASE``): that code is the signal's, not
one of these.

``conformance`` says the same numbers in its own words: its endpoint conforms (0), does not
(1), or could not be probed (2: unreachable, or refused the probe's input). The aliases
below name those meanings; they are the same members, so a caller comparing with either
name gets the same answer. Stdlib only: the CLI, the load runner's outputs and the
conformance report all use it.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """A command's exit status; an ``int``, so ``typer.Exit(ExitCode.INVALID)`` and
    ``SystemExit`` take it as it is."""

    OK = 0
    FAILED = 1
    INVALID = 2
    INTERNAL = 3

    # Aliases (same values): what the number means for the command that returns it.
    UNWRITTEN = 1
    """An output could not be written (the run itself may have finished)."""
    CONFORMS = 0
    DOES_NOT_CONFORM = 1
    UNUSABLE = 2
    """conformance: the endpoint could not be probed (unreachable, or refused the input)."""
