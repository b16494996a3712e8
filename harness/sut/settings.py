"""The defaults and bounds of a ``--sut`` run, in a module of their own (stdlib only) so
``trimscope run`` declares its options without importing the SUT machinery."""

from __future__ import annotations

from typing import Final

DEFAULT_OP_TIMEOUT_S: Final = 30.0
"""How long trimscope waits for any one message of the runtime (a hello, an opened, the
next message of a turn): far above a provider call against a local fake."""
DEFAULT_SCENARIO_TIMEOUT_S: Final = 120.0
DEFAULT_WORKERS: Final = 1
"""Runtime processes a run keeps. One: on a busy 2-core machine the run is CPU-bound and a
second runtime's start-up costs more than the waits it hides (``bench/sut.py`` measured
about 1.7x the in-process run with one, 2.0-2.3x with two); more help where cores are idle."""
MAX_WORKERS: Final = 16
