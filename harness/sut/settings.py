"""The defaults and bounds of a ``--sut`` run, in a module of their own (stdlib only) so
``trimscope run`` declares its options without importing the SUT machinery."""

from __future__ import annotations

from typing import Final

DEFAULT_OP_TIMEOUT_S: Final = 30.0
"""How long trimscope waits for any one message of the runtime (a hello, an opened, the
next message of a turn): far above a provider call against a local fake."""
DEFAULT_SCENARIO_TIMEOUT_S: Final = 120.0
DEFAULT_WORKERS: Final = 2
"""Runtime processes a run keeps: two sessions in flight hide most of the time each one
waits on the other side of a pipe or socket (the bench's ratio); a fault stays with its
own process."""
MAX_WORKERS: Final = 16
